export * from './decider.js';
export * from './ids.js';
export * from './context.js';
export * from './command-handler.js';
export * from './snapshots.js';
export * from './projection-error.js';
export * from './projection-runner.js';
export * from './document-cache.js';
