import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  currencyFixedBy,
  currencyNamedBy,
  currencyScopeOf,
  SIGNIFICANT_EVENT_CATEGORIES,
  significantEventOf,
  type SignificantEvent,
} from '@croupier/audit';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

/** Every significant event is listed here; those of a table also under the table. */
const ALL = 'all';
const ofTable = (tableId: string) => `table/${tableId}`;
/** The position as 40 digits: within one millisecond, keys sort in the log's order. */
const keyOf = (partition: string, event: RecordedEvent) =>
  `${partition}/${event.position.toString().padStart(40, '0')}`;
/** A table's or a wallet's currency, kept so the summaries of its events say their money in it. */
const currencyKeyOf = (scope: string) => `currency/${scope}`;
interface CurrencyDoc {
  readonly currency: string;
}
type IndexDoc = SignificantEvent | CurrencyDoc;

export interface SignificantEventQuery {
  /** Inclusive bounds, in ms since the epoch. */
  readonly from?: number;
  readonly to?: number;
  readonly tableId?: string;
  readonly limit: number;
}

/**
 * The significant events (GLI-19) as a durable read model (docs/adr/0023): one document per
 * event, listed by time, in partition `all` and, for an event of a table, again in
 * `table/<tableId>`. A query by time and table is one read of the documents' index that stops at
 * its limit, whatever the length of the log; nothing reads the log for it.
 */
export class SignificantEventIndex implements DurableProjection<IndexDoc> {
  readonly name = 'significant-events';
  readonly handles = Object.keys(
    SIGNIFICANT_EVENT_CATEGORIES,
  ) as (keyof typeof SIGNIFICANT_EVENT_CATEGORIES)[];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    const keys: string[] = [];
    const fixed = currencyFixedBy(event);
    if (fixed !== null) keys.push(currencyKeyOf(fixed.scope));
    const significant = significantEventOf(event);
    if (significant === null) return keys;
    const scope = currencyNamedBy(event) === null ? currencyScopeOf(event) : null;
    if (scope !== null && scope !== fixed?.scope) keys.push(currencyKeyOf(scope));
    keys.push(keyOf(ALL, event));
    if (significant.tableId !== null) keys.push(keyOf(ofTable(significant.tableId), event));
    return keys;
  }

  apply(event: RecordedEvent, docs: DocumentSet<IndexDoc>): void {
    const fixed = currencyFixedBy(event);
    // The first currency of a table or a wallet stands (a wallet holds one currency).
    if (fixed !== null && docs.get(currencyKeyOf(fixed.scope)) === undefined)
      docs.put(currencyKeyOf(fixed.scope), { currency: fixed.currency });
    const scope = currencyNamedBy(event) === null ? currencyScopeOf(event) : null;
    const known = scope === null ? undefined : docs.get(currencyKeyOf(scope));
    const currency = known !== undefined && 'currency' in known ? known.currency : null;
    const significant = significantEventOf(event, currency);
    if (significant === null) return;
    const at = Date.parse(significant.occurredAt);
    const sort = BigInt(Number.isNaN(at) ? event.recordedAt.getTime() : at);
    docs.put(keyOf(ALL, event), significant, { partition: ALL, sort });
    if (significant.tableId !== null) {
      const partition = ofTable(significant.tableId);
      docs.put(keyOf(partition, event), significant, { partition, sort });
    }
  }

  /** The events between two times (of a table), oldest first; `truncated` when more follow. */
  async list(
    query: SignificantEventQuery,
  ): Promise<{ events: SignificantEvent[]; truncated: boolean }> {
    const rows = await this.storage.list(this.name, {
      partition: query.tableId === undefined ? ALL : ofTable(query.tableId),
      ...(query.from === undefined ? {} : { sortAtLeast: BigInt(query.from) }),
      ...(query.to === undefined ? {} : { sortAtMost: BigInt(query.to) }),
      order: 'asc',
      limit: query.limit + 1,
    });
    return {
      events: rows.slice(0, query.limit).map((row) => row.doc as SignificantEvent),
      truncated: rows.length > query.limit,
    };
  }
}
