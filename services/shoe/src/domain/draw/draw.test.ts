import type { ShoeEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { shoeDecider } from '../shoe.decider.js';
import { order, OTHER_SEED, SEED, shuffled } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: drawing rng rounds', () => {
  it('draws a round from the next cards of the committed order, once', () => {
    const history = shuffled();
    const start = spec.stateAfter(history).position;
    const [drawn] = shoeDecider.decide(
      { type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED },
      spec.stateAfter(history),
    );
    const cards = (drawn as Extract<ShoeEvent, { type: 'CardsDrawn' }>).data.cards;
    expect(cards.map((c) => c.card)).toEqual(order.slice(start, start + cards.length));
    expect(cards.map((c) => c.position)).toEqual(cards.map((_, i) => start + i));
    expect(cards.slice(0, 4).map((c) => c.hand)).toEqual(['player', 'banker', 'player', 'banker']);
    spec
      .given([...history, drawn!])
      .when({ type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED })
      .then([]);
  });

  it('refuses a seed that does not match the commitment', () => {
    spec
      .given(shuffled())
      .when({ type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: OTHER_SEED })
      .thenThrows({ code: 'SEED_MISMATCH' });
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'operator',
        seed: OTHER_SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SEED_MISMATCH' });
  });

  it('notes the cut card and the last round, then refuses rounds after it', () => {
    let history = shuffled();
    let round = 0;
    while (spec.stateAfter(history).lastRoundNumber === null) {
      round++;
      history = [
        ...history,
        ...shoeDecider.decide(
          { type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED },
          spec.stateAfter(history),
        ),
      ];
    }
    const cut = history.find((e) => e.type === 'CutCardReached') as Extract<
      ShoeEvent,
      { type: 'CutCardReached' }
    >;
    expect(cut.data.position).toBe(400);
    expect(cut.data.lastRoundNumber - cut.data.roundNumber).toBeLessThanOrEqual(1);
    const last = spec.stateAfter(history).lastRoundNumber!;
    for (round++; round <= last; round++) {
      history = [
        ...history,
        ...shoeDecider.decide(
          { type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED },
          spec.stateAfter(history),
        ),
      ];
    }
    spec
      .given(history)
      .when({ type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED })
      .thenThrows({ code: 'SHOE_FINISHED' });
    const closed = shoeDecider.decide(
      {
        type: 'CloseShoe',
        reason: 'completed',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      },
      spec.stateAfter(history),
    );
    expect(closed).toMatchObject([{ type: 'ShoeClosed', data: { seed: SEED, roundsDealt: last } }]);
  });
});
