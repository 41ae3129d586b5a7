import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  currencyFixedBy,
  currencyNamedBy,
  currencyScopeOf,
  CUT_CARD_WATCH_TYPES,
  cutCardWatchKeyOf,
  cutCardWatchStep,
  SIGNIFICANT_EVENT_CATEGORIES,
  significantEventOf,
  tableOfStream,
  type SignificantEvent,
  type WatchedCutCard,
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
/** A scanner shoe whose cut card is not reported yet (cut-card-watch.ts, ADR 0043). */
const cutCardKeyOf = (shoeId: string) => `cut-card/${shoeId}`;
interface CutCardDoc {
  readonly cutCard: WatchedCutCard;
}
type IndexDoc = SignificantEvent | CurrencyDoc | CutCardDoc;

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
  readonly handles = [
    ...(Object.keys(SIGNIFICANT_EVENT_CATEGORIES) as (keyof typeof SIGNIFICANT_EVENT_CATEGORIES)[]),
    // The shoe events the cut-card watch derives its alerts from (ADR 0043).
    ...CUT_CARD_WATCH_TYPES.filter((type) => !Object.hasOwn(SIGNIFICANT_EVENT_CATEGORIES, type)),
  ];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    const keys: string[] = [];
    const fixed = currencyFixedBy(event);
    if (fixed !== null) keys.push(currencyKeyOf(fixed.scope));
    const watchedShoe = cutCardWatchKeyOf(event);
    if (watchedShoe !== null) {
      keys.push(cutCardKeyOf(watchedShoe));
      // A card drawn may raise the shoe's alert: listed like any significant event.
      if (event.type === 'CardsDrawn') {
        keys.push(keyOf(ALL, event));
        const tableId = tableOfStream(event.stream);
        if (tableId !== null) keys.push(keyOf(ofTable(tableId), event));
      }
    }
    const significant = significantEventOf(event);
    if (significant === null) return keys;
    const scope = currencyNamedBy(event) === null ? currencyScopeOf(event) : null;
    if (scope !== null && scope !== fixed?.scope) keys.push(currencyKeyOf(scope));
    keys.push(keyOf(ALL, event));
    if (significant.tableId !== null) keys.push(keyOf(ofTable(significant.tableId), event));
    return keys;
  }

  apply(event: RecordedEvent, docs: DocumentSet<IndexDoc>): void {
    this.watchCutCard(event, docs);
    const fixed = currencyFixedBy(event);
    // The first currency of a table or a wallet stands (a wallet holds one currency).
    if (fixed !== null && docs.get(currencyKeyOf(fixed.scope)) === undefined)
      docs.put(currencyKeyOf(fixed.scope), { currency: fixed.currency });
    // A shoe event read for the cut-card watch alone names no currency document.
    if (significantEventOf(event) === null) return;
    const scope = currencyNamedBy(event) === null ? currencyScopeOf(event) : null;
    const known = scope === null ? undefined : docs.get(currencyKeyOf(scope));
    const currency = known !== undefined && 'currency' in known ? known.currency : null;
    const significant = significantEventOf(event, currency);
    if (significant === null) return;
    this.listed(event, significant, docs);
  }

  /** The cut-card watch's step for a shoe event, and the alert it raises listed (ADR 0043). */
  private watchCutCard(event: RecordedEvent, docs: DocumentSet<IndexDoc>): void {
    const shoeId = cutCardWatchKeyOf(event);
    if (shoeId === null) return;
    const key = cutCardKeyOf(shoeId);
    const found = docs.get(key);
    const before = found !== undefined && 'cutCard' in found ? found.cutCard : undefined;
    const { watched, alert } = cutCardWatchStep(before, event);
    if (watched === undefined) {
      if (before !== undefined) docs.delete(key);
    } else if (watched !== before) docs.put(key, { cutCard: watched });
    if (alert !== null) this.listed(event, alert, docs);
  }

  /** Lists a significant event by its time, and again under its table. */
  private listed(event: RecordedEvent, significant: SignificantEvent, docs: DocumentSet<IndexDoc>) {
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
