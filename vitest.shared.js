// @ts-check
import { defineConfig } from 'vitest/config';

/**
 * Shared vitest settings for every workspace package. Packages import each other's TypeScript
 * sources through the `@croupier/source` export condition, so no build is needed to test.
 *
 * The SSR conditions leave out "import" and "module": vitest hands them to Node for externalized
 * CommonJS too, and then `require('pg-pool')` (which pg does) resolves to pg-pool's ESM entry and
 * pg crashes at import ("Class extends value [object Module]"). Vite adds "import" or "require"
 * itself, by how each module is imported.
 */
export const sourceConditions = ['@croupier/source', 'node', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@croupier/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One worker imports the workspace's modules once for all its files instead of once per
    // file: with two cores vitest runs one worker, and re-importing the gateway's whole module
    // graph for every file was most of a package's time (packages/http under load: 74 s with
    // isolation, 14 s without, back to back). Files share no module state that a test changes:
    // stores, registries, apps and configs are made per file, and env stubs are undone.
    isolate: false,
  },
});
