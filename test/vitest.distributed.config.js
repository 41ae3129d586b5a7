// @ts-check
import { sourceConditions } from '../vitest.shared.js';
import base from './vitest.config.js';

/**
 * The end-to-end suite again, against the distributed deployment: every service a process of
 * its own on PostgreSQL and Redis (test/support/harness.ts reads E2E_DEPLOYMENT). Every e2e file
 * runs here; a test that cannot apply to this deployment skips itself and says why in its name,
 * as do the files that start processes of their own and run in one of the two runs only. This is
 * the run that takes the suite through real PostgreSQL and Redis: the single-process run puts
 * most files on the in-memory store (each names its store in startHarness). The files share one
 * deployment started once for the run, one file at a time; a file that kills or restarts
 * processes, or needs settings of its own, starts processes of its own (support/harness.ts).
 * Two files run at once: the shared deployment is one file's at a time (a lock each file waits
 * for), while files with processes of their own run beside it.
 */
export default {
  ...base,
  // The global setup runs in vitest's own environment, which reads the workspace packages'
  // TypeScript sources as the test files do.
  environments: {
    __vitest__: {
      resolve: { conditions: sourceConditions, externalConditions: ['@croupier/source'] },
    },
  },
  test: {
    ...base.test,
    include: ['e2e/**/*.test.ts'],
    env: { E2E_DEPLOYMENT: 'distributed' },
    // One deployment for the run, which the files share one at a time (support/shared-cluster.ts).
    globalSetup: ['support/shared-cluster.ts'],
    maxWorkers: 2,
  },
};
