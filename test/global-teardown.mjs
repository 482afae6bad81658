import { rm } from 'node:fs/promises';

// Stops the embedded PostgreSQL of the run (persistent: false removes its data folder) and
// removes the temporary folder that held it.
export default async function globalTeardown() {
  await globalThis.__TEST_POSTGRES__?.stop();
  if (globalThis.__TEST_POSTGRES_DIR__) await rm(globalThis.__TEST_POSTGRES_DIR__, { recursive: true, force: true });
}
