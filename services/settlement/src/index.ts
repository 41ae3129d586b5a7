export * from './domain/settlement.decider.js';
export * from './application/settlement-reactor.js';
export * from './application/outbox.js';
export * from './http/routes.js';
