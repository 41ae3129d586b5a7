import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chainHash,
  DuplicateEventIdError,
  EventValidationError,
  GENESIS_HASH,
  StreamNameError,
  SubscriptionStoppedError,
  WrongExpectedVersionError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../src/index.js';
import {
  event,
  events,
  eventually,
  readAllWithPrefix,
  record,
  rejection,
  sleep,
  uniqueName,
} from './support.js';

/** What an adapter under test provides to the contract suite. */
export interface ContractTarget {
  readonly name: string;
  /** Opens a store on an isolated database or schema; the suite closes it. */
  open(): Promise<EventStore>;
  /**
   * False where the backing store keeps no index of event ids across streams (EventStoreDB): the
   * test of a duplicate id in another stream is then reported as skipped with that reason.
   */
  readonly detectsDuplicateIdsAcrossStreams?: boolean;
  /** False where filtered-out events cannot move the checkpoint (ESDB, see its adapter). */
  readonly checkpointsFilteredEvents?: boolean;
  /** False where a subscription handles one event at a time whatever `concurrentStreams` says (ESDB). */
  readonly handlesStreamsConcurrently?: boolean;
}

function expectBigints(recorded: RecordedEvent): void {
  expect(typeof recorded.revision).toBe('bigint');
  expect(typeof recorded.position).toBe('bigint');
  expect(recorded.recordedAt).toBeInstanceOf(Date);
}

/** The EventStore port's contract: every adapter passes the same suite. */
export function eventStoreContract(target: ContractTarget): void {
  describe(`EventStore contract: ${target.name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await target.open();
    });
    afterAll(async () => {
      await store.close();
    });

    describe('append and expected versions', () => {
      it('appends to a new stream with no-stream and returns bigint revision and position', async () => {
        const stream = uniqueName('order');
        const first = await store.append(stream, [event('Opened', { n: 1 })], {
          expectedVersion: 'no-stream',
        });
        expect(first.revision).toBe(0n);
        expect(typeof first.position).toBe('bigint');
        expect(first.position).toBeGreaterThan(0n);
        const next = await store.append(stream, events(3), { expectedVersion: 0n });
        expect(next.revision).toBe(3n);
        expect(next.position).toBeGreaterThan(first.position);
        const read = await store.readStream(stream);
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
        expect(read.at(-1)?.position).toBe(next.position);
      });

      it('no-stream on an existing stream fails with the actual revision', async () => {
        const stream = uniqueName('order');
        await store.append(stream, events(2), { expectedVersion: 'no-stream' });
        const error = await rejection(
          store.append(stream, events(1), { expectedVersion: 'no-stream' }),
        );
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(error).toMatchObject({
          code: 'WRONG_EXPECTED_VERSION',
          stream,
          expected: 'no-stream',
          actual: 1n,
        });
      });

      it("'exists' needs an event in the stream", async () => {
        const stream = uniqueName('order');
        const error = await rejection(
          store.append(stream, events(1), { expectedVersion: 'exists' }),
        );
        expect(error).toMatchObject({
          code: 'WRONG_EXPECTED_VERSION',
          stream,
          expected: 'exists',
          actual: 'no-stream',
        });
        await store.append(stream, events(1), { expectedVersion: 'any' });
        const result = await store.append(stream, events(1), { expectedVersion: 'exists' });
        expect(result.revision).toBe(1n);
      });

      it("'any' appends to missing and existing streams", async () => {
        const stream = uniqueName('order');
        expect((await store.append(stream, events(1), { expectedVersion: 'any' })).revision).toBe(
          0n,
        );
        expect((await store.append(stream, events(2), { expectedVersion: 'any' })).revision).toBe(
          2n,
        );
      });

      it('an exact revision must match the last event', async () => {
        const stream = uniqueName('order');
        const missing = await rejection(store.append(stream, events(1), { expectedVersion: 0n }));
        expect(missing).toMatchObject({ expected: 0n, actual: 'no-stream' });
        await store.append(stream, events(2), { expectedVersion: 'no-stream' });
        const stale = await rejection(store.append(stream, events(1), { expectedVersion: 0n }));
        expect(stale).toBeInstanceOf(WrongExpectedVersionError);
        expect(stale).toMatchObject({ stream, expected: 0n, actual: 1n });
        const ahead = await rejection(store.append(stream, events(1), { expectedVersion: 5n }));
        expect(ahead).toMatchObject({ expected: 5n, actual: 1n });
        expect((await store.append(stream, events(1), { expectedVersion: 1n })).revision).toBe(2n);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('of concurrent no-stream appends to one stream exactly one wins', async () => {
        const stream = uniqueName('race');
        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, (_, writer) =>
            store.append(stream, [event('Claimed', { writer })], { expectedVersion: 'no-stream' }),
          ),
        );
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const lost = outcomes.filter((outcome) => outcome.status === 'rejected');
        expect(won).toHaveLength(1);
        for (const outcome of lost)
          expect(outcome.reason).toBeInstanceOf(WrongExpectedVersionError);
        expect(await store.readStream(stream)).toHaveLength(1);
      });

      it("concurrent 'any' appends to a new stream all succeed, one after the other", async () => {
        const stream = uniqueName('race');
        const results = await Promise.all(
          Array.from({ length: 8 }, () =>
            store.append(stream, events(1), { expectedVersion: 'any' }),
          ),
        );
        expect(results.map((result) => result.revision).sort()).toEqual([
          0n,
          1n,
          2n,
          3n,
          4n,
          5n,
          6n,
          7n,
        ]);
        expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 8 });
      });

      it('of concurrent appends at one exact revision exactly one wins', async () => {
        const stream = uniqueName('race');
        await store.append(stream, events(1), { expectedVersion: 'no-stream' });
        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, () => store.append(stream, events(2), { expectedVersion: 0n })),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readStream(stream)).toHaveLength(3);
      });
    });

    describe('idempotency', () => {
      it('re-appending the same events returns the original result, whatever the expected version', async () => {
        const stream = uniqueName('wallet');
        const batch = events(2, 'StakeDebited');
        const original = await store.append(stream, batch, { expectedVersion: 'no-stream' });
        expect(original.idempotent).toBe(false);
        const retried = { ...original, idempotent: true };
        expect(await store.append(stream, batch, { expectedVersion: 'no-stream' })).toEqual(
          retried,
        );
        expect(await store.append(stream, batch, { expectedVersion: 'any' })).toEqual(retried);
        await store.append(stream, events(1), { expectedVersion: 1n });
        // After other events, a retry with the stale version it was first sent with is still a no-op.
        expect(await store.append(stream, batch, { expectedVersion: 'no-stream' })).toEqual(
          retried,
        );
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('a retry of a later append is a no-op too', async () => {
        const stream = uniqueName('wallet');
        await store.append(stream, events(1), { expectedVersion: 'no-stream' });
        const batch = [event('PayoutCredited', { amount: 5 })];
        const original = await store.append(stream, batch, { expectedVersion: 0n });
        expect(original).toMatchObject({ revision: 1n, idempotent: false });
        expect(await store.append(stream, batch, { expectedVersion: 0n })).toEqual({
          ...original,
          idempotent: true,
        });
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('a batch that only partly repeats stored ids is rejected', async () => {
        const stream = uniqueName('wallet');
        const [first, second] = events(2);
        await store.append(stream, [first!, second!], { expectedVersion: 'no-stream' });
        const error = await rejection(
          store.append(stream, [first!, event('Other')], { expectedVersion: 'any' }),
        );
        expect(error).toBeInstanceOf(DuplicateEventIdError);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it.skipIf(target.detectsDuplicateIdsAcrossStreams === false)(
        'an id stored in another stream is rejected with DuplicateEventIdError',
        async () => {
          const original = event('Deposited', { amount: 1 });
          const first = uniqueName('wallet');
          const second = uniqueName('wallet');
          await store.append(first, [original], { expectedVersion: 'no-stream' });
          const error = await rejection(
            store.append(second, [original], { expectedVersion: 'any' }),
          );
          expect(error).toBeInstanceOf(DuplicateEventIdError);
          expect(error).toMatchObject({ code: 'DUPLICATE_EVENT_ID', eventId: original.id });
          const later = await rejection(
            store.append(second, [event('Fresh'), original], { expectedVersion: 'any' }),
          );
          expect(later).toBeInstanceOf(DuplicateEventIdError);
          expect(await store.readStream(second)).toEqual([]);
        },
      );
    });

    describe('readStream', () => {
      let stream: string;
      beforeAll(async () => {
        stream = uniqueName('shoe');
        await store.append(
          stream,
          Array.from({ length: 5 }, (_, index) =>
            event(`Card${index}`, { index, nested: { z: 1, a: [1, 'x'] } }, { actor: 'dealer' }),
          ),
          { expectedVersion: 'no-stream' },
        );
      });

      it('reads forwards with every field', async () => {
        const read = await store.readStream(stream);
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
        const [first] = read;
        expect(first).toMatchObject({
          stream,
          type: 'Card0',
          data: { index: 0, nested: { z: 1, a: [1, 'x'] } },
          metadata: { actor: 'dealer', prevHash: GENESIS_HASH },
        });
        expect(first?.id).toMatch(/^[0-9a-f-]{36}$/);
        read.forEach(expectBigints);
        for (let index = 1; index < read.length; index += 1) {
          expect(read[index]!.position).toBeGreaterThan(read[index - 1]!.position);
        }
      });

      it('reads from a revision with a limit', async () => {
        const read = await store.readStream(stream, { from: 2n, limit: 2 });
        expect(read.map((e) => e.revision)).toEqual([2n, 3n]);
      });

      it('reads backwards from the end or from a revision', async () => {
        expect(
          (await store.readStream(stream, { direction: 'backwards' })).map((e) => e.revision),
        ).toEqual([4n, 3n, 2n, 1n, 0n]);
        const read = await store.readStream(stream, { direction: 'backwards', from: 3n, limit: 2 });
        expect(read.map((e) => e.revision)).toEqual([3n, 2n]);
        const last = await store.readStream(stream, { direction: 'backwards', limit: 1 });
        expect(last.map((e) => e.type)).toEqual(['Card4']);
      });

      it('returns [] for a missing stream or past the end', async () => {
        expect(await store.readStream(uniqueName('missing'))).toEqual([]);
        expect(await store.readStream(stream, { from: 99n })).toEqual([]);
      });
    });

    describe('readAll', () => {
      it('returns every stream in global order, strictly after a position, with a limit', async () => {
        const prefix = uniqueName('all');
        const appended: bigint[] = [];
        for (let index = 0; index < 6; index += 1) {
          const result = await store.append(`${prefix}-${index % 3}`, [event('Tick', { index })], {
            expectedVersion: 'any',
          });
          appended.push(result.position);
        }
        const all = await readAllWithPrefix(store, prefix, 6);
        expect(all.map((e) => e.position)).toEqual(appended);
        expect(all.map((e) => (e.data as { index: number }).index)).toEqual([0, 1, 2, 3, 4, 5]);
        all.forEach(expectBigints);
        const after = await store.readAll({
          after: appended[2]!,
          filter: { streamPrefix: prefix },
        });
        expect(after.map((e) => e.position)).toEqual(appended.slice(3));
        const limited = await store.readAll({
          after: appended[0]!,
          limit: 2,
          filter: { streamPrefix: prefix },
        });
        expect(limited.map((e) => e.position)).toEqual(appended.slice(1, 3));
        const everything = await store.readAll({ after: appended[0]!, limit: 3 });
        expect(everything).toHaveLength(3);
        for (const recorded of everything) expect(recorded.position).toBeGreaterThan(appended[0]!);
      });

      it('filters by stream prefix and event types', async () => {
        const prefix = uniqueName('filter');
        await store.append(`${prefix}-round-1`, [event('BetPlaced'), event('RoundCompleted')], {
          expectedVersion: 'no-stream',
        });
        await store.append(`${prefix}-wallet-1`, [event('StakeDebited'), event('BetPlaced')], {
          expectedVersion: 'no-stream',
        });
        await readAllWithPrefix(store, prefix, 4);
        const rounds = await store.readAll({ filter: { streamPrefix: `${prefix}-round` } });
        expect(rounds.map((e) => e.type)).toEqual(['BetPlaced', 'RoundCompleted']);
        const bets = await store.readAll({
          filter: { streamPrefix: prefix, eventTypes: ['BetPlaced'] },
        });
        expect(bets.map((e) => e.stream)).toEqual([`${prefix}-round-1`, `${prefix}-wallet-1`]);
        const several = await store.readAll({
          filter: { streamPrefix: prefix, eventTypes: ['StakeDebited', 'RoundCompleted'] },
        });
        expect(several.map((e) => e.type)).toEqual(['RoundCompleted', 'StakeDebited']);
        expect(await store.readAll({ filter: { streamPrefix: prefix, eventTypes: [] } })).toEqual(
          [],
        );
      });

      it('head: an append is committed at once and readable once nothing older runs', async () => {
        const appended = await store.append(uniqueName('head'), [event('Tick')], {
          expectedVersion: 'no-stream',
        });
        const head = await store.head();
        expect(typeof head.committed).toBe('bigint');
        expect(head.committed).toBeGreaterThanOrEqual(appended.position);
        expect(head.readable).toBeLessThanOrEqual(head.committed);
        // Another test's transaction on the same server may hold `readable` back for a moment.
        await eventually(
          () => store.head(),
          ({ readable }) => readable >= appended.position,
          { what: 'the append to be readable' },
        );
      });
    });

    describe('hash chain', () => {
      it('links each event to the previous one with sha256 over canonical JSON', async () => {
        const stream = uniqueName('round');
        const batch: NewEvent[] = [
          event(
            'RoundOpened',
            { table: 't1', limits: { max: 500, min: 5 } },
            { correlationId: 'c', actor: 'op' },
          ),
          event('BetPlaced', { amount: 25, side: 'banker', note: 'é ✓ \u2028' }),
        ];
        await store.append(stream, batch.slice(0, 1), { expectedVersion: 'no-stream' });
        await store.append(stream, batch.slice(1), { expectedVersion: 0n });
        const [first, second] = await store.readStream(stream);
        const firstHash = chainHash(GENESIS_HASH, batch[0]!);
        expect(first?.metadata).toEqual({
          correlationId: 'c',
          actor: 'op',
          prevHash: GENESIS_HASH,
          hash: firstHash,
        });
        expect(second?.metadata['prevHash']).toBe(firstHash);
        expect(second?.metadata['hash']).toBe(chainHash(firstHash, batch[1]!));
        expect(firstHash).toMatch(/^[0-9a-f]{64}$/);
        expect(await store.verifyStream(stream)).toEqual({
          ok: true,
          stream,
          events: 2,
          lastHash: second?.metadata['hash'],
        });
      });

      it('hashes what the client would hash, whatever the text: one event or a batch', async () => {
        const tricky = {
          quote: 'say "hi"',
          slash: 'a\\b/c',
          lines: 'one\ntwo\tthree\r',
          unicode: 'é ✓ \u2028 \u2029 🎲 \u007f',
          keys: { Z: 1, a: 2, é: 3, 'a b': [1.5, -0.25, 1e21, true, null] },
        };
        const types = ['Plain', 'With "quotes"', 'Back\\slash', 'Ünïcødé 🎲', 'line\u2028sep'];
        const batch = types.map((type, n) => event(type, { ...tricky, n }, { 'méta"': type }));
        const single = uniqueName('tricky');
        let expected: bigint | 'no-stream' = 'no-stream';
        for (const one of batch) {
          await store.append(single, [one], { expectedVersion: expected });
          expected = expected === 'no-stream' ? 0n : expected + 1n;
        }
        const batched = uniqueName('tricky');
        const again = batch.map((one) => event(one.type, one.data, one.metadata));
        await store.append(batched, again, { expectedVersion: 'no-stream' });
        for (const stream of [single, batched]) {
          let previous = GENESIS_HASH;
          const stored = await store.readStream(stream);
          expect(stored.map((e) => e.type)).toEqual(types);
          stored.forEach((recorded, index) => {
            expect(recorded.metadata['prevHash']).toBe(previous);
            previous = chainHash(previous, batch[index]!);
            expect(recorded.metadata['hash'], recorded.type).toBe(previous);
          });
          expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 5 });
        }
      });

      it('verifies a missing stream as empty', async () => {
        const stream = uniqueName('none');
        expect(await store.verifyStream(stream)).toEqual({
          ok: true,
          stream,
          events: 0,
          lastHash: null,
        });
      });
    });

    describe('bad input', () => {
      it('rejects bad stream names', async () => {
        for (const name of ['', '$all', ' padded', 'a\u0000b', 'x'.repeat(300)]) {
          expect(
            await rejection(store.append(name, events(1), { expectedVersion: 'any' })),
          ).toBeInstanceOf(StreamNameError);
        }
        expect(await rejection(store.readStream(''))).toBeInstanceOf(StreamNameError);
      });

      it('rejects empty batches, bad ids, non-JSON data and bad options', async () => {
        const stream = uniqueName('bad');
        const cases: { events: unknown; expectedVersion?: unknown }[] = [
          { events: [] },
          { events: [{ id: 'not-a-uuid', type: 'T', data: {} }] },
          { events: [{ id: randomUUID(), type: '', data: {} }] },
          { events: [{ id: randomUUID(), type: 'T', data: { amount: 1n } }] },
          { events: [{ id: randomUUID(), type: 'T', data: { amount: Number.NaN } }] },
          { events: [{ id: randomUUID(), type: 'T', data: { at: Number.POSITIVE_INFINITY } }] },
          { events: [{ id: randomUUID(), type: 'T', data: {}, metadata: { hash: 'forged' } }] },
          { events: [{ id: randomUUID(), type: 'T', data: {}, metadata: [] }] },
          { events: ((e) => [e, e])(event('T')) },
          { events: events(1), expectedVersion: -1n },
          { events: events(1), expectedVersion: 3 },
          { events: events(1), expectedVersion: 'latest' },
        ];
        for (const bad of cases) {
          const error = await rejection(
            store.append(stream, bad.events as NewEvent[], {
              expectedVersion: (bad.expectedVersion ?? 'any') as 'any',
            }),
          );
          expect(
            error,
            JSON.stringify(bad, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
          ).toBeInstanceOf(EventValidationError);
          expect(error).toMatchObject({ code: 'INVALID_EVENT' });
        }
        expect(await store.readStream(stream)).toEqual([]);
        expect(await rejection(store.readStream(stream, { limit: 0 }))).toBeInstanceOf(
          EventValidationError,
        );
        expect(await rejection(store.readStream(stream, { from: -1n }))).toBeInstanceOf(
          EventValidationError,
        );
        expect(await rejection(store.readAll({ after: -5n }))).toBeInstanceOf(EventValidationError);
        expect(() => store.subscribe({ name: '', handler: () => Promise.resolve() })).toThrow(
          EventValidationError,
        );
      });
    });

    describe('subscriptions', () => {
      it('delivers from the start, in order, then tails live appends', async () => {
        const prefix = uniqueName('sub');
        const before = await store.append(`${prefix}-a`, events(3), {
          expectedVersion: 'no-stream',
        });
        const recorder = record(store, {
          name: uniqueName('start'),
          from: 'start',
          filter: { streamPrefix: prefix },
        });
        await recorder.subscription.caughtUp();
        await eventually(
          () => recorder.received.length,
          (n) => n === 3,
          { what: 'history' },
        );
        await store.append(`${prefix}-b`, events(2), { expectedVersion: 'no-stream' });
        const live = await store.append(`${prefix}-a`, events(1), {
          expectedVersion: before.revision,
        });
        await eventually(
          () => recorder.received.length,
          (n) => n === 6,
          { what: 'live events' },
        );
        const positions = recorder.received.map((e) => e.position);
        expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
        expect(recorder.received.at(-1)?.position).toBe(live.position);
        recorder.received.forEach(expectBigints);
        await eventually(
          () => recorder.subscription.position(),
          (p) => p !== null && p >= live.position,
        );
        await recorder.subscription.stop();
        expect(recorder.errors).toEqual([]);
      });

      it("from 'end' skips the history", async () => {
        const prefix = uniqueName('sub');
        await store.append(`${prefix}-a`, events(2), { expectedVersion: 'no-stream' });
        await readAllWithPrefix(store, prefix, 2);
        const recorder = record(store, {
          name: uniqueName('end'),
          from: 'end',
          filter: { streamPrefix: prefix },
        });
        await recorder.subscription.caughtUp();
        const fresh = [event('Fresh', { n: 1 })];
        await store.append(`${prefix}-a`, fresh, { expectedVersion: 1n });
        await eventually(
          () => recorder.received.length,
          (n) => n === 1,
        );
        expect(recorder.received[0]?.id).toBe(fresh[0]!.id);
        await sleep(100);
        expect(recorder.received).toHaveLength(1);
        await recorder.subscription.stop();
      });

      it('from a position starts strictly after it', async () => {
        const prefix = uniqueName('sub');
        const written = [];
        for (let index = 0; index < 4; index += 1) {
          written.push(
            await store.append(`${prefix}-${index}`, events(1), { expectedVersion: 'no-stream' }),
          );
        }
        const recorder = record(store, {
          name: uniqueName('pos'),
          from: written[1]!.position,
          filter: { streamPrefix: prefix },
        });
        await eventually(
          () => recorder.received.length,
          (n) => n === 2,
        );
        expect(recorder.received.map((e) => e.position)).toEqual([
          written[2]!.position,
          written[3]!.position,
        ]);
        await recorder.subscription.stop();
      });

      it('filters by event type, and moves its checkpoint past events it filtered out', async () => {
        const prefix = uniqueName('sub');
        const recorder = record(store, {
          name: uniqueName('types'),
          filter: { streamPrefix: prefix, eventTypes: ['RoundCompleted'] },
        });
        await store.append(
          `${prefix}-r1`,
          [event('BetPlaced'), event('RoundCompleted'), event('BetPlaced')],
          { expectedVersion: 'no-stream' },
        );
        const skipped = await store.append(`${prefix}-r2`, [event('BetPlaced')], {
          expectedVersion: 'no-stream',
        });
        await eventually(
          () => recorder.received.length,
          (n) => n === 1,
        );
        expect(recorder.received[0]?.type).toBe('RoundCompleted');
        if (target.checkpointsFilteredEvents !== false) {
          await eventually(
            () => recorder.subscription.position(),
            (p) => p !== null && p >= skipped.position,
            {
              what: 'checkpoint past filtered-out events',
            },
          );
        }
        await recorder.subscription.stop();
      });

      it('resumes after a stop from its checkpoint: no gap, no duplicate', async () => {
        const prefix = uniqueName('sub');
        const name = uniqueName('resume');
        const stream = `${prefix}-s`;
        await store.append(stream, events(5), { expectedVersion: 'no-stream' });
        let stopAt = 3;
        const first = record(store, {
          name,
          filter: { streamPrefix: prefix },
          handler: () => {
            stopAt -= 1;
            return Promise.resolve();
          },
        });
        await eventually(() => stopAt <= 0, Boolean);
        await first.subscription.stop();
        const handledFirst = first.received.length;
        expect(handledFirst).toBeGreaterThanOrEqual(3);
        await store.append(stream, events(3), { expectedVersion: 4n });
        const second = record(store, { name, filter: { streamPrefix: prefix } });
        await eventually(
          () => second.received.length,
          (n) => handledFirst + n >= 8,
        );
        await sleep(100);
        const revisions = [...first.received, ...second.received].map((e) => e.revision);
        expect(revisions).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
        await second.subscription.stop();
      });

      it("with checkpoints 'per-page', resumes after a stop with no gap and no duplicate", async () => {
        const prefix = uniqueName('sub');
        const name = uniqueName('per-page');
        const stream = `${prefix}-s`;
        await store.append(stream, events(5), { expectedVersion: 'no-stream' });
        let stopAt = 3;
        const first = record(store, {
          name,
          checkpoints: 'per-page',
          filter: { streamPrefix: prefix },
          handler: () => {
            stopAt -= 1;
            return Promise.resolve();
          },
        });
        await eventually(() => stopAt <= 0, Boolean);
        // Stopped in the middle of its page: what it handled is stored by the stop.
        await first.subscription.stop();
        const handledFirst = first.received.length;
        expect(handledFirst).toBeGreaterThanOrEqual(3);
        await store.append(stream, events(3), { expectedVersion: 4n });
        const second = record(store, {
          name,
          checkpoints: 'per-page',
          filter: { streamPrefix: prefix },
        });
        await eventually(
          () => second.received.length,
          (n) => handledFirst + n >= 8,
        );
        await sleep(100);
        const revisions = [...first.received, ...second.received].map((e) => e.revision);
        expect(revisions).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
        await second.subscription.stop();
      });

      it('with a read interval, still delivers every event, in order', async () => {
        const prefix = uniqueName('sub');
        const recorder = record(store, {
          name: uniqueName('interval'),
          filter: { streamPrefix: prefix },
          checkpoints: 'per-page',
          readIntervalMs: 200,
        });
        await recorder.subscription.caughtUp();
        for (let index = 0; index < 3; index += 1)
          await store.append(`${prefix}-${index}`, events(2), { expectedVersion: 'no-stream' });
        await eventually(
          () => recorder.received.length,
          (n) => n === 6,
        );
        expect(recorder.received.map((e) => e.stream)).toEqual(
          [0, 0, 1, 1, 2, 2].map((index) => `${prefix}-${index}`),
        );
        expect(() =>
          store.subscribe({
            name: uniqueName('bad'),
            readIntervalMs: -1,
            handler: () => Promise.resolve(),
          }),
        ).toThrow(/readIntervalMs must be a whole number of milliseconds >= 0, not -1/);
        await recorder.subscription.stop();
      });

      it('with concurrentStreams, handles the streams of a page at once, each in order, and stores no checkpoint past an unfinished one', async () => {
        if (target.handlesStreamsConcurrently === false) return;
        const prefix = uniqueName('sub');
        const slow = `${prefix}-slow`;
        const fast = `${prefix}-fast`;
        // Interleaved in the log, all there before the first read: one page.
        await store.append(fast, events(1), { expectedVersion: 'no-stream' });
        const slowFirst = await store.append(slow, events(1), { expectedVersion: 'no-stream' });
        await store.append(fast, events(2), { expectedVersion: 0n });
        await store.append(slow, events(1), { expectedVersion: 0n });
        const all = await readAllWithPrefix(store, prefix, 5);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let slowInFlight = 0;
        let mostSlowAtOnce = 0;
        const recorder = record(store, {
          name: uniqueName('concurrent'),
          filter: { streamPrefix: prefix },
          checkpoints: 'per-page',
          concurrentStreams: 4,
          handler: async (recorded) => {
            if (recorded.stream !== slow) return;
            slowInFlight += 1;
            mostSlowAtOnce = Math.max(mostSlowAtOnce, slowInFlight);
            if (recorded.revision === 0n) await gate;
            slowInFlight -= 1;
          },
        });
        // The fast stream is done while the slow one's first event is still in its handler.
        await eventually(
          () => recorder.received.filter((e) => e.stream === fast).length,
          (n) => n === 3,
          { what: 'the fast stream' },
        );
        await sleep(100);
        expect(recorder.received.filter((e) => e.stream === slow)).toEqual([]);
        // The checkpoint has not passed the unfinished event (the fast stream's first event,
        // before it in the log, is not stored either: the page is not done).
        expect(recorder.subscription.position() ?? 0n).toBeLessThan(slowFirst.position);
        release();
        await eventually(
          () => recorder.received.length,
          (n) => n === 5,
          { what: 'every event' },
        );
        await eventually(
          () => recorder.subscription.position() ?? 0n,
          (position) => position >= all.at(-1)!.position,
          { what: 'the checkpoint after the page' },
        );
        // Each stream's events one after another, in their order.
        expect(mostSlowAtOnce).toBe(1);
        for (const stream of [slow, fast]) {
          const revisions = recorder.received.filter((e) => e.stream === stream);
          expect(revisions.map((e) => e.revision)).toEqual(
            revisions.map((_, index) => BigInt(index)),
          );
        }
        await recorder.subscription.stop();
      });

      it('with concurrentStreams, a stream whose handler fails is retried, never skipped; stopped, a restart delivers it and what followed it again', async () => {
        if (target.handlesStreamsConcurrently === false) return;
        const prefix = uniqueName('sub');
        const failing = `${prefix}-failing`;
        const healthy = `${prefix}-healthy`;
        const first = await store.append(healthy, events(1), { expectedVersion: 'no-stream' });
        await store.append(failing, events(1), { expectedVersion: 'no-stream' });
        await store.append(healthy, events(1), { expectedVersion: 0n });
        await readAllWithPrefix(store, prefix, 3);
        const name = uniqueName('concurrent-failing');
        let attempts = 0;
        const before = record(store, {
          name,
          filter: { streamPrefix: prefix },
          checkpoints: 'per-page',
          concurrentStreams: 2,
          handler: (recorded) => {
            if (recorded.stream !== failing) return Promise.resolve();
            attempts += 1;
            return Promise.reject(new Error('the failing stream fails'));
          },
        });
        await eventually(
          () => attempts,
          (n) => n >= 2,
          { what: 'a retry of the failing event' },
        );
        await eventually(
          () => before.received.length,
          (n) => n === 2,
          { what: 'the healthy stream' },
        );
        await before.subscription.stop();
        expect(before.received.map((e) => e.stream)).toEqual([healthy, healthy]);
        expect(before.errors.length).toBeGreaterThanOrEqual(2);
        // Stopped: the handled prefix of the page is stored, nothing past the failing event.
        expect(before.subscription.position()).toBe(first.position);
        const after = record(store, {
          name,
          filter: { streamPrefix: prefix },
          checkpoints: 'per-page',
          concurrentStreams: 2,
        });
        await eventually(
          () => after.received.length,
          (n) => n === 2,
          { what: 'the redelivery' },
        );
        await sleep(100);
        expect(after.received.map((e) => [e.stream, e.revision])).toEqual(
          expect.arrayContaining([
            [failing, 0n],
            [healthy, 1n],
          ]),
        );
        expect(after.received).toHaveLength(2);
        await after.subscription.stop();
      });

      it('refuses concurrentStreams without per-page checkpoints, or below 1', () => {
        expect(() =>
          store.subscribe({
            name: uniqueName('bad'),
            concurrentStreams: 2,
            handler: () => Promise.resolve(),
          }),
        ).toThrow(/concurrentStreams above 1 needs checkpoints: 'per-page'/);
        expect(() =>
          store.subscribe({
            name: uniqueName('bad'),
            checkpoints: 'per-page',
            concurrentStreams: 0,
            handler: () => Promise.resolve(),
          }),
        ).toThrow(/concurrentStreams must be a whole number >= 1, not 0/);
      });

      it('refuses a checkpoint mode it does not know, naming it', () => {
        expect(() =>
          store.subscribe({
            name: uniqueName('bad'),
            checkpoints: 'sometimes' as 'per-page',
            handler: () => Promise.resolve(),
          }),
        ).toThrow(/checkpoints must be 'per-event' or 'per-page', not "sometimes"/);
      });

      it('lets one consumer per name be active; another takes over when it stops', async () => {
        const prefix = uniqueName('sub');
        const name = uniqueName('single');
        const one = record(store, { name, filter: { streamPrefix: prefix } });
        const two = record(store, { name, filter: { streamPrefix: prefix } });
        await store.append(`${prefix}-s`, events(4), { expectedVersion: 'no-stream' });
        await eventually(
          () => one.received.length + two.received.length,
          (n) => n >= 4,
        );
        await sleep(300);
        const [active, standby] = one.received.length > 0 ? [one, two] : [two, one];
        expect(active.received).toHaveLength(4);
        expect(standby.received).toHaveLength(0);
        await active.subscription.stop();
        await store.append(`${prefix}-s`, events(2), { expectedVersion: 3n });
        await eventually(
          () => standby.received.length,
          (n) => n >= 2,
          { timeoutMs: 15_000, what: 'takeover' },
        );
        expect(standby.received.map((e) => e.revision)).toEqual([4n, 5n]);
        await standby.subscription.stop();
      });

      it('retries an event whose handler throws, reports it, and never skips it', async () => {
        const prefix = uniqueName('sub');
        let failuresLeft = 2;
        const recorder = record(store, {
          name: uniqueName('retry'),
          filter: { streamPrefix: prefix },
          handler: (recorded) => {
            if (recorded.revision === 1n && failuresLeft > 0) {
              failuresLeft -= 1;
              return Promise.reject(new Error('projection unavailable'));
            }
            return Promise.resolve();
          },
        });
        await store.append(`${prefix}-s`, events(3), { expectedVersion: 'no-stream' });
        await eventually(
          () => recorder.received.length,
          (n) => n === 3,
        );
        expect(recorder.received.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        expect(recorder.errors).toHaveLength(2);
        expect(String(recorder.errors[0])).toContain('projection unavailable');
        await recorder.subscription.stop();
      });

      it('stop() waits for the handler in flight', async () => {
        const prefix = uniqueName('sub');
        let started = false;
        let finished = false;
        const slow = record(store, {
          name: uniqueName('stop'),
          filter: { streamPrefix: prefix },
          handler: async () => {
            started = true;
            await sleep(300);
            finished = true;
          },
        });
        await store.append(`${prefix}-s`, events(1), { expectedVersion: 'no-stream' });
        await eventually(() => started, Boolean, { what: 'handler start' });
        await slow.subscription.stop();
        expect(finished).toBe(true);
        expect(slow.received).toHaveLength(1);
      });

      it('caughtUp() of a standby that is stopped rejects with SubscriptionStoppedError', async () => {
        const prefix = uniqueName('sub');
        const name = uniqueName('standby');
        const active = record(store, { name, filter: { streamPrefix: prefix } });
        await active.subscription.caughtUp();
        const standby = record(store, { name, filter: { streamPrefix: prefix } });
        await sleep(100);
        await standby.subscription.stop();
        expect(await rejection(standby.subscription.caughtUp())).toBeInstanceOf(
          SubscriptionStoppedError,
        );
        expect(standby.subscription.position()).toBeNull();
        await active.subscription.stop();
      });
    });
  });
}
