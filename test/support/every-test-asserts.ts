import { beforeEach, expect } from '@jest/globals';

/**
 * Every test must make at least one assertion: a test that returns early or loops over nothing
 * would otherwise pass without checking anything (a test that cannot fail is a defect).
 */
beforeEach(() => {
  expect.hasAssertions();
});
