export * from './environment.js';
export * from './store.js';
export * from './serve.js';
export * from './service-app.js';
export * from './security-log.js';
export * from './metrics/index.js';
export * from './read-models.js';
export * from './commands.js';
