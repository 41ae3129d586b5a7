import { describe, expect, it } from 'vitest';
import { InProcessSettlementBus, NoConsumerError } from '../src/index.js';
import { Ledger, settlementMessage } from './support.js';

describe('InProcessSettlementBus', () => {
  it('delivers every message before publish resolves', async () => {
    const bus = new InProcessSettlementBus();
    const ledger = new Ledger();
    await bus.consume(ledger.handler);
    const messages = [settlementMessage(), settlementMessage()];
    await bus.publish(messages);
    expect([...ledger.applied.keys()]).toEqual(messages.map((m) => m.messageId));
    await bus.close();
  });

  it('rejects publish when the handler fails or nobody consumes, so the outbox retries', async () => {
    const bus = new InProcessSettlementBus();
    await expect(bus.publish([settlementMessage()])).rejects.toBeInstanceOf(NoConsumerError);
    const consumer = await bus.consume(() => Promise.reject(new Error('wallet down')));
    await expect(bus.publish([settlementMessage()])).rejects.toThrow('wallet down');
    await consumer.close();
    await expect(bus.publish([settlementMessage()])).rejects.toBeInstanceOf(NoConsumerError);
  });
});
