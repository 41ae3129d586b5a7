import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { CutCardWatch } from '../src/index.js';

const metadata = {
  correlationId: 'c-1',
  causationId: null,
  actor: { id: 'dan', role: 'dealer' },
  occurredAt: '2026-12-02T10:00:00.000Z',
  schemaVersion: 1,
};
let position = 0n;

/** An event of shoe `salon.1` (or another shoe's stream), numbered in the log's order. */
function shoeEvent(type: string, data: Record<string, unknown>, shoeId = 'salon.1'): RecordedEvent {
  position++;
  return {
    id: crypto.randomUUID(),
    stream: `shoe-${shoeId}`,
    type,
    data: { shoeId, ...data },
    metadata,
    revision: position,
    position,
    recordedAt: new Date('2026-12-02T10:00:00.000Z'),
  };
}

const shuffled = (cardSource: 'rng' | 'scanner', shoeId = 'salon.1') =>
  shoeEvent(
    'ShoeShuffled',
    {
      tableId: 'salon',
      number: 1,
      decks: 1,
      cardSource,
      shufflePolicy: 'shoe',
      burn: false,
      cutCardIndex: 38,
      algorithm: null,
      commitment: null,
      sealedSeed: null,
    },
    shoeId,
  );
const drawn = (roundNumber: number, positions: number[], shoeId = 'salon.1') =>
  shoeEvent(
    'CardsDrawn',
    {
      roundId: `${shoeId}.${roundNumber}`,
      roundNumber,
      cards: positions.map((at, index) => ({
        position: at,
        card: (['AS', 'KD', '5C', '9H', '2S', 'QC'] as const)[index],
        hand: index % 2 === 0 ? 'player' : 'banker',
      })),
    },
    shoeId,
  );

describe('the cut-card watch (ADR 0043)', () => {
  it('alerts once, at the first scanned card from behind the cut card, when none was reported', () => {
    const watch = new CutCardWatch();
    expect(watch.observe(shuffled('scanner'))).toBeNull();
    expect(watch.observe(drawn(1, [33, 34, 35, 36, 37]))).toBeNull();
    const passing = drawn(2, [38, 39]);
    const alert = watch.observe(passing);
    expect(alert).toMatchObject({
      category: 'cut-card-passed',
      type: 'CardsDrawn',
      tableId: 'salon',
      stream: 'shoe-salon.1',
      revision: String(passing.revision),
      position: String(passing.position),
      actor: { id: 'dan', role: 'dealer' },
      occurredAt: '2026-12-02T10:00:00.000Z',
    });
    expect(alert!.summary).toContain('AS at position 38 in round 2');
    // Once per shoe.
    expect(watch.observe(drawn(2, [40]))).toBeNull();
    expect(watch.observe(drawn(3, [41, 42, 43, 44]))).toBeNull();
  });

  it('says nothing once the dealer reported the cut card, on an rng shoe, or after the close', () => {
    const reported = new CutCardWatch();
    reported.observe(shuffled('scanner'));
    reported.observe(drawn(1, [30, 31, 32, 33]));
    reported.observe(
      shoeEvent('CutCardReached', { position: 34, roundNumber: 2, lastRoundNumber: 3 }),
    );
    expect(reported.observe(drawn(2, [34, 35, 36, 37, 38]))).toBeNull();

    const rng = new CutCardWatch();
    rng.observe(shuffled('rng'));
    expect(rng.observe(drawn(1, [37, 38, 39, 40]))).toBeNull();

    // Another shoe's alert is its own; a closed shoe is watched no more.
    const two = new CutCardWatch();
    two.observe(shuffled('scanner', 'salon.1'));
    two.observe(shuffled('scanner', 'salon.2'));
    expect(two.observe(drawn(1, [38], 'salon.2'))?.stream).toBe('shoe-salon.2');
    two.observe(
      shoeEvent('ShoeClosed', {
        reason: 'operator',
        roundsDealt: 0,
        seed: null,
        digest: { algorithm: 'sha256/jcs', streams: [], value: 'a'.repeat(64) },
      }),
    );
    expect(two.observe(drawn(1, [38]))).toBeNull();
  });
});
