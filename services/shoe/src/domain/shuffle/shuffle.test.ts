import { burnCount } from '@croupier/baccarat';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { shoeDecider } from '../shoe.decider.js';
import { order, scan, scannerShoe, shuffled } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: shuffling and loading', () => {
  it('commits to the seed and burns by the shown card', () => {
    const events = shuffled();
    const burned = burnCount(order[0]!);
    expect(events).toHaveLength(2 + burned);
    expect(events[0]).toMatchObject({
      type: 'ShoeShuffled',
      data: { cutCardIndex: 400, sealedSeed: 'sealed' },
    });
    expect(events[1]).toEqual({
      type: 'CardBurned',
      data: { shoeId: 't1.1', position: 0, card: order[0], shown: true },
    });
    expect(spec.stateAfter(events).position).toBe(1 + burned);
  });

  it('waits for the burn card, then burns the rest face down', () => {
    spec
      .given(scannerShoe())
      .when(scan('AS', 0, 'player'))
      .thenThrows({ code: 'INVALID_DEAL' });
    const burned = shoeDecider.decide(
      { type: 'BurnScannedCard', shownCard: '3H' },
      spec.stateAfter(scannerShoe()),
    );
    expect(burned.map((e) => e.type === 'CardBurned' && e.data.card)).toEqual([
      '3H',
      null,
      null,
      null,
    ]);
  });
});
