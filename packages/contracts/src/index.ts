export * from './table-config.js';
