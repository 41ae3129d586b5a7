import { randomUUID } from 'node:crypto';
import { DomainError } from '@croupier/contracts';
import { MemoryEventStore, type RecordedEvent } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandHandler } from '../src/command-handler/index.js';
import { systemContext } from '../src/context.js';
import { Parking, subscribeParking } from '../src/parking.js';

/** A consumer of `item-*` streams that refuses some events, for parking's semantics (ADR 0035). */
describe('parking: what a subscription cannot handle is set aside, and the others go on', () => {
  let store: MemoryEventStore;
  let parking: Parking;
  const handled: string[] = [];
  const context = systemContext('test');

  beforeEach(() => {
    store = new MemoryEventStore();
    parking = new Parking(new CommandHandler(store), { attempts: 3 });
    handled.length = 0;
  });
  afterEach(async () => {
    await store.close();
  });

  async function append(stream: string, kind: string): Promise<RecordedEvent> {
    await store.append(stream, [{ id: randomUUID(), type: 'Item', data: { kind }, metadata: {} }], {
      expectedVersion: 'any',
    });
    return (await store.readStream(stream)).at(-1)!;
  }

  /** Waits for the subscription to reach the log's head. */
  async function drained(name: string, handler: (event: RecordedEvent) => Promise<void>) {
    const subscription = subscribeParking(store, parking, 'settlement', {
      name,
      filter: { streamPrefix: 'item-' },
      handler,
    });
    await subscription.caughtUp();
    await subscription.stop();
  }

  it('parks a refusal for good at once, and a failure that may pass after its attempts', async () => {
    const refused = await append('item-1', 'refused');
    const flaky = await append('item-2', 'flaky');
    await append('item-3', 'fine');
    let flakyFailures = 0;
    await drained('parking-test', (event) => {
      const { kind } = event.data as { kind: string };
      if (kind === 'refused')
        return Promise.reject(new DomainError('BALANCE_LIMIT', 'past the limit'));
      if (kind === 'flaky') {
        flakyFailures++;
        return Promise.reject(new Error('the store hiccuped'));
      }
      handled.push(event.stream);
      return Promise.resolve();
    });
    // The rest went on; the refusal was tried once, the failure as many times as allowed.
    expect(handled).toEqual(['item-3']);
    expect(flakyFailures).toBe(3);
    expect(await parking.state('settlement', refused.id)).toMatchObject({
      status: 'parked',
      parked: { code: 'BALANCE_LIMIT', attempts: 1, message: { stream: 'item-1' } },
    });
    expect(await parking.state('settlement', flaky.id)).toMatchObject({
      status: 'parked',
      parked: { code: 'Error', attempts: 3, detail: 'the store hiccuped' },
    });
  });

  it('retries when asked: parked again while refused, resolved once applied', async () => {
    const event = await append('item-1', 'refused');
    let fixed = false;
    const handler = (recorded: RecordedEvent) => {
      if (!fixed) return Promise.reject(new DomainError('BALANCE_LIMIT', 'past the limit'));
      handled.push(recorded.stream);
      return Promise.resolve();
    };
    await drained('parking-test', handler);
    const retries = parking.startEventRetries(store, 'settlement', () => undefined);
    const settle = async (status: string) => {
      for (let attempt = 0; attempt < 2_000; attempt++) {
        const state = await parking.state('settlement', event.id);
        if (state.status === status) return state;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`never ${status}`);
    };
    try {
      await parking.requestRetry('settlement', event.id, context);
      // Asked twice before it was tried: one retry owed, not two.
      await parking.requestRetry('settlement', event.id, context);
      const again = await settle('parked');
      expect(again.parked?.attempts).toBe(2);
      fixed = true;
      await parking.requestRetry('settlement', event.id, context);
      await settle('resolved');
      expect(handled).toEqual(['item-1']);
      await expect(parking.requestRetry('settlement', event.id, context)).rejects.toMatchObject({
        code: 'NOT_PARKED',
      });
      await expect(parking.requestRetry('settlement', 'nothing', context)).rejects.toMatchObject({
        code: 'PARKED_MESSAGE_NOT_FOUND',
      });
    } finally {
      await retries.stop();
    }
  });
});
