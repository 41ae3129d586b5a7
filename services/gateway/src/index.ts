export * from './config.js';
export * from './system.js';
export * from './app.js';
export * from './player-history.js';
export * from './audit-evidence.js';
export * from './audit-routes.js';
export * from './rebuild.js';
export * from './game-recall-csv.js';
