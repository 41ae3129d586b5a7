import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Filter,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { satisfiesExpectedVersion } from '../append-rules.js';
import { backoffs, Deferred, WakeSignal } from '../backoff.js';
import {
  EventStoreClosedError,
  SubscriptionOwnershipLostError,
  SubscriptionStoppedError,
  WrongExpectedVersionError,
} from '../errors.js';
import { GENESIS_HASH, sha256Hex, verifyChain } from '../hash-chain.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedVersion,
  LogHead,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamState,
  StreamVerification,
  SubscribeOptions,
  Subscription,
} from '../port.js';
import {
  matchesFilter,
  normalizeFilter,
  validateAppend,
  validateReadAllOptions,
  validateReadStreamOptions,
  validateStreamName,
  validateSubscribeOptions,
  type EncodedEvent,
  type NormalizedFilter,
} from '../validation.js';

/** How many times an `'any'`/`'exists'` append re-reads the head after losing a race. */
const MAX_APPEND_ATTEMPTS = 10;

export interface EsdbTuning {
  readonly lockRetryMs: number;
  readonly maxBackoffMs: number;
}

/** ESDB clients have returned revisions as Long, number and bigint over the years. */
function esdbBigint(value: bigint | number | string): bigint {
  return BigInt(value);
}

/**
 * The one place ESDB values become the port's: revisions are already bigint in the 6.x client,
 * positions are the commit position (ESDB >= 20 writes each event of an append as its own
 * committed record, so commit positions are distinct and increasing in $all order).
 */
function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson) return null;
  const position = event.position?.commit ?? resolved.commitPosition ?? -1n;
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    data: event.data,
    metadata: (event.metadata ?? {}) as Record<string, unknown>,
    revision: esdbBigint(event.revision),
    position: esdbBigint(position),
    recordedAt: event.created,
  };
}

function isSystem(event: RecordedEvent): boolean {
  return event.stream.startsWith('$') || event.type.startsWith('$');
}

function asPosition(position: bigint): Position {
  return { commit: position, prepare: position };
}

/**
 * The EventStore on EventStoreDB/KurrentDB. The hash chain is computed here: read the stream's
 * last event, hash on from its `hash`, append with that exact revision (so the chain cannot
 * fork); an `'any'` or `'exists'` caller that loses a race re-reads and tries again.
 *
 * Limits against the SQL stores: ESDB indexes no event ids across streams, so an id stored in
 * another stream is not detected (idempotent retries in the same stream are); see the README.
 */
export class EsdbEventStore implements EventStore {
  readonly #client: EventStoreDBClient;
  readonly #tuning: EsdbTuning;
  readonly #subscriptions = new Set<EsdbSubscription>();
  #closed = false;

  private constructor(client: EventStoreDBClient, tuning: EsdbTuning) {
    this.#client = client;
    this.#tuning = tuning;
  }

  /** Connects (lazily: the client dials on first use) to `esdb://host:2113?tls=false` style URLs. */
  static connect(connectionString: string, tuning?: Partial<EsdbTuning>): Promise<EsdbEventStore> {
    const client = EventStoreDBClient.connectionString(connectionString);
    return Promise.resolve(
      new EsdbEventStore(client, { lockRetryMs: 1_000, maxBackoffMs: 5_000, ...tuning }),
    );
  }

  async append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    this.#assertOpen();
    const { expected, encoded } = validateAppend(stream, events, options);
    for (let attempt = 1; ; attempt += 1) {
      // The tail gives the head (revision and hash) and, for 'any'/'exists', shows an immediate
      // retry; an exact or 'no-stream' retry can only show as a version mismatch.
      const tail = await this.#readStream(stream, {
        direction: 'backwards',
        limit: encoded.length,
      });
      const last = tail[0];
      const actual: StreamState = last ? last.revision : 'no-stream';
      if (!satisfiesExpectedVersion(expected, actual)) {
        const retry = await this.#idempotentResult(stream, encoded, expected, actual);
        if (retry) return retry;
        throw new WrongExpectedVersionError(stream, expected, actual);
      }
      const retry = sameBatch([...tail].reverse(), encoded);
      if (retry) return retry;
      let prevHash = last ? String(last.metadata['hash']) : GENESIS_HASH;
      const data = encoded.map((event) => {
        const metadata = JSON.parse(event.metadataJson) as Record<string, unknown>;
        // The same bytes the SQL stores hash: prevHash followed by the canonical content.
        const hash = sha256Hex(prevHash + event.chainContent);
        const stored = jsonEvent({
          id: event.id,
          type: event.type,
          data: JSON.parse(event.dataJson) as Record<string, unknown>,
          metadata: { ...metadata, prevHash, hash },
        });
        prevHash = hash;
        return stored;
      });
      const expectedRevision: AppendExpectedRevision = actual === 'no-stream' ? NO_STREAM : actual;
      try {
        const result = await this.#client.appendToStream(stream, data, { expectedRevision });
        return {
          revision: esdbBigint(result.nextExpectedRevision),
          position: esdbBigint(result.position?.commit ?? -1n),
          idempotent: false,
        };
      } catch (error) {
        if (!(error instanceof EsdbWrongExpectedVersionError)) throw error;
        const racing = expected === 'any' || (expected === 'exists' && actual !== 'no-stream');
        if (!racing || attempt >= MAX_APPEND_ATTEMPTS) {
          const again = await this.#idempotentResult(stream, encoded, expected, 'unknown');
          if (again) return again;
          const current = error.actualVersion;
          throw new WrongExpectedVersionError(
            stream,
            expected,
            typeof current === 'bigint' ? current : 'no-stream',
          );
        }
      }
    }
  }

  /**
   * An append whose ids the stream already holds at consecutive revisions is a no-op. Looks where
   * the original would be: after the expected revision, at the start for 'no-stream', and at the
   * stream's tail otherwise (an immediate retry).
   */
  async #idempotentResult(
    stream: string,
    encoded: readonly EncodedEvent[],
    expected: ExpectedVersion,
    actual: StreamState | 'unknown',
  ): Promise<AppendResult | null> {
    if (actual === 'no-stream') return null;
    const count = encoded.length;
    let candidates: RecordedEvent[];
    if (typeof expected === 'bigint') {
      candidates = await this.readStream(stream, { from: expected + 1n, limit: count });
    } else if (expected === 'no-stream') {
      candidates = await this.readStream(stream, { from: 0n, limit: count });
    } else {
      candidates = (
        await this.readStream(stream, { direction: 'backwards', limit: count })
      ).reverse();
    }
    return sameBatch(candidates, encoded);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    validateStreamName(stream);
    return this.#readStream(stream, options);
  }

  async #readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const { from, direction, limit } = validateReadStreamOptions(options);
    const events: RecordedEvent[] = [];
    try {
      const read = this.#client.readStream(stream, {
        direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
        fromRevision: from ?? (direction === 'forwards' ? START : END),
        ...(limit === null ? {} : { maxCount: limit }),
      });
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    const { after, limit, filter } = validateReadAllOptions(options);
    const events: RecordedEvent[] = [];
    const read = this.#client.readAll({
      direction: FORWARDS,
      fromPosition: after === 0n ? START : asPosition(after),
    });
    for await (const resolved of read) {
      const event = toRecordedEvent(resolved);
      if (!event || isSystem(event) || event.position <= after) continue;
      if (!matchesFilter(filter, event.stream, event.type)) continue;
      events.push(event);
      if (limit !== null && events.length >= limit) break;
    }
    return events;
  }

  /** A commit is readable at once in EventStoreDB: both heads are its newest event's position. */
  async head(): Promise<LogHead> {
    this.#assertOpen();
    let newest = 0n;
    for await (const resolved of this.#client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
    })) {
      const event = toRecordedEvent(resolved);
      if (event && !isSystem(event)) {
        newest = event.position;
        break;
      }
    }
    return { readable: newest, committed: newest };
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.#assertOpen();
    validateSubscribeOptions(options);
    const subscription = new EsdbSubscription(this.#client, this.#tuning, options, (stopped) =>
      this.#subscriptions.delete(stopped),
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  async verifyStream(stream: string): Promise<StreamVerification> {
    return verifyChain(stream, await this.readStream(stream));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#subscriptions].map((subscription) => subscription.stop()));
    await this.#client.dispose();
  }

  #assertOpen(): void {
    if (this.#closed) throw new EventStoreClosedError();
  }
}

/** The original result when `stored` (in revision order) is exactly this batch. */
function sameBatch(
  stored: readonly RecordedEvent[],
  encoded: readonly EncodedEvent[],
): AppendResult | null {
  if (stored.length !== encoded.length) return null;
  const matches = stored.every((event, index) => event.id === encoded[index]?.id);
  const last = stored.at(-1);
  return matches && last
    ? { revision: last.revision, position: last.position, idempotent: true }
    : null;
}

/** The server-side filter; an event-type list combined with a prefix is finished client-side. */
function serverFilter(filter: NormalizedFilter): Filter {
  if (filter.streamPrefix !== null) return streamNameFilter({ prefixes: [filter.streamPrefix] });
  if (filter.eventTypes !== null) {
    const escaped = filter.eventTypes.map((type) => type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return eventTypeFilter({ regex: `^(${escaped.join('|')})$` });
  }
  return excludeSystemEvents();
}

/** Lease record in `$croupier-lease-<name>`. */
interface LeaseData {
  readonly owner: string;
  readonly expiresAt: number;
}

const LEASE_TTL_MS = 10_000;

/**
 * A catch-up subscription to $all with a stored checkpoint.
 *
 * Single active consumer: a lease stream (`$croupier-lease-<name>`) rather than a persistent
 * subscription. Persistent subscriptions keep their own checkpoints, may redeliver out of order
 * (retries, parking) and, with several members, spread events across them; the port promises
 * global order to one consumer. The lease is an event with an expiry, taken and renewed by
 * appending with the expected revision (compare-and-swap), so of two standbys exactly one wins.
 * Safety does not rest on the lease's clock: every checkpoint is appended to
 * `$croupier-checkpoint-<name>` with the expected revision, so a consumer that lost the lease
 * fails its next checkpoint and stands by again.
 */
class EsdbSubscription implements Subscription {
  readonly name: string;
  readonly #client: EventStoreDBClient;
  readonly #tuning: EsdbTuning;
  readonly #options: SubscribeOptions;
  readonly #filter: NormalizedFilter;
  readonly #onStopped: (subscription: EsdbSubscription) => void;
  readonly #owner = randomUUID();
  readonly #signal = new WakeSignal();
  readonly #caughtUp = new Deferred<void>();
  readonly #done: Promise<void>;
  readonly #leaseStream: string;
  readonly #checkpointStream: string;
  #stopping = false;
  /** A method, not a field read: the flag changes while this object awaits. */
  #stopped(): boolean {
    return this.#stopping;
  }
  #position: bigint | null = null;
  #active: { unsubscribe(): Promise<void> } | null = null;
  #leaseRevision: bigint | 'no-stream' = 'no-stream';
  #leaseRenewAt = 0;

  constructor(
    client: EventStoreDBClient,
    tuning: EsdbTuning,
    options: SubscribeOptions,
    onStopped: (subscription: EsdbSubscription) => void,
  ) {
    this.#client = client;
    this.#tuning = tuning;
    this.#options = options;
    this.name = options.name;
    this.#filter = normalizeFilter(options.filter);
    this.#onStopped = onStopped;
    this.#leaseStream = `$croupier-lease-${options.name}`;
    this.#checkpointStream = `$croupier-checkpoint-${options.name}`;
    this.#done = this.#run();
  }

  position(): bigint | null {
    return this.#position;
  }

  caughtUp(): Promise<void> {
    return this.#caughtUp.promise;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#signal.wake();
    await this.#active?.unsubscribe().catch(() => undefined);
    await this.#done;
  }

  async #run(): Promise<void> {
    let failures = 0;
    try {
      while (!this.#stopped()) {
        try {
          if (!(await this.#tryLease())) {
            await this.#pause(this.#tuning.lockRetryMs);
            continue;
          }
          await this.#consume();
          failures = 0;
        } catch (error) {
          this.#report(error);
          if (this.#stopped()) break;
          failures += 1;
          await this.#pause(backoffs.exponential({ capMs: this.#tuning.maxBackoffMs })(failures));
        }
      }
    } finally {
      await this.#releaseLease().catch((error: unknown) => {
        this.#report(error);
      });
      this.#caughtUp.reject(new SubscriptionStoppedError(this.name));
      this.#onStopped(this);
    }
  }

  /** Takes or renews the lease with a CAS append; false when another live owner holds it. */
  async #tryLease(): Promise<boolean> {
    const [last] = await this.#readLast(this.#leaseStream);
    const current = last?.data as LeaseData | undefined;
    const revision: bigint | 'no-stream' = last ? last.revision : 'no-stream';
    if (current && current.owner !== this.#owner && current.expiresAt > Date.now()) return false;
    try {
      const result = await this.#client.appendToStream(
        this.#leaseStream,
        jsonEvent({
          type: 'LeaseTaken',
          data: { owner: this.#owner, expiresAt: Date.now() + LEASE_TTL_MS },
        }),
        { expectedRevision: revision === 'no-stream' ? NO_STREAM : revision },
      );
      this.#leaseRevision = result.nextExpectedRevision;
      this.#leaseRenewAt = Date.now() + LEASE_TTL_MS / 3;
      if (revision === 'no-stream') {
        await this.#client
          .setStreamMetadata(this.#leaseStream, { maxCount: 10 })
          .catch(() => undefined);
      }
      return true;
    } catch (error) {
      if (error instanceof EsdbWrongExpectedVersionError) return false;
      throw error;
    }
  }

  async #releaseLease(): Promise<void> {
    if (this.#leaseRevision === 'no-stream') return;
    const revision = this.#leaseRevision;
    this.#leaseRevision = 'no-stream';
    await this.#client.appendToStream(
      this.#leaseStream,
      jsonEvent({ type: 'LeaseReleased', data: { owner: this.#owner, expiresAt: 0 } }),
      { expectedRevision: revision },
    );
  }

  async #renewLeaseIfDue(): Promise<void> {
    if (Date.now() < this.#leaseRenewAt) return;
    if (!(await this.#tryLease())) throw new SubscriptionOwnershipLostError(this.name);
  }

  async #readLast(stream: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const read = this.#client.readStream(stream, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      });
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async #consume(): Promise<void> {
    const [stored] = await this.#readLast(this.#checkpointStream);
    let checkpointRevision: bigint | 'no-stream' = stored ? stored.revision : 'no-stream';
    let checkpoint: bigint | null = stored
      ? BigInt((stored.data as { position: string }).position)
      : null;
    if (checkpoint === null) {
      const from = this.#options.from ?? 'start';
      if (from === 'start') checkpoint = 0n;
      else if (from === 'end') {
        let end = 0n;
        for await (const resolved of this.#client.readAll({
          direction: BACKWARDS,
          fromPosition: END,
          maxCount: 1,
        })) {
          end = toRecordedEvent(resolved)?.position ?? 0n;
        }
        checkpoint = end;
      } else checkpoint = from;
      checkpointRevision = await this.#storeCheckpoint(checkpointRevision, checkpoint);
    }
    this.#position = checkpoint;
    const subscription = this.#client.subscribeToAll({
      fromPosition: checkpoint === 0n ? START : asPosition(checkpoint),
      filter: serverFilter(this.#filter),
    });
    this.#active = subscription;
    subscription.on('caughtUp', () => {
      this.#caughtUp.resolve();
    });
    try {
      // for await: the client buffers at most one readable high-water mark (back-pressure).
      for await (const resolved of subscription) {
        if (this.#stopped()) break;
        const event = toRecordedEvent(resolved);
        if (!event || isSystem(event) || event.position <= checkpoint) continue;
        if (!matchesFilter(this.#filter, event.stream, event.type)) continue;
        if (!(await this.#handle(event))) break;
        await this.#renewLeaseIfDue();
        checkpointRevision = await this.#storeCheckpoint(checkpointRevision, event.position);
        checkpoint = event.position;
        if (this.#stopped()) break;
      }
    } finally {
      this.#active = null;
      await subscription.unsubscribe().catch(() => undefined);
    }
  }

  async #storeCheckpoint(revision: bigint | 'no-stream', position: bigint): Promise<bigint> {
    try {
      const result = await this.#client.appendToStream(
        this.#checkpointStream,
        jsonEvent({ type: 'Checkpoint', data: { position: position.toString() } }),
        { expectedRevision: revision === 'no-stream' ? NO_STREAM : revision },
      );
      if (revision === 'no-stream') {
        await this.#client
          .setStreamMetadata(this.#checkpointStream, { maxCount: 10 })
          .catch(() => undefined);
      }
      this.#position = position;
      return result.nextExpectedRevision;
    } catch (error) {
      if (error instanceof EsdbWrongExpectedVersionError) {
        throw new SubscriptionOwnershipLostError(this.name);
      }
      throw error;
    }
  }

  async #handle(event: RecordedEvent): Promise<boolean> {
    for (let failures = 1; ; failures += 1) {
      try {
        await this.#options.handler(event);
        return true;
      } catch (error) {
        this.#report(error);
        if (this.#stopped()) return false;
        await this.#pause(backoffs.exponential({ capMs: this.#tuning.maxBackoffMs })(failures));
        if (this.#stopped()) return false;
      }
    }
  }

  async #pause(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.#stopped() && Date.now() < deadline) {
      await this.#signal.wait(deadline - Date.now());
    }
  }

  #report(error: unknown): void {
    try {
      this.#options.onError?.(error);
    } catch {
      // A failing error reporter must not stop the consumer.
    }
  }
}
