// @ts-check
import base from './vitest.config.js';

/**
 * The end-to-end suite again, against the distributed deployment: every service a process of
 * its own on PostgreSQL and Redis (test/support/harness.ts reads E2E_DEPLOYMENT).
 */
export default {
  ...base,
  test: {
    ...base.test,
    include: [
      'e2e/full-shoe.e2e.test.ts',
      'e2e/presets.e2e.test.ts',
      'e2e/lifecycle.e2e.test.ts',
      'e2e/disputes.e2e.test.ts',
      'e2e/http.e2e.test.ts',
    ],
    env: { E2E_DEPLOYMENT: 'distributed' },
    maxWorkers: 1,
  },
};
