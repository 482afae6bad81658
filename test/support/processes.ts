import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const DIST = path.resolve('dist/src');

/**
 * A built entry point: the service (`main.js`) is the production bundle `npm start` runs
 * (tools/bundle.mjs), so these tests check what is deployed; the others (cli.js …) are tsc's output.
 */
function builtScript(script: string): string {
  return script === 'main.js' ? path.resolve('dist/bundle/main.js') : path.join(DIST, script);
}

/** Runs a compiled entry point (npm test builds first) and collects its output. */
export function runNode(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtScript(script), ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the built command line (`npm run cli -- …`) against the database at `databaseUrl`. */
export function runCli(databaseUrl: string, ...args: string[]): ReturnType<typeof runNode> {
  return runNode('cli.js', args, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
}

/** Starts a long-running compiled entry point and resolves once its stdout matches `ready` (within `timeoutMs`). */
export function startNode(
  script: string, env: Record<string, string>, ready: RegExp, timeoutMs = 20_000, nodeArgs: string[] = [],
): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, builtScript(script)], { env: { ...process.env, ...env } });
    let output = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`not ready in time:\n${output}`)); }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.on('close', (code) => { clearTimeout(timer); if (!ready.test(output)) reject(new Error(`exited ${code}:\n${output}`)); });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

/** Resolves with the exit code once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Kills `child` with SIGKILL (unless it has exited) and resolves once it is gone. */
export async function killNow(child: ChildProcess): Promise<void> {
  const gone = exited(child);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await gone;
}

/** Reads until `done` holds of the value read (every `everyMs`); fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value).slice(0, 500)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
