/**
 * Group commit for the SQL stores: appends that arrive while the store's previous append is in
 * flight go to the database together, as one call of `append_groups` (one transaction, one
 * round trip, one WAL flush), each with its own expected version and its own outcome. See
 * docs/adr/0021-group-commit-and-the-chain-hashed-once.md.
 */
import { resolveStoredIds } from '../append-rules.js';
import { DuplicateEventIdError, WrongExpectedVersionError } from '../errors.js';
import { GENESIS_HASH, sha256Hex } from '../hash-chain.js';
import type { AppendResult, ExpectedVersion, StreamState } from '../port.js';
import { encodePosition } from '../position.js';
import type { EncodedEvent } from '../validation.js';
import { int8, int8Param, type SqlExecutor } from './driver.js';
import type { Statements } from './statements.js';

/** What an append that wrote put in the log, for the wake-up. */
function batchOf(
  pending: PendingAppend,
  outcome: { readonly result: AppendResult },
): AppendedBatch {
  return {
    stream: pending.stream,
    types: pending.encoded.map((event) => event.type),
    position: outcome.result.position,
  };
}

/** Sentinels of append_groups' p_expected. */
const EXPECTED_CODES: Record<Exclude<ExpectedVersion, bigint>, bigint> = {
  'no-stream': -1n,
  any: -2n,
  exists: -3n,
};

export interface GroupAppendTuning {
  /**
   * Send concurrent appends as one transaction. Default true; false sends each append as its own
   * transaction (still through append_groups, as a group of one).
   */
  readonly groupCommit: boolean;
  /**
   * Groups in flight at once, each on its own connection. Default 2: while one group waits for
   * its commit (the WAL flush), the next is sent.
   */
  readonly maxGroupsInFlight: number;
  /** Most appends in one group. Default 64. */
  readonly maxGroupAppends: number;
  /** Most events in one group (a larger single append still goes alone). Default 1,000. */
  readonly maxGroupEvents: number;
  /** Stream heads remembered to hash on the client (revision and last hash). Default 10,000. */
  readonly headCacheSize: number;
}

export const DEFAULT_GROUP_APPEND_TUNING: GroupAppendTuning = {
  groupCommit: true,
  maxGroupsInFlight: 2,
  maxGroupAppends: 64,
  maxGroupEvents: 1_000,
  headCacheSize: 10_000,
};

/** One append, validated and encoded, waiting for its group. */
export interface PendingAppend {
  readonly stream: string;
  readonly expected: ExpectedVersion;
  readonly encoded: readonly EncodedEvent[];
}

/** What one committed append wrote, as the in-process wake-up tells subscribers (ADR 0022). */
export interface AppendedBatch {
  readonly stream: string;
  readonly types: readonly string[];
  /** The position of its last event. */
  readonly position: bigint;
}

interface QueuedAppend extends PendingAppend {
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

interface GroupRow {
  out_item: number;
  out_status: 'ok' | 'retry' | 'conflict' | 'duplicate' | 'stale';
  out_revision: unknown;
  out_transaction_id: string | null;
  out_sequence: unknown;
  out_last_hash: string | null;
  out_detail: string | null;
}

interface EventLocationRow {
  event_id: string;
  stream_name: string;
  stream_revision: unknown;
  transaction_id: string;
  sequence: unknown;
}

interface DatabaseError {
  code?: string;
  detail?: string;
  constraint?: string;
}

type Outcome =
  | { readonly kind: 'done'; readonly result: AppendResult; readonly wrote: boolean }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'stale' };

export interface GroupAppenderInit {
  readonly executor: SqlExecutor;
  readonly sql: Statements;
  readonly tuning: GroupAppendTuning;
  /**
   * Called once per committed transaction that wrote events (a group or a single append), with
   * what each of its appends wrote.
   */
  readonly onAppended: (written: readonly AppendedBatch[]) => void;
}

/**
 * Queues appends and sends them in groups, at most `maxGroupsInFlight` at once. A lone append
 * (nothing in flight) is sent at once: grouping never waits for company.
 */
export class GroupAppender {
  readonly #executor: SqlExecutor;
  readonly #sql: Statements;
  readonly #tuning: GroupAppendTuning;
  readonly #onAppended: (written: readonly AppendedBatch[]) => void;
  /** stream -> head after this store's last append to it; a hint, checked by the database. */
  readonly #heads = new Map<string, { readonly revision: bigint; readonly hash: string }>();
  #queue: QueuedAppend[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(init: GroupAppenderInit) {
    this.#executor = init.executor;
    this.#sql = init.sql;
    this.#tuning = init.tuning;
    this.#onAppended = init.onAppended;
  }

  append(pending: PendingAppend): Promise<AppendResult> {
    if (!this.#tuning.groupCommit) return this.#appendAlone(pending);
    return new Promise<AppendResult>((resolve, reject) => {
      this.#queue.push({ ...pending, resolve, reject });
      this.#pump();
    });
  }

  /** Resolves when every queued append has been answered. */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #pump(): void {
    while (this.#inFlight.size < this.#tuning.maxGroupsInFlight && this.#queue.length > 0) {
      const group = this.#takeGroup();
      const running: Promise<void> = this.#runGroup(group).finally(() => {
        this.#inFlight.delete(running);
        this.#pump();
      });
      this.#inFlight.add(running);
    }
  }

  #takeGroup(): QueuedAppend[] {
    const { maxGroupAppends, maxGroupEvents } = this.#tuning;
    let events = 0;
    let taken = 0;
    for (const item of this.#queue) {
      if (taken >= maxGroupAppends) break;
      if (taken > 0 && events + item.encoded.length > maxGroupEvents) break;
      events += item.encoded.length;
      taken += 1;
    }
    const group = this.#queue.slice(0, taken);
    this.#queue = this.#queue.slice(taken);
    return group;
  }

  /** Never rejects: every item of the group is resolved or rejected on its own. */
  async #runGroup(group: readonly QueuedAppend[]): Promise<void> {
    if (group.length === 1) {
      const [item] = group as [QueuedAppend];
      await this.#appendAlone(item).then(item.resolve, item.reject);
      return;
    }
    // Heads are locked in stream-name order: two groups never wait for each other's heads in a cycle.
    const ordered = [...group].sort((a, b) =>
      a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0,
    );
    let rows: GroupRow[];
    try {
      rows = await this.#sendChecked(ordered);
    } catch (error) {
      if (!isStatementError(error)) {
        for (const item of ordered) item.reject(error);
        return;
      }
      // Something one item caused (an id inserted by a transaction still running when the group
      // looked, bad data, a deadlock): nothing of the group was written; each item goes alone,
      // with its own answer.
      for (const item of ordered) await this.#appendAlone(item).then(item.resolve, item.reject);
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.#outcomes(ordered, rows);
    } catch (error) {
      // An answer that cannot be read (it cannot happen with append_groups as written): no
      // caller may be left waiting.
      for (const item of ordered) item.reject(error);
      return;
    }
    const written: AppendedBatch[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.kind === 'done' && outcome.wrote) written.push(batchOf(ordered[index]!, outcome));
    });
    if (written.length > 0) this.#onAppended(written);
    const stale: QueuedAppend[] = [];
    outcomes.forEach((outcome, index) => {
      const item = ordered[index]!;
      if (outcome.kind === 'done') item.resolve(outcome.result);
      else if (outcome.kind === 'failed') item.reject(outcome.error);
      else stale.push(item);
    });
    for (const item of stale) await this.#appendAlone(item).then(item.resolve, item.reject);
  }

  /** One append as its own transaction: a group of one. */
  async #appendAlone(pending: PendingAppend): Promise<AppendResult> {
    for (let attempt = 1; ; attempt += 1) {
      let rows: GroupRow[];
      try {
        rows = await this.#sendChecked([pending]);
      } catch (error) {
        if (isDuplicateIdViolation(error)) return this.#resolveDuplicate(pending);
        throw error;
      }
      const [outcome] = this.#outcomes([pending], rows) as [Outcome];
      if (outcome.kind === 'failed') throw outcome.error;
      if (outcome.kind === 'done') {
        if (outcome.wrote) this.#onAppended([batchOf(pending, outcome)]);
        return outcome.result;
      }
      // stale: the head cache was forgotten for this stream; the database hashes this time.
      if (attempt > 1) throw new Error(`append_groups: ${pending.stream} stayed stale`);
    }
  }

  /**
   * Sends without looking up the ids first (the unique index catches a stored one); when it
   * does, sends again with the lookup, so each item gets its own 'retry' or 'duplicate'.
   */
  async #sendChecked(items: readonly PendingAppend[]): Promise<GroupRow[]> {
    try {
      return await this.#send(items, false);
    } catch (error) {
      if (!isDuplicateIdViolation(error)) throw error;
      return this.#send(items, true);
    }
  }

  #send(items: readonly PendingAppend[], checkIds: boolean): Promise<GroupRow[]> {
    const streams: string[] = [];
    const expected: string[] = [];
    const counts: number[] = [];
    const prevs: (string | null)[] = [];
    const lasts: (string | null)[] = [];
    const ids: string[] = [];
    const types: string[] = [];
    const data: string[] = [];
    const metadata: string[] = [];
    const contents: (string | null)[] = [];
    for (const item of items) {
      const { stream, encoded } = item;
      streams.push(stream);
      expected.push(
        int8Param(
          typeof item.expected === 'bigint' ? item.expected : EXPECTED_CODES[item.expected],
        ),
      );
      counts.push(encoded.length);
      const prev = this.#knownHead(item);
      prevs.push(prev);
      let hash = prev;
      for (const event of encoded) {
        ids.push(event.id);
        types.push(event.type);
        data.push(event.dataJson);
        if (hash === null) {
          metadata.push(event.metadataJson);
          contents.push(event.chainContent);
        } else {
          const next = sha256Hex(hash + event.chainContent);
          metadata.push(withChain(event.metadataJson, hash, next));
          contents.push(null);
          hash = next;
        }
      }
      lasts.push(hash);
    }
    return this.#executor
      .query<GroupRow>(this.#sql.appendGroup, [
        streams,
        expected,
        counts,
        prevs,
        lasts,
        ids,
        types,
        data,
        metadata,
        contents,
        checkIds,
      ])
      .then(({ rows }) => rows);
  }

  /**
   * The head hash this append chains from, when the client knows it: the genesis hash for
   * 'no-stream', the remembered head for an exact version it matches. Otherwise null and the
   * database hashes from the head it locks.
   */
  #knownHead({ stream, expected }: PendingAppend): string | null {
    if (expected === 'no-stream') return GENESIS_HASH;
    if (typeof expected !== 'bigint') return null;
    const head = this.#heads.get(stream);
    return head !== undefined && head.revision === expected ? head.hash : null;
  }

  #outcomes(items: readonly PendingAppend[], rows: readonly GroupRow[]): Outcome[] {
    const outcomes = new Array<Outcome | undefined>(items.length);
    for (const row of rows) {
      const index = row.out_item - 1;
      const item = items[index];
      if (item !== undefined && outcomes[index] === undefined)
        outcomes[index] = this.#outcome(item, row);
    }
    return outcomes.map(
      (outcome, index) =>
        outcome ?? {
          kind: 'failed',
          error: new Error(`append_groups gave no answer for ${items[index]!.stream}`),
        },
    );
  }

  #outcome(item: PendingAppend, row: GroupRow): Outcome {
    switch (row.out_status) {
      case 'ok': {
        const revision = int8(row.out_revision);
        this.#remember(item.stream, revision, row.out_last_hash!);
        return { kind: 'done', wrote: true, result: this.#result(row, revision, false) };
      }
      case 'retry':
        return {
          kind: 'done',
          wrote: false,
          result: this.#result(row, int8(row.out_revision), true),
        };
      case 'conflict': {
        this.#heads.delete(item.stream);
        const actual: StreamState =
          row.out_detail === null || row.out_detail === 'no-stream'
            ? 'no-stream'
            : BigInt(row.out_detail);
        return {
          kind: 'failed',
          error: new WrongExpectedVersionError(item.stream, item.expected, actual),
        };
      }
      case 'duplicate': {
        const where = JSON.parse(row.out_detail ?? '{}') as {
          id: string;
          stream: string;
          revision: number | string;
        };
        return {
          kind: 'failed',
          error: new DuplicateEventIdError(item.stream, where.id, {
            stream: where.stream,
            revision: BigInt(where.revision),
          }),
        };
      }
      case 'stale':
        this.#heads.delete(item.stream);
        return { kind: 'stale' };
      default:
        return {
          kind: 'failed',
          error: new Error(`append_groups: unknown status ${String(row.out_status)}`),
        };
    }
  }

  #result(row: GroupRow, revision: bigint, idempotent: boolean): AppendResult {
    return {
      revision,
      position: encodePosition(BigInt(row.out_transaction_id!), int8(row.out_sequence)),
      idempotent,
    };
  }

  /** Keeps the newest head seen per stream, the least recently appended forgotten first. */
  #remember(stream: string, revision: bigint, hash: string): void {
    const known = this.#heads.get(stream);
    if (known !== undefined && known.revision >= revision) return;
    this.#heads.delete(stream);
    this.#heads.set(stream, { revision, hash });
    if (this.#heads.size > this.#tuning.headCacheSize) {
      const oldest = this.#heads.keys().next();
      if (!oldest.done) this.#heads.delete(oldest.value);
    }
  }

  /**
   * An id of the batch was inserted by another transaction after append_groups looked (the
   * unique index fired): a retry gets the original result, anything else is a duplicate.
   */
  async #resolveDuplicate({ stream, encoded }: PendingAppend): Promise<AppendResult> {
    const { rows } = await this.#executor.query<EventLocationRow>(this.#sql.findEvents, [
      encoded.map((event) => event.id),
    ]);
    const byId = new Map(
      rows.map((row) => [
        row.event_id,
        {
          stream: row.stream_name,
          revision: int8(row.stream_revision),
          position: encodePosition(BigInt(row.transaction_id), int8(row.sequence)),
        },
      ]),
    );
    return resolveStoredIds(stream, encoded, (id) => byId.get(id));
  }
}

/** Canonical metadata JSON with the chain fields added (jsonb does not keep key order). */
function withChain(metadataJson: string, prevHash: string, hash: string): string {
  const chain = `"hash":"${hash}","prevHash":"${prevHash}"`;
  return metadataJson === '{}' ? `{${chain}}` : `${metadataJson.slice(0, -1)},${chain}}`;
}

function isDuplicateIdViolation(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as DatabaseError;
  return code === '23505' && constraint === 'events_event_id_key';
}

/**
 * An error the statement raised, that one item may have caused: data (22), integrity (23),
 * rollback (40: deadlock, serialization). Not a lost connection or a timeout, which every item
 * would meet again.
 */
function isStatementError(error: unknown): boolean {
  const { code } = (error ?? {}) as DatabaseError;
  return typeof code === 'string' && /^(22|23|40)[0-9A-Z]{3}$/.test(code);
}
