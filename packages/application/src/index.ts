export * from './decider.js';
export * from './ids.js';
export * from './context.js';
export * from './command-handler.js';
export * from './projections.js';
export * from './projection-runner.js';
