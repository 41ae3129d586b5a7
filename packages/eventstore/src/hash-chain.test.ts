import { describe, expect, it } from 'vitest';
import { chainContent, chainHash, GENESIS_HASH, sha256Hex, verifyChain } from './hash-chain.js';
import type { RecordedEvent } from './port.js';

function chain(stream: string, contents: { type: string; data: unknown }[]): RecordedEvent[] {
  let prevHash = GENESIS_HASH;
  return contents.map((content, index) => {
    const hash = chainHash(prevHash, { ...content, metadata: { actor: 'dealer' } });
    const recorded: RecordedEvent = {
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      stream,
      type: content.type,
      data: content.data,
      metadata: { actor: 'dealer', prevHash, hash },
      revision: BigInt(index),
      position: BigInt(index + 1),
      recordedAt: new Date(0),
    };
    prevHash = hash;
    return recorded;
  });
}

const events = chain('shoe-1', [
  { type: 'ShoeShuffled', data: { decks: 8 } },
  { type: 'CardBurned', data: { card: 'AS' } },
  { type: 'CardDealt', data: { card: 'KH', to: 'player' } },
]);

describe('hash chain', () => {
  it('hashes prevHash followed by the canonical JSON of type, data and metadata', () => {
    const content = {
      type: 'T',
      data: { b: 2, a: 1 },
      metadata: { z: 1, prevHash: 'x', hash: 'y' },
    };
    expect(chainContent(content)).toBe('{"data":{"a":1,"b":2},"metadata":{"z":1},"type":"T"}');
    expect(chainHash(GENESIS_HASH, content)).toBe(sha256Hex(GENESIS_HASH + chainContent(content)));
    // A fixed vector, so another implementation (the audit package, another language) can check itself.
    expect(chainHash(GENESIS_HASH, { type: 'T', data: {} })).toBe(
      sha256Hex(`${'0'.repeat(64)}{"data":{},"metadata":{},"type":"T"}`),
    );
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('verifies an intact chain', () => {
    expect(verifyChain('shoe-1', events)).toEqual({
      ok: true,
      stream: 'shoe-1',
      events: 3,
      lastHash: events[2]!.metadata['hash'],
    });
    expect(verifyChain('empty', [])).toEqual({
      ok: true,
      stream: 'empty',
      events: 0,
      lastHash: null,
    });
  });

  it('names the first edited event', () => {
    const edited = events.map((e) => (e.revision === 1n ? { ...e, data: { card: 'AH' } } : e));
    expect(verifyChain('shoe-1', edited)).toMatchObject({
      ok: false,
      brokenAt: 1n,
      reason: 'hash does not match the event content',
      found: events[1]!.metadata['hash'],
    });
  });

  it('detects a deleted event as a missing revision', () => {
    const deleted = [events[0]!, events[2]!];
    expect(verifyChain('shoe-1', deleted)).toMatchObject({
      ok: false,
      brokenAt: 1n,
      expected: '1',
      found: '2',
    });
  });

  it('detects swapped events by their links', () => {
    const swapped = [events[0]!, { ...events[2]!, revision: 1n }, { ...events[1]!, revision: 2n }];
    expect(verifyChain('shoe-1', swapped)).toMatchObject({
      ok: false,
      brokenAt: 1n,
      reason: 'prevHash does not link to the previous event',
    });
  });

  it('detects events removed from the end against the stored head', () => {
    const head = { revision: 2n, lastHash: String(events[2]!.metadata['hash']) };
    expect(verifyChain('shoe-1', events, head)).toMatchObject({ ok: true });
    expect(verifyChain('shoe-1', events.slice(0, 2), head)).toMatchObject({
      ok: false,
      brokenAt: 2n,
    });
    expect(verifyChain('shoe-1', events, { ...head, lastHash: 'f'.repeat(64) })).toMatchObject({
      ok: false,
      brokenAt: 2n,
    });
  });
});
