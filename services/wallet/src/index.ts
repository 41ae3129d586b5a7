export * from './domain/wallet.decider.js';
export * from './http/routes.js';
export * from './application/wallet-service.js';
export * from './application/settlement-consumer.js';
export * from './application/commission-collector.js';
export * from './http/internal-routes.js';
export * from './application/balance-limits.js';
export * from './application/wallet-mode.js';
