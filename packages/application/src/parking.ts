import {
  DomainError,
  parkedIdOf,
  parkedMessageEventSchema,
  PARKING_CONSUMERS,
  streams,
  STREAM_PREFIXES,
  type CommandContext,
  type ParkedMessageEvent,
  type ParkingConsumer,
} from '@croupier/contracts';
import type {
  EventStore,
  ProjectionStorage,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '@croupier/eventstore';
import type { Aggregate, CommandHandler } from './command-handler/index.js';
import { causedBy, systemContext } from './context.js';
import type { Decider } from './decider.js';
import type { DocumentSet, DurableProjection } from './projection-runner.js';

/**
 * Parking (ADR 0035): a consumer that cannot apply a message sets it aside in a stream of its own,
 * `parked-<consumer>.<messageId>`, and goes on with the others, instead of retrying it forever
 * while everything behind it waits. An operator fixes what refused it and asks for a retry; the
 * consumer tries it again and records it resolved, or parked once more.
 */

export type ParkedMessage = Extract<ParkedMessageEvent, { type: 'MessageParked' }>['data'];

export interface ParkedMessageState {
  /** `none`: never parked; `retrying`: an operator asked for a retry not yet tried. */
  readonly status: 'none' | 'parked' | 'retrying' | 'resolved';
  /** The last time it was parked: what refused it and what to try again. */
  readonly parked: ParkedMessage | null;
}

export type ParkingCommand =
  | { readonly type: 'Park'; readonly parked: ParkedMessage }
  | { readonly type: 'RetryParked'; readonly consumer: ParkingConsumer; readonly messageId: string }
  | {
      readonly type: 'ResolveParked';
      readonly consumer: ParkingConsumer;
      readonly messageId: string;
    };

export const parkingDecider: Decider<ParkingCommand, ParkedMessageEvent, ParkedMessageState> = {
  initialState: () => ({ status: 'none', parked: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'MessageParked':
        return { status: 'parked', parked: event.data };
      case 'ParkedMessageRetried':
        return { ...state, status: 'retrying' };
      case 'ParkedMessageResolved':
        return { ...state, status: 'resolved' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Park':
        // Delivered again while parked (a redelivery, a second process): parked once.
        if (state.status === 'parked') return [];
        return [{ type: 'MessageParked', data: command.parked }];
      case 'RetryParked': {
        const id = parkedIdOf(command.consumer, command.messageId);
        if (state.status === 'none')
          throw new DomainError(
            'PARKED_MESSAGE_NOT_FOUND',
            `no parked message ${id}: nothing was parked under that id`,
            { field: 'id' },
          );
        if (state.status === 'resolved')
          throw new DomainError(
            'NOT_PARKED',
            `${id} is not parked: it was applied after a retry, nothing is left to retry`,
            { field: 'id' },
          );
        // Asked again before the consumer tried it: one retry is owed, not two.
        if (state.status === 'retrying') return [];
        return [
          {
            type: 'ParkedMessageRetried',
            data: { consumer: command.consumer, messageId: command.messageId },
          },
        ];
      }
      case 'ResolveParked':
        if (state.status !== 'parked' && state.status !== 'retrying') return [];
        return [
          {
            type: 'ParkedMessageResolved',
            data: { consumer: command.consumer, messageId: command.messageId },
          },
        ];
    }
  },
};

export const parkingAggregate: Aggregate<ParkingCommand, ParkedMessageEvent, ParkedMessageState> = {
  name: 'parking',
  writes: ['MessageParked', 'ParkedMessageRetried', 'ParkedMessageResolved'],
  decider: parkingDecider,
  parse: (recorded) => parkedMessageEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

/**
 * A refusal that retrying cannot fix, from a system that answers rather than throws (the
 * operator's wallet refusing a credit): parked at once, like a domain refusal.
 */
export class MessageRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'MessageRefusedError';
  }
}

/**
 * Whether the same message can only fail the same way again: the model refused it (a balance
 * past its limit, a currency of the wrong money, an id naming another record, a wallet that does
 * not exist), it is not a valid message, or another system refused it for good. A conflict of
 * state (409) may pass when the state moves, and anything else may be the store or the network:
 * those are retried before being parked.
 */
export function refusedForGood(error: unknown): boolean {
  if (error instanceof MessageRefusedError) return true;
  if (error instanceof DomainError)
    return error.status === 422 || error.status === 404 || error.code === 'ID_CONFLICT';
  return error instanceof Error && error.name === 'ZodError';
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.length > 0) return code.slice(0, 100);
  return error instanceof Error ? error.name.slice(0, 100) : 'UNKNOWN';
}

function detailOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2_000);
}

/** What a consumer parks of one of its messages: its id, its player, what to try it again with. */
export interface ParkableMessage {
  readonly messageId: string;
  readonly playerId: string | null;
  readonly message: Record<string, unknown>;
}

export interface ParkingOptions {
  /**
   * Failures of one message, counted in this process, before it is parked when its error might
   * pass (a refusal for good is parked at the first). Default 5.
   */
  readonly attempts?: number;
  /** Told of every message parked (a metric, a log line). */
  readonly onParked?: (parked: ParkedMessage) => void;
}

export const DEFAULT_PARKING_ATTEMPTS = 5;

/** Parks, retries and resolves messages, through the command handler of the process. */
export class Parking {
  /** Failures of messages not yet applied nor parked, by parked id. */
  readonly #failures = new Map<string, number>();
  /** The handlers of the subscriptions started through `subscribeParking`, for their retries. */
  readonly #subscribed = new Map<
    ParkingConsumer,
    { handler: (event: RecordedEvent) => Promise<void>; transient?: (error: unknown) => boolean }
  >();
  readonly #attempts: number;

  constructor(
    readonly commands: CommandHandler,
    private readonly options: ParkingOptions = {},
  ) {
    this.#attempts = options.attempts ?? DEFAULT_PARKING_ATTEMPTS;
  }

  /** Sets a message aside: appends MessageParked to its stream (once while it stays parked). */
  async park(parked: ParkedMessage, context?: CommandContext): Promise<void> {
    await this.commands.handle(
      parkingAggregate,
      streams.parked(parked.consumer, parked.messageId),
      { type: 'Park', parked },
      context ?? systemContext(parked.consumer),
    );
    this.options.onParked?.(parked);
  }

  /** An operator's retry: recorded, for the consumer's retry subscription to act on. */
  async requestRetry(
    consumer: ParkingConsumer,
    messageId: string,
    context: CommandContext,
  ): Promise<void> {
    await this.commands.handle(
      parkingAggregate,
      streams.parked(consumer, messageId),
      { type: 'RetryParked', consumer, messageId },
      context,
    );
  }

  async resolve(
    consumer: ParkingConsumer,
    messageId: string,
    context: CommandContext,
  ): Promise<void> {
    await this.commands.handle(
      parkingAggregate,
      streams.parked(consumer, messageId),
      { type: 'ResolveParked', consumer, messageId },
      context,
    );
  }

  async state(consumer: ParkingConsumer, messageId: string): Promise<ParkedMessageState> {
    return (await this.commands.load(parkingAggregate, streams.parked(consumer, messageId))).state;
  }

  /**
   * A consumer's handler that parks what it cannot apply instead of throwing it back forever: a
   * refusal for good at once, any other failure once the message has failed `attempts` times
   * (until then it is thrown, and the consumer retries it as before). `transient` names the
   * failures of the consumer's own transport (a bus that is down): no message is to blame, so
   * they are never parked. Resolves once the message is applied or parked.
   */
  guard<M>(
    consumer: ParkingConsumer,
    handler: (message: M) => Promise<void>,
    describe: (message: M) => ParkableMessage,
    transient: (error: unknown) => boolean = () => false,
  ): (message: M) => Promise<void> {
    return async (message) => {
      try {
        await handler(message);
      } catch (error) {
        if (transient(error)) throw error;
        const parkable = describe(message);
        const id = parkedIdOf(consumer, parkable.messageId);
        const attempts = (this.#failures.get(id) ?? 0) + 1;
        if (!refusedForGood(error) && attempts < this.#attempts) {
          this.#failures.set(id, attempts);
          throw error;
        }
        await this.park({
          consumer,
          ...parkable,
          code: codeOf(error),
          detail: detailOf(error),
          attempts,
        });
        this.#failures.delete(id);
        return;
      }
      if (this.#failures.size > 0)
        this.#failures.delete(parkedIdOf(consumer, describe(message).messageId));
    };
  }

  /**
   * `guard` for a subscription's handler: the message is the event, parked by its id with where
   * it is in the log, so a retry reads it back (`retryEvent`).
   */
  guardEvents(
    consumer: ParkingConsumer,
    handler: (event: RecordedEvent) => Promise<void>,
    transient?: (error: unknown) => boolean,
  ): (event: RecordedEvent) => Promise<void> {
    return this.guard(
      consumer,
      handler,
      (event) => ({
        messageId: event.id,
        playerId: playerOf(event),
        message: {
          stream: event.stream,
          revision: event.revision.toString(),
          position: event.position.toString(),
          eventId: event.id,
          type: event.type,
        },
      }),
      transient,
    );
  }

  /**
   * Retries for a subscription started through `subscribeParking`: each parked event is read
   * back from the log and handed to that subscription's handler again.
   */
  startEventRetries(
    store: EventStore,
    consumer: ParkingConsumer,
    onError: (error: unknown) => void,
  ): Subscription {
    const subscribed = this.#subscribed.get(consumer);
    if (subscribed === undefined)
      throw new Error(`no subscription of ${consumer} was started with this parking`);
    return this.startRetries(
      store,
      consumer,
      retryEvent(store, subscribed.handler),
      onError,
      subscribed.transient,
    );
  }

  /** @internal `subscribeParking`'s: remembers a consumer's handler for its retries. */
  remember(
    consumer: ParkingConsumer,
    handler: (event: RecordedEvent) => Promise<void>,
    transient?: (error: unknown) => boolean,
  ): void {
    this.#subscribed.set(consumer, { handler, ...(transient === undefined ? {} : { transient }) });
  }

  /**
   * Tries again each message an operator asked to retry (ParkedMessageRetried) of `consumer`, in
   * the process that runs the consumer: `retry` applies the parked message; applied, it is
   * resolved, refused again, parked again (one attempt more). One subscription per consumer,
   * active in one process at a time; a retry asked while none ran is tried when one starts.
   */
  startRetries(
    store: EventStore,
    consumer: ParkingConsumer,
    retry: (message: Record<string, unknown>) => Promise<void>,
    onError: (error: unknown) => void,
    transient: (error: unknown) => boolean = () => false,
  ): Subscription {
    return store.subscribe({
      name: `parked-retries-${consumer}`,
      from: 'start',
      filter: {
        streamPrefix: streams.parked(consumer, ''),
        eventTypes: ['ParkedMessageRetried'],
      },
      // A retry tried twice (a crash before the checkpoint) applies nothing twice: consumers
      // are idempotent, and a resolved message is not tried again.
      checkpoints: 'per-event',
      onError,
      handler: async (event) => {
        const { messageId } = parkedMessageEventSchema.parse({
          type: event.type,
          data: event.data,
        }).data;
        const state = await this.state(consumer, messageId);
        if (state.status !== 'retrying' || state.parked === null) return;
        const context = causedBy(systemContext(consumer), event.id);
        try {
          await retry(state.parked.message);
        } catch (error) {
          if (transient(error)) throw error;
          await this.park(
            {
              ...state.parked,
              code: codeOf(error),
              detail: detailOf(error),
              attempts: state.parked.attempts + 1,
            },
            context,
          );
          return;
        }
        await this.resolve(consumer, messageId, context);
      },
    });
  }
}

/**
 * `store.subscribe`, and with `parking` the consumer's handler guarded (`guardEvents`): an event
 * it cannot handle is parked as `consumer` and the subscription goes on (ADR 0035). The handler
 * is remembered for `parking.startEventRetries`. Without `parking`, `store.subscribe` as is.
 */
export function subscribeParking(
  store: EventStore,
  parking: Parking | undefined,
  consumer: ParkingConsumer,
  options: SubscribeOptions,
  transient?: (error: unknown) => boolean,
): Subscription {
  if (parking === undefined) return store.subscribe(options);
  parking.remember(consumer, options.handler, transient);
  return store.subscribe({
    ...options,
    handler: parking.guardEvents(consumer, options.handler, transient),
  });
}

/** A subscription's retry: reads the parked event back from the log and hands it to `handler`. */
export function retryEvent(
  store: EventStore,
  handler: (event: RecordedEvent) => Promise<void>,
): (message: Record<string, unknown>) => Promise<void> {
  return async (message) => {
    const { stream, revision } = message as { stream?: unknown; revision?: unknown };
    if (typeof stream !== 'string' || typeof revision !== 'string')
      throw new Error('a parked event names no stream and revision');
    const [event] = await store.readStream(stream, { from: BigInt(revision), limit: 1 });
    if (event?.revision !== BigInt(revision))
      throw new Error(`${stream}@${revision} is not in the log`);
    await handler(event);
  };
}

/**
 * The player a parked event's money is owed to: its own `playerId`, or the one player of all its
 * lines (a fun session's round settled, refunded or resettled), so operators see whose payout
 * waits. Null when it names none or several.
 */
function playerOf(event: RecordedEvent): string | null {
  const data = event.data as {
    playerId?: unknown;
    lines?: unknown;
    adjustments?: unknown;
  } | null;
  const players = new Set<unknown>();
  if (data?.playerId !== undefined) players.add(data.playerId);
  for (const lines of [data?.lines, data?.adjustments])
    if (Array.isArray(lines))
      for (const line of lines) players.add((line as { playerId?: unknown } | null)?.playerId);
  const [playerId] = players;
  return players.size === 1 && typeof playerId === 'string' && playerId.length <= 64
    ? playerId
    : null;
}

/** A parked message as operators are shown it. */
export interface ParkedMessageView {
  /** `<consumer>.<messageId>`: what `POST /v1/admin/parked-messages/:id/retry` takes. */
  readonly id: string;
  readonly consumer: ParkingConsumer;
  readonly messageId: string;
  readonly status: 'parked' | 'retrying' | 'resolved';
  readonly code: string;
  readonly detail: string;
  readonly attempts: number;
  readonly playerId: string | null;
  readonly message: Record<string, unknown>;
  /** How many times it was parked (again after a retry that failed). */
  readonly timesParked: number;
  readonly firstParkedAt: string;
  readonly lastParkedAt: string;
  readonly retriedAt: string | null;
  readonly resolvedAt: string | null;
}

const PARKING_EVENT_TYPES = new Set<string>(parkingAggregate.writes);
const OPEN = 'open';
const RESOLVED = 'resolved';

/**
 * Every parked message, open (parked, or waiting for its retry) or resolved: a durable read
 * model (ADR 0023), one document per parked stream, for the operators' list and the metric.
 */
export class ParkedMessages implements DurableProjection<ParkedMessageView> {
  readonly name = 'parked-messages';
  readonly handles = parkingAggregate.writes;

  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!PARKING_EVENT_TYPES.has(event.type) || !event.stream.startsWith(STREAM_PREFIXES.parked))
      return [];
    return [event.stream.slice(STREAM_PREFIXES.parked.length)];
  }

  apply(event: RecordedEvent, docs: DocumentSet<ParkedMessageView>): void {
    const [key] = this.keysOf(event);
    if (key === undefined) return;
    const parsed = parkedMessageEventSchema.parse({ type: event.type, data: event.data });
    const at = event.recordedAt.toISOString();
    const before = docs.get(key);
    let doc: ParkedMessageView;
    if (parsed.type === 'MessageParked') {
      const { consumer, messageId, code, detail, attempts, playerId, message } = parsed.data;
      doc = {
        id: key,
        consumer,
        messageId,
        status: 'parked',
        code,
        detail,
        attempts,
        playerId,
        message,
        timesParked: (before?.timesParked ?? 0) + 1,
        firstParkedAt: before?.firstParkedAt ?? at,
        lastParkedAt: at,
        retriedAt: before?.retriedAt ?? null,
        resolvedAt: null,
      };
    } else {
      if (before === undefined) return;
      doc =
        parsed.type === 'ParkedMessageRetried'
          ? { ...before, status: 'retrying', retriedAt: at }
          : { ...before, status: 'resolved', resolvedAt: at };
    }
    docs.put(key, doc, {
      partition: doc.status === 'resolved' ? RESOLVED : OPEN,
      sort: BigInt(Date.parse(doc.firstParkedAt)),
    });
  }

  /** Parked messages, oldest first: open ones (parked or retrying), resolved ones, or both. */
  async list(
    query: { status?: 'open' | 'resolved' | 'all'; limit?: number } = {},
  ): Promise<ParkedMessageView[]> {
    const status = query.status ?? OPEN;
    const rows = await this.storage.list(this.name, {
      ...(status === 'all' ? {} : { partition: status }),
      order: 'asc',
      ...(query.limit === undefined ? {} : { limit: query.limit }),
    });
    return rows.map((row) => row.doc as ParkedMessageView);
  }

  async get(id: string): Promise<ParkedMessageView | undefined> {
    return (await this.storage.get(this.name, id)) as ParkedMessageView | undefined;
  }

  /** Open parked messages by consumer, every consumer named (0 when none): the gauge. */
  async openByConsumer(): Promise<Record<ParkingConsumer, number>> {
    const counts = Object.fromEntries(PARKING_CONSUMERS.map((consumer) => [consumer, 0])) as Record<
      ParkingConsumer,
      number
    >;
    for (const row of await this.storage.list(this.name, { partition: OPEN }))
      counts[(row.doc as ParkedMessageView).consumer] += 1;
    return counts;
  }
}
