// @ts-check
import base from './vitest.config.js';

/**
 * The end-to-end suite again, against the distributed deployment: every service a process of
 * its own on PostgreSQL and Redis (test/support/harness.ts reads E2E_DEPLOYMENT). Every e2e file
 * runs here; a test that cannot apply to this deployment skips itself and says why in its name,
 * as do the files that start processes of their own and run in one of the two runs only. This is
 * the run that takes the suite through real PostgreSQL and Redis: the single-process run puts
 * most files on the in-memory store (each names its store in startHarness).
 */
export default {
  ...base,
  test: {
    ...base.test,
    include: ['e2e/**/*.test.ts'],
    env: { E2E_DEPLOYMENT: 'distributed' },
    maxWorkers: 1,
  },
};
