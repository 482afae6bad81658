// Stops the embedded PostgreSQL of the run; with persistent: false this also removes its files.
export default async function globalTeardown() {
  await globalThis.__TEST_POSTGRES__?.stop();
}
