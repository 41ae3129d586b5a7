export * from './bus.js';
export * from './in-process-bus.js';
export * from './bullmq-bus.js';
export * from './factory.js';
export * from './origin.js';
