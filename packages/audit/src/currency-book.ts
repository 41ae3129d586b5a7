import type { RecordedEvent } from '@croupier/eventstore';
import { currencyNamedBy } from './describe.js';
import { tableOfStream } from './significant-events.js';

/**
 * Where the currency of an event's money is known when the event does not name it: a table's
 * (its rounds, shoes and commission play in the currency it was opened with) or a wallet's (the
 * currency of its first deposit: a wallet holds one). Written `table/<tableId>`, `wallet/<stream>`.
 */
export type CurrencyScope = `table/${string}` | `wallet/${string}`;

/** The scope whose currency an event's amounts are in, or null where none is known. */
export function currencyScopeOf(recorded: RecordedEvent): CurrencyScope | null {
  const tableId =
    tableOfStream(recorded.stream) ??
    ((recorded.data as { tableId?: unknown } | null)?.tableId as string | undefined);
  if (typeof tableId === 'string') return `table/${tableId}`;
  if (recorded.stream.startsWith('wallet-')) return `wallet/${recorded.stream}`;
  return null;
}

/** The currency an event fixes for its scope (a table's opening, a wallet's deposit), if any. */
export function currencyFixedBy(
  recorded: RecordedEvent,
): { scope: CurrencyScope; currency: string } | null {
  if (recorded.type === 'TableOpened') {
    const currency = (recorded.data as { config?: { currency?: unknown } }).config?.currency;
    const tableId = tableOfStream(recorded.stream);
    if (typeof currency === 'string' && tableId !== null)
      return { scope: `table/${tableId}`, currency };
  }
  if (recorded.type === 'FundsDeposited') {
    const currency = currencyNamedBy(recorded);
    if (currency !== null) return { scope: `wallet/${recorded.stream}`, currency };
  }
  return null;
}

/**
 * The currencies learned from the events read so far, for a reader that sees them in the log's
 * order (the supervision feed): each table's and each wallet's, kept while the process runs.
 */
export class CurrencyBook {
  private readonly known = new Map<CurrencyScope, string>();

  /** Learns what the event fixes; the first currency of a scope stands. */
  learn(recorded: RecordedEvent): void {
    const fixed = currencyFixedBy(recorded);
    if (fixed !== null && !this.known.has(fixed.scope)) this.known.set(fixed.scope, fixed.currency);
  }

  /** The currency of the event's money: named by it, else its scope's, else null. */
  currencyOf(recorded: RecordedEvent): string | null {
    const named = currencyNamedBy(recorded);
    if (named !== null) return named;
    const scope = currencyScopeOf(recorded);
    return scope === null ? null : (this.known.get(scope) ?? null);
  }
}
