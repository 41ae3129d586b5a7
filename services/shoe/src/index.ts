export * from './domain/shoe.decider.js';
export * from './http/routes.js';
export * from './application/seed-vault.js';
export * from './application/shoe-service.js';
export * from './http/internal-routes.js';
export * from './plugin.js';
export * from './process.js';
