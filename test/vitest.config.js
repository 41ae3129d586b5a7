// @ts-check
import shared from '../vitest.shared.js';

/**
 * End-to-end files each start a whole system: give them time, and run a few at once. tooling/
 * runs the scripts the docs tell people to run, in a short form (this run only).
 */
export default {
  ...shared,
  test: {
    ...shared.test,
    include: ['e2e/**/*.test.ts', 'chaos/**/*.test.ts', 'tooling/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
};
