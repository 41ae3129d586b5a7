export * from './domain/table.decider.js';
export * from './domain/round.decider.js';
export * from './application/aggregates.js';
export * from './application/sequence.js';
export * from './application/round-service.js';
export * from './application/orphan-sweep.js';
export * from './application/auto-dealer.js';
export * from './application/table-board.js';
