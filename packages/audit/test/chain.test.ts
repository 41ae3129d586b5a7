import { chainHash, GENESIS_HASH, type RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { VerdictBuilder, verifyStreamChain } from '../src/index.js';

/** A stream of `count` events chained the way the store chains them. */
function chained(stream: string, count: number): RecordedEvent[] {
  let prevHash = GENESIS_HASH;
  return Array.from({ length: count }, (_, index) => {
    const content = { type: 'Noted', data: { index }, metadata: { actor: 'tester' } };
    const hash = chainHash(prevHash, content);
    const event: RecordedEvent = {
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      stream,
      type: content.type,
      data: content.data,
      metadata: { ...content.metadata, prevHash, hash },
      revision: BigInt(index),
      position: BigInt(100 + index),
      recordedAt: new Date(0),
    };
    prevHash = hash;
    return event;
  });
}

function check(events: RecordedEvent[], excerpt = false) {
  const verdict = new VerdictBuilder();
  const intact = verifyStreamChain('s-1', events, verdict, { excerpt });
  return {
    intact,
    found: verdict.findings.map((f) => `${f.code}@${f.revision ?? '-'}`),
    verdict,
  };
}

describe('verifyStreamChain', () => {
  it('passes an untouched stream', () => {
    expect(check(chained('s-1', 5))).toMatchObject({ intact: true, found: [] });
  });

  it('names an edited event by its revision, with the recomputed and stored hashes', () => {
    const events = chained('s-1', 5);
    events[2] = { ...events[2]!, data: { index: 99 } };
    const { found, verdict } = check(events);
    expect(found).toEqual(['EVENT_EDITED@2']);
    expect(verdict.findings[0]!.found).toBe(events[2].metadata['hash']);
    expect(verdict.findings[0]!.expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names a deleted event, and a range of them', () => {
    const events = chained('s-1', 6);
    expect(check(events.filter((e) => e.revision !== 3n)).found).toEqual(['EVENT_MISSING@3']);
    const range = check(events.filter((e) => e.revision < 1n || e.revision > 3n));
    expect(range.found).toEqual(['EVENT_MISSING@1']);
    expect(range.verdict.findings[0]!.message).toBe('revisions 1 to 3 are missing');
  });

  it('names events whose revisions were swapped as reordered', () => {
    const events = chained('s-1', 5);
    const [two, three] = [events[2]!, events[3]!];
    events[2] = { ...three, revision: 2n };
    events[3] = { ...two, revision: 3n };
    // Revision 4 still follows the content now stored at revision 2: that is named too. The
    // rows kept their places in the global log, which no longer follow the revisions either.
    expect(check(events).found).toEqual([
      'POSITION_INVALID@3',
      'EVENT_REORDERED@2',
      'EVENT_REORDERED@3',
      'EVENT_REORDERED@4',
    ]);
  });

  it('names events stored out of revision order', () => {
    const events = chained('s-1', 4);
    const swapped = [events[0]!, events[2]!, events[1]!, events[3]!];
    expect(check(swapped).found).toEqual(['EVENT_REORDERED@1']);
  });

  it('names a link to nothing in the stream as broken', () => {
    const events = chained('s-1', 3);
    events[0] = { ...events[0]!, metadata: { ...events[0]!.metadata, prevHash: 'f'.repeat(64) } };
    // The edited prevHash is hashed content too: revision 0 no longer hashes to its hash either.
    expect(check(events).found).toEqual(['EVENT_EDITED@0', 'CHAIN_BROKEN@0']);
  });

  it('names a row moved in the global log, which the hash does not cover', () => {
    const events = chained('s-1', 4);
    events[1] = { ...events[1]!, position: 999n };
    const { found, verdict } = check(events);
    expect(found).toEqual(['POSITION_INVALID@2']);
    expect(verdict.findings[0]).toMatchObject({ expected: 'a position after 999', found: '102' });
    // In an excerpt too: positions follow revisions across the whole stream.
    expect(check([events[0]!, events[2]!], true).found).toEqual([]);
    expect(check([events[1], events[3]!], true).found).toEqual(['POSITION_INVALID@3']);
  });

  it('names an event listed under another stream than the one it names', () => {
    const events = chained('s-1', 3);
    events[1] = { ...events[1]!, stream: 's-2' };
    expect(check(events).found).toEqual(['WRONG_STREAM@1']);
  });

  it('checks an excerpt only where revisions are consecutive', () => {
    const events = chained('s-1', 8);
    const excerpt = [events[2]!, events[3]!, events[6]!];
    expect(check(excerpt, true)).toMatchObject({ intact: true, found: [] });
    excerpt[1] = { ...excerpt[1]!, data: { index: 42 } };
    expect(check(excerpt, true).found).toEqual(['EVENT_EDITED@3']);
  });
});

describe('VerdictBuilder', () => {
  it('passes what ran, fails what has findings, skips what never ran, in the order asked', () => {
    const verdict = new VerdictBuilder();
    verdict.pass('outcome');
    verdict.skip('digest', 'the shoe is not closed');
    verdict.pass('payouts');
    verdict.fail('payouts', 'PAYOUT_MISMATCH', { stream: 'round-t.1.1', revision: 7n }, 'wrong', {
      expected: 195,
      found: 200,
    });
    const result = verdict.verdict(['payouts', 'outcome', 'digest']);
    expect(result.ok).toBe(false);
    expect(result.checks.map((c) => [c.check, c.status, c.detail])).toEqual([
      ['payouts', 'fail', null],
      ['outcome', 'pass', null],
      ['digest', 'skip', 'the shoe is not closed'],
    ]);
    expect(result.findings[0]).toMatchObject({ revision: '7', expected: '195', found: '200' });
  });
});
