import { usePostgresSchema } from '@croupier/testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEventStore,
  WrongExpectedVersionError,
  type EventStore,
  type RecordedEvent,
} from '../src/index.js';
import { events, eventually, uniqueName } from './support.js';

/**
 * Many writers against one PostgreSQL while a subscriber tails $all: commit order, no gap, no
 * duplicate. Transactions commit out of sequence order all the time here, which is exactly what
 * the xid8/xmin ordering must absorb.
 */
const database = usePostgresSchema('es_conc');
let store: EventStore;

beforeAll(async () => {
  store = await createEventStore({
    kind: 'postgres',
    connectionString: database.get().connectionString,
    schema: database.get().schema,
    maxConnections: 16,
  });
});
afterAll(async () => {
  await store.close();
});

// Out-of-order commits come from how many writers race at once (32, on 16 connections); how
// long they race only multiplies the same interleavings. 500 events each is 1,600 transactions
// racing; bench/eventstore.bench.ts races writers for longer.
const WRITERS = 32;
const EVENTS_PER_WRITER = 500;
const STREAMS_PER_WRITER = 20;
const BATCH = 10;

describe('postgres under concurrent writers', () => {
  it(
    `${WRITERS} writers x ${EVENTS_PER_WRITER} events: the subscriber gets each exactly once, in commit order`,
    { timeout: 360_000 },
    async () => {
      const prefix = uniqueName('conc');
      const received: RecordedEvent[] = [];
      const errors: unknown[] = [];
      const subscription = store.subscribe({
        name: uniqueName('tail'),
        from: 'start',
        handler: (recorded) => {
          received.push(recorded);
          return Promise.resolve();
        },
        onError: (error) => errors.push(error),
      });
      await subscription.caughtUp();

      const appended = new Map<string, bigint>();
      const started = Date.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          const versions = new Array<bigint | 'no-stream'>(STREAMS_PER_WRITER).fill('no-stream');
          for (let batch = 0; batch < EVENTS_PER_WRITER / BATCH; batch += 1) {
            const slot = batch % STREAMS_PER_WRITER;
            const written = events(BATCH, `W${writer}`);
            const result = await store.append(`${prefix}-w${writer}-s${slot}`, written, {
              expectedVersion: versions[slot]!,
            });
            versions[slot] = result.revision;
            for (const one of written) appended.set(one.id, result.position);
          }
        }),
      );
      const writeSeconds = (Date.now() - started) / 1000;
      const total = WRITERS * EVENTS_PER_WRITER;
      expect(appended.size).toBe(total);

      await eventually(
        () => received.length,
        (n) => n >= total,
        { timeoutMs: 90_000, intervalMs: 200, what: 'all events' },
      );
      await subscription.stop();
      console.info(
        `[eventstore] ${total} events by ${WRITERS} writers in ${writeSeconds.toFixed(1)} s; subscriber done after ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      expect(errors).toEqual([]);
      expect(received).toHaveLength(total);
      expect(new Set(received.map((e) => e.id)).size).toBe(total);
      for (let index = 1; index < received.length; index += 1) {
        if (received[index]!.position <= received[index - 1]!.position) {
          throw new Error(
            `out of order at ${index}: ${received[index - 1]!.position} then ${received[index]!.position}`,
          );
        }
      }
      // Every appended id arrived, and per stream in revision order with no gap.
      const revisions = new Map<string, bigint>();
      for (const recorded of received) {
        expect(appended.has(recorded.id)).toBe(true);
        const expected = (revisions.get(recorded.stream) ?? -1n) + 1n;
        expect(recorded.revision).toBe(expected);
        revisions.set(recorded.stream, recorded.revision);
      }
      expect(revisions.size).toBe(WRITERS * STREAMS_PER_WRITER);
      // The batch's last event carries the position append returned.
      const lastOfBatch = received.filter(
        (recorded) => recorded.revision % BigInt(BATCH) === BigInt(BATCH - 1),
      );
      for (const recorded of lastOfBatch) expect(recorded.position).toBe(appended.get(recorded.id));
    },
  );

  it(
    'conflicting writers on one stream: exactly one succeeds per version',
    { timeout: 60_000 },
    async () => {
      const stream = uniqueName('contended');
      const rounds = 40;
      const contenders = 12;
      for (let round = 0; round < rounds; round += 1) {
        const expectedVersion = round === 0 ? ('no-stream' as const) : BigInt(round - 1);
        const outcomes = await Promise.allSettled(
          Array.from({ length: contenders }, () =>
            store.append(stream, events(1), { expectedVersion }),
          ),
        );
        const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(winners).toHaveLength(1);
        expect(winners[0]!.value.revision).toBe(BigInt(round));
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') {
            expect(outcome.reason).toBeInstanceOf(WrongExpectedVersionError);
            expect((outcome.reason as WrongExpectedVersionError).actual).toBe(BigInt(round));
          }
        }
      }
      const stored = await store.readStream(stream);
      expect(stored.map((e) => e.revision)).toEqual(
        Array.from({ length: rounds }, (_, index) => BigInt(index)),
      );
      expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: rounds });
    },
  );
});
