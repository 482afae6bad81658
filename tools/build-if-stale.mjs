// `npm start`'s build step: runs the TypeScript build only when an input changed since the last one.
// tsc's incremental build still reads and checks every file (seconds of CPU) when nothing changed;
// comparing modification times answers in milliseconds, so a restart on a current build starts at once.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

const BUILD_INFO = 'dist/.tsbuildinfo'; // written by every build (tsconfig.build.json)
const INPUT_FOLDERS = ['src', 'bench'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

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
    return statSync(BUILD_INFO).mtimeMs;
  } catch {
    return -Infinity; // never built
  }
}

if (newestInput() > builtAt()) {
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // tsc leaves the file untouched when no output changed: mark the build current.
  const now = new Date();
  utimesSync(BUILD_INFO, now, now);
}
