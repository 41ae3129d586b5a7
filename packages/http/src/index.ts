export * from './auth.js';
export * from './problem.js';
export * from './app.js';
export * from './internal.js';
