import { EventValidationError } from '../errors.js';

/** Default PostgreSQL schema of the event store tables. */
export const DEFAULT_SCHEMA = 'croupier';

/** Checks a schema name and returns it quoted. Only lower-case identifiers: no quoting surprises. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new EventValidationError(
      `schema ${JSON.stringify(schema)} must match [a-z_][a-z0-9_]* and be at most 63 characters`,
    );
  }
  return `"${schema}"`;
}

/** The NOTIFY channel that append_events signals for this schema. */
export function notifyChannel(schema: string): string {
  return `${schema}_events`;
}
