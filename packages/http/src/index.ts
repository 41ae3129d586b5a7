export * from './auth.js';
export * from './problem.js';
export * from './app.js';
export * from './internal.js';
export * from './logging.js';
export * from './metrics.js';
export * from './failed-logins.js';
export * from './outage.js';
