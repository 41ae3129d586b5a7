export * from './common.js';
export * from './metadata.js';
export * from './table.js';
export * from './shoe.js';
export * from './round.js';
export * from './wallet.js';
export * from './security.js';
export * from './notary.js';
