import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  eventTypesOf,
  messageParked,
  operatorWalletEventSchema,
  type OperatorWalletEvent,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent, StoredDocument } from '@croupier/eventstore';

/**
 * Where a call stands, as Croupier's records say:
 * - `sent`: recorded as requested, no answer recorded yet (in flight, or owed while the wallet is
 *   away);
 * - `confirmed`: the wallet applied it (a debit: by its answer or its status);
 * - `refused`: a debit the wallet said no to (nothing moved; `code` says why);
 * - `unresolved`: a debit that got no answer and no status, given up: its rollback (`rollbackKey`)
 *   gives it back if the wallet took it;
 * - `rolled-back`: a confirmed debit whose stake was given back (void, clear, orphaned debit): its
 *   rollback (`rollbackKey`) is a call of its own, with its own state;
 * - `parked`: a credit or rollback the wallet refused, set aside until an operator retries it
 *   (ADR 0035; `code` says why); `confirmed` once a retry is applied.
 */
export type OperatorCallState =
  'sent' | 'confirmed' | 'refused' | 'unresolved' | 'rolled-back' | 'parked';

type Requested<T extends OperatorWalletEvent['type']> = Extract<
  OperatorWalletEvent,
  { type: T }
>['data'];

/** One call Croupier made (or owes) to the operator's wallet, and its outcome. */
export interface OperatorCall {
  /** The idempotency key it is sent under: the wallet's records name the call by it. */
  readonly key: string;
  readonly call: 'debit' | 'credit' | 'rollback';
  readonly playerId: string;
  readonly roundId: string;
  readonly betId: string;
  /** Minor units: a debit's stake, a credit's payout (negative: an adjustment taking back), a rollback's stake. */
  readonly amount: number;
  readonly currency: string;
  readonly state: OperatorCallState;
  /** When Croupier recorded the request (before sending it). */
  readonly requestedAt: string;
  /** When its state last changed after the request; null while `sent`. */
  readonly resolvedAt: string | null;
  /** The wallet's own id of the movement, once confirmed. */
  readonly transactionId: string | null;
  /** Why it was refused, given up or parked: the wallet's code, or `UNAVAILABLE`. */
  readonly code: string | null;
  /** A debit's attempt for its bet (a bet retried after a failed debit asks under a new key). */
  readonly attempt: number | null;
  /** A credit's kind: the bet's payout, or a resettlement's difference. */
  readonly kind: 'settlement' | 'adjustment' | null;
  /** The settlement record (or resettlement) a credit pays. */
  readonly settlementId: string | null;
  /** Why a rollback was asked for. */
  readonly reason: Requested<'OperatorRollbackRequested'>['reason'] | null;
  /** A rollback's debit. */
  readonly debitKey: string | null;
  /** A debit's rollback, once one was asked for. */
  readonly rollbackKey: string | null;
}

/** Where a page starts: after the call at `at` (ms) whose key's hex is `hex`; `0`: the start. */
export interface OperatorCallCursor {
  readonly at: number;
  readonly hex: string | null;
}

export const OPERATOR_CALL_CURSOR_PATTERN = /^(0|\d{1,15}\.[0-9a-f]{32})$/;

export function parseOperatorCallCursor(text: string): OperatorCallCursor {
  if (!OPERATOR_CALL_CURSOR_PATTERN.test(text))
    throw new Error(`cursor "${text}": must be 0 or a page's "next"`);
  if (text === '0') return { at: 0, hex: null };
  const [at, hex] = text.split('.');
  return { at: Number(at), hex: hex! };
}

const cursorText = (cursor: OperatorCallCursor): string =>
  cursor.hex === null ? '0' : `${cursor.at}.${cursor.hex}`;

export interface OperatorCallQuery {
  readonly playerId?: string | undefined;
  /** Requested at or after (ms since the epoch). */
  readonly from?: number | undefined;
  /** Requested before (ms since the epoch). */
  readonly to?: number | undefined;
  readonly after: OperatorCallCursor;
  readonly limit: number;
}

export interface OperatorCallPage {
  /** The cursor the page was read after. */
  readonly after: string;
  /** Pass as `after` for the next page (the last call listed; `after` again when none). */
  readonly next: string;
  /** True when the page stopped at the limit: more calls may follow now. */
  readonly more: boolean;
  readonly calls: OperatorCall[];
}

const ALL = 'all';
const ofPlayer = (playerId: string) => `player/${playerId}`;
const ofRound = (roundId: string) => `round/${roundId}`;
/** A key without its dashes: hex digits only, so keys order alike in PostgreSQL and in memory. */
const hexOf = (key: string) => key.replaceAll('-', '').toLowerCase();
const callKeys = (playerId: string, key: string) => [
  `${ALL}/${hexOf(key)}`,
  `${ofPlayer(playerId)}/${hexOf(key)}`,
];
const roundKey = (roundId: string, playerId: string) => `${ofRound(roundId)}/${playerId}`;

const OPERATOR_EVENT_TYPES = new Set<string>(eventTypesOf(operatorWalletEventSchema));
const OUTBOX = 'operator-wallet-outbox';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A call parked by the operator-wallet outbox, whose message id is the call's key. */
function parkedCallOf(
  event: RecordedEvent,
): { playerId: string; key: string; code: string } | null {
  if (event.type !== 'MessageParked') return null;
  const parked = messageParked.shape.data.safeParse(event.data);
  if (!parked.success || parked.data.consumer !== OUTBOX || parked.data.playerId === null)
    return null;
  if (!UUID.test(parked.data.messageId)) return null;
  return { playerId: parked.data.playerId, key: parked.data.messageId, code: parked.data.code };
}

/**
 * Reconciliation in seamless mode (docs/wallet-integration.md): every call Croupier made to the
 * operator's wallet, debit, credit and rollback, with its key, amount, round, bet and where it
 * stands, as a durable read model (ADR 0023). One document per call, listed by the time its
 * request was recorded in partition `all` and again under its player; and, per round, the
 * players with calls for it (a player whose only debit was refused or given up has no bet on the
 * round, and the round audit must still find them). A page is one read of the documents' index,
 * whatever the length of the log.
 */
export class OperatorCallLedger implements DurableProjection<OperatorCall | { playerId: string }> {
  readonly name = 'operator-wallet-ledger';
  readonly handles = [...eventTypesOf(operatorWalletEventSchema), 'MessageParked' as const];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    const parked = parkedCallOf(event);
    if (parked !== null) return callKeys(parked.playerId, parked.key);
    if (!OPERATOR_EVENT_TYPES.has(event.type)) return [];
    const data = event.data as {
      playerId: string;
      key: string;
      roundId?: string;
      debitKey?: string;
    };
    const keys = callKeys(data.playerId, data.key);
    if (data.roundId !== undefined) keys.push(roundKey(data.roundId, data.playerId));
    // A rollback marks its debit rolled back.
    if (data.debitKey !== undefined) keys.push(...callKeys(data.playerId, data.debitKey));
    return keys;
  }

  apply(event: RecordedEvent, docs: DocumentSet<OperatorCall | { playerId: string }>): void {
    const at = event.recordedAt.toISOString();
    const save = (call: OperatorCall) => {
      const sort = BigInt(Date.parse(call.requestedAt));
      const [all, player] = callKeys(call.playerId, call.key);
      docs.put(all!, call, { partition: ALL, sort });
      docs.put(player!, call, { partition: ofPlayer(call.playerId), sort });
    };
    const change = (playerId: string, key: string, patch: Partial<OperatorCall>) => {
      const call = docs.get(callKeys(playerId, key)[0]!) as OperatorCall | undefined;
      // A call whose request is not in the log (never recorded): nothing to change.
      if (call !== undefined) save({ ...call, ...patch });
    };
    const parked = parkedCallOf(event);
    if (parked !== null) {
      const call = docs.get(callKeys(parked.playerId, parked.key)[0]!) as OperatorCall | undefined;
      if (call !== undefined && call.state === 'sent')
        save({ ...call, state: 'parked', code: parked.code, resolvedAt: at });
      return;
    }
    if (!OPERATOR_EVENT_TYPES.has(event.type)) return;
    const parsed = operatorWalletEventSchema.parse({ type: event.type, data: event.data });
    const requested = (
      data: { playerId: string; roundId: string; betId: string; amount: number; key: string },
      fields: Pick<OperatorCall, 'call' | 'currency'> & Partial<OperatorCall>,
    ) => {
      docs.put(
        roundKey(data.roundId, data.playerId),
        { playerId: data.playerId },
        { partition: ofRound(data.roundId), sort: null },
      );
      save({
        key: data.key,
        playerId: data.playerId,
        roundId: data.roundId,
        betId: data.betId,
        amount: data.amount,
        state: 'sent',
        requestedAt: at,
        resolvedAt: null,
        transactionId: null,
        code: null,
        attempt: null,
        kind: null,
        settlementId: null,
        reason: null,
        debitKey: null,
        rollbackKey: null,
        ...fields,
      });
    };
    switch (parsed.type) {
      case 'OperatorDebitRequested':
        requested(parsed.data, {
          call: 'debit',
          currency: parsed.data.currency,
          attempt: parsed.data.attempt,
        });
        return;
      case 'OperatorCreditRequested':
        requested(parsed.data, {
          call: 'credit',
          currency: parsed.data.currency,
          kind: parsed.data.kind,
          settlementId: parsed.data.settlementId,
        });
        return;
      case 'OperatorRollbackRequested': {
        const { debitKey, reason, key, playerId } = parsed.data;
        requested(parsed.data, {
          call: 'rollback',
          currency: parsed.data.currency,
          reason,
          debitKey,
        });
        const debit = docs.get(callKeys(playerId, debitKey)[0]!) as OperatorCall | undefined;
        if (debit !== undefined)
          change(playerId, debitKey, {
            rollbackKey: key,
            // A given-up debit stays `unresolved`: its rollback's own state says whether the
            // wallet has acknowledged it.
            ...(debit.state === 'confirmed' ? { state: 'rolled-back', resolvedAt: at } : {}),
          });
        return;
      }
      case 'OperatorDebitConfirmed':
        change(parsed.data.playerId, parsed.data.key, {
          state: 'confirmed',
          transactionId: parsed.data.transactionId,
          resolvedAt: at,
        });
        return;
      case 'OperatorDebitFailed':
        change(parsed.data.playerId, parsed.data.key, {
          state: parsed.data.outcome,
          code: parsed.data.code,
          resolvedAt: at,
        });
        return;
      case 'OperatorCallDelivered':
        change(parsed.data.playerId, parsed.data.key, {
          state: 'confirmed',
          transactionId: parsed.data.transactionId,
          resolvedAt: at,
        });
        return;
    }
  }

  /**
   * The calls requested in a period (of a player), in the order their requests were recorded,
   * after a cursor, at most `limit`.
   */
  async page(query: OperatorCallQuery): Promise<OperatorCallPage> {
    const { after, limit } = query;
    const partition = query.playerId === undefined ? ALL : ofPlayer(query.playerId);
    const isAfter = (row: StoredDocument) => {
      const sort = Number(row.sort);
      if (sort !== after.at) return sort > after.at;
      return after.hex === null || row.key.slice(partition.length + 1) > after.hex;
    };
    // Calls recorded in the cursor's millisecond come first in the index and are skipped: read
    // more until the page is full past them or the partition ends.
    for (let fetch = limit + 1; ; fetch *= 2) {
      const rows = await this.storage.list(this.name, {
        partition,
        sortAtLeast: BigInt(Math.max(after.at, query.from ?? 0)),
        ...(query.to === undefined ? {} : { sortAtMost: BigInt(query.to - 1) }),
        order: 'asc',
        limit: fetch,
      });
      const past = rows.filter(isAfter);
      if (past.length <= limit && rows.length === fetch) continue;
      const listed = past.slice(0, limit);
      const last = listed.at(-1);
      return {
        after: cursorText(after),
        next:
          last === undefined
            ? cursorText(after)
            : `${Number(last.sort)}.${last.key.slice(partition.length + 1)}`,
        more: past.length > limit,
        calls: listed.map((row) => row.doc as OperatorCall),
      };
    }
  }

  /** The players with calls for a round, whether or not a bet of theirs stands on it. */
  async playersOf(roundId: string): Promise<string[]> {
    const rows = await this.storage.list(this.name, { partition: ofRound(roundId) });
    return rows.map((row) => (row.doc as { playerId: string }).playerId);
  }
}
