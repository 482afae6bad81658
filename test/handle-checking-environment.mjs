// The test environment of every file: jest's node environment, plus a check that the file left
// nothing behind that keeps a process alive. Jest runs many files in one worker process and, at the
// end, gives each worker 500 ms to exit by itself; a server, socket, child process or timer a file
// did not close (or unref) makes jest kill the worker and print "A worker process has failed to
// exit gracefully" — for the whole run, naming no file. Here the file that leaked fails, naming
// what it left. Plain .mjs: jest loads this file without transforms.
import { TestEnvironment } from 'jest-environment-node';

/** How long a file's handles may take to close after its last afterAll (sockets close on later ticks; a loaded machine is slow). */
const SETTLE_MS = 10_000;

/** Counts of the resources that keep the process alive (Node lists only referenced handles and timers), by type. */
function aliveResources() {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** What is alive now beyond `before`, as "type ×n" strings; empty when nothing was added. */
function addedSince(before) {
  return [...aliveResources()]
    .filter(([type, count]) => count > (before.get(type) ?? 0))
    .map(([type, count]) => `${type} ×${count - (before.get(type) ?? 0)}`);
}

export default class HandleCheckingEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    this.aliveBefore = aliveResources();
  }

  async teardown() {
    // Only in a worker (it has the IPC channel to jest): one file run in band is jest's own process,
    // which reports what outlives the run itself ("Jest did not exit one second after the test run").
    if (!process.channel) return super.teardown();
    const deadline = Date.now() + SETTLE_MS;
    let added = addedSince(this.aliveBefore);
    while (added.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
      added = addedSince(this.aliveBefore);
    }
    await super.teardown();
    if (added.length > 0) {
      throw new Error(`This test file left open what keeps the process alive: ${added.join(', ')}. `
        + 'Close (or unref) it in afterAll; `npm test -- --runInBand --detectOpenHandles <file>` shows where it was opened.');
    }
  }
}
