/** Jest in native ESM mode (NODE_OPTIONS=--experimental-vm-modules), TypeScript through SWC
 * with legacy decorators and their metadata, as type-graphql and MikroORM need. */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2023',
        keepClassNames: true,
      },
      module: { type: 'es6' },
    }],
  },
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/every-test-asserts.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker keeps tens of MB of every test file it ran (measured with forced GC: ~60-90 MB a file,
  // jest's ESM module graphs), and at the end of a run one with gigabytes took longer to exit than
  // the 500 ms jest waits ("A worker process has failed to exit gracefully"). Past this heap size
  // after a file, jest replaces the worker, so none grows without bound.
  workerIdleMemoryLimit: '400MB',
};
