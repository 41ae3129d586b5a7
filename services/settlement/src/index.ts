export * from './domain/settlement.decider.js';
export * from './application/settlement-reactor.js';
export * from './application/outbox.js';
export * from './application/environment.js';
export * from './plugin.js';
export * from './process.js';
