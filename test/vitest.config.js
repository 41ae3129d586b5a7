// @ts-check
import shared from '../vitest.shared.js';

/** End-to-end files each start a whole system: give them time, and run a few at once. */
export default {
  ...shared,
  test: {
    ...shared.test,
    include: ['e2e/**/*.test.ts', 'chaos/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
};
