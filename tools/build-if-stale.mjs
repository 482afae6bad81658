// `npm start`'s build step: runs the build (tsc, then the bundle) only when an input changed since the last one.
// tsc's incremental build still reads and checks every file (seconds of CPU) when nothing changed;
// comparing modification times answers in milliseconds, so a restart on a current build starts at once.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

// What `npm start` runs; tools/bundle.mjs deletes the bundle first and writes it anew, so this file
// exists only after a successful build, newer than every input it was built from.
const BUILT = 'dist/bundle/main.js';
const INPUT_FOLDERS = ['src', 'bench'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'tools/bundle.mjs'];

function newestInput() {
  let newest = Math.max(...INPUT_FILES.map((file) => statSync(file).mtimeMs));
  const visit = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const child = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(child);
      else newest = Math.max(newest, statSync(child).mtimeMs);
    }
  };
  INPUT_FOLDERS.forEach(visit);
  return newest;
}

function builtAt() {
  try {
    return statSync(BUILT).mtimeMs;
  } catch {
    return -Infinity; // never built
  }
}

if (newestInput() > builtAt()) {
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
