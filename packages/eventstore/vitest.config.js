// @ts-check
import shared from '../../vitest.shared.js';

/**
 * The shared config, except that the SSR conditions omit "import" and "module": vitest hands them
 * to Node for externalized CommonJS too, and then `require('pg-pool')` (which pg does) resolves to
 * pg-pool's ESM entry and pg crashes at import ("Class extends value [object Module]").
 */
export default {
  ...shared,
  ssr: {
    ...shared.ssr,
    resolve: { ...shared.ssr?.resolve, conditions: ['@croupier/source', 'node', 'default'] },
  },
};
