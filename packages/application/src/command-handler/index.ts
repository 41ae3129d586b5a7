export type { Aggregate, DomainEvent, Handled, HandleOptions, Loaded } from './aggregate.js';
export type { RetryPolicy } from './decide-and-append.js';
export * from './command-handler.js';
