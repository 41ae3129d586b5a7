export * from './log-metrics.js';
export * from './subscription-metrics.js';
export * from './refused-bets.js';
export * from './projection-metrics.js';
export * from './command-metrics.js';
export * from './game-figures.js';
