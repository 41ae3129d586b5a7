export * from './bus.js';
export * from './in-process-bus.js';
