// @ts-check
import { defineConfig } from 'vitest/config';

/**
 * Shared vitest settings for every workspace package. Packages import each other's TypeScript
 * sources through the `@croupier/source` export condition, so no build is needed to test.
 */
export const sourceConditions = ['@croupier/source', 'node', 'import', 'module', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@croupier/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
