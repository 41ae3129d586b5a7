import { randomUUID } from 'node:crypto';
import { changedRootOf, replayCheckpoints, VerdictBuilder } from '@croupier/audit';
import { CommandHandler, DEFAULT_RETRY } from '@croupier/application';
import { NOTARY_STREAM } from '@croupier/contracts';
import { MemoryEventStore, type EventStore } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointSigner, loadCheckpoint, Notary } from '../src/index.js';

/** The notary on the in-memory store: what it anchors, how it chains, how two of them race. */
let store: EventStore;
const signer = CheckpointSigner.fromSecret('notary-test-secret-0123456789abcdef0123');

const notary = (maxHeads?: number) =>
  new Notary(store, new CommandHandler(store, { retry: DEFAULT_RETRY }), signer, {
    intervalMs: 0,
    ...(maxHeads === undefined ? {} : { maxHeads }),
  });

async function append(stream: string, count: number): Promise<void> {
  await store.append(
    stream,
    Array.from({ length: count }, (_, i) => ({ id: randomUUID(), type: 'Noted', data: { i } })),
    { expectedVersion: 'any' },
  );
}

/** The notary stream replayed by the audit: no finding, and the heads as of the last checkpoint. */
async function replayed() {
  const verdict = new VerdictBuilder();
  const chain = replayCheckpoints(await store.readStream(NOTARY_STREAM), verdict);
  expect(verdict.findings).toEqual([]);
  return chain;
}

beforeEach(() => {
  store = new MemoryEventStore();
});
afterEach(async () => {
  await store.close();
});

describe('the notary', () => {
  it('records nothing while nothing moved, then the head of every stream that did', async () => {
    expect(await notary().checkpoint()).toBeNull();
    await append('wallet-a', 3);
    await append('round-t.1.1', 2);
    const first = (await notary().checkpoint())!;
    expect(first.sequence).toBe(1);
    expect(first.changed.map((h) => [h.stream, h.revision])).toEqual([
      ['wallet-a', '2'],
      ['round-t.1.1', '1'],
    ]);
    const [last] = await store.readStream('wallet-a', { direction: 'backwards', limit: 1 });
    expect(first.changed[0]!.hash).toBe(last!.metadata['hash']);
    expect(first.changedRoot).toBe(changedRootOf(first.changed));
    // Its own checkpoint is not a movement to anchor.
    expect(await notary().checkpoint()).toBeNull();
    await append('wallet-a', 1);
    const second = (await notary().checkpoint())!;
    expect(second).toMatchObject({ sequence: 2, previous: first.head, count: 1 });
    const chain = await replayed();
    expect(chain.heads.get('wallet-a')?.revision).toBe(3n);
    expect(chain.heads.get('round-t.1.1')?.revision).toBe(1n);
    expect(await loadCheckpoint(store, 'latest')).toMatchObject({
      format: 'croupier-checkpoint/1',
      sequence: 2,
      head: second.head,
      signer: { keyId: signer.keyId },
    });
    expect(await loadCheckpoint(store, 3)).toBeNull();
  });

  it('takes a long backlog in several checkpoints of bounded size', async () => {
    for (let i = 0; i < 25; i++) await append(`wallet-p${i}`, 1);
    await notary(10).checkpoint();
    const recorded = await store.readStream(NOTARY_STREAM);
    expect(recorded.map((e) => (e.data as { count: number }).count)).toEqual([10, 10, 5]);
    expect((await replayed()).heads.size).toBe(25);
  });

  it('chains without a gap or a double when two processes record at once', async () => {
    const a = notary();
    const b = notary();
    for (let round = 0; round < 5; round++) {
      await append(`wallet-r${round}`, 2);
      await Promise.all([a.checkpoint(), b.checkpoint()]);
    }
    const recorded = await store.readStream(NOTARY_STREAM);
    expect(recorded.map((e) => (e.data as { sequence: number }).sequence)).toEqual([1, 2, 3, 4, 5]);
    expect((await replayed()).heads.size).toBe(5);
  });
});
