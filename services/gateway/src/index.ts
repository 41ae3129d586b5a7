export * from './config.js';
export * from './system.js';
export * from './app.js';
export * from './player-history.js';
