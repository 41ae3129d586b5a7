export * from './message.js';
export * from './books.js';
export * from './consumer.js';
export * from './reconcile.js';
