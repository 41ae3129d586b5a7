export * from './ids.js';
export * from './text.js';
export * from './table-config.js';
export * from './events/index.js';
export * from './errors.js';
export * from './error-catalog.js';
export * from './ports.js';
export * from './settlement-message.js';
