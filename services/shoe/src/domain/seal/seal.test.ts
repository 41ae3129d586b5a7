import type { ShoeEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { shoeDecider, type ShoeCommand } from '../shoe.decider.js';
import { scan, scannerShoe, SEED, shuffled } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: sealing a round for its void', () => {
  it('seals a round for its void, naming the cards it drew, and draws no more for it', () => {
    const history = shuffled();
    const draw: ShoeCommand = { type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED };
    const drawn = shoeDecider.decide(draw, spec.stateAfter(history));
    const cards = (drawn[0] as Extract<ShoeEvent, { type: 'CardsDrawn' }>).data.cards;
    const seal: ShoeCommand = { type: 'SealRound', roundId: 't1.1.1' };
    const sealed: ShoeEvent = {
      type: 'RoundSealed',
      data: { shoeId: 't1.1', roundId: 't1.1.1', cards },
    };
    spec
      .given([...history, ...drawn])
      .when(seal)
      .then([sealed]);
    spec
      .given([...history, ...drawn, sealed])
      .when(seal)
      .then([]);
    spec
      .given([...history, ...drawn, sealed])
      .when(draw)
      .thenThrows({ code: 'ROUND_FINISHED' });
    // Sealed before it drew: it never will.
    const empty: ShoeEvent = {
      type: 'RoundSealed',
      data: { shoeId: 't1.1', roundId: 't1.1.1', cards: [] },
    };
    spec.given(history).when(seal).then([empty]);
    spec
      .given([...history, empty])
      .when(draw)
      .thenThrows({ code: 'ROUND_FINISHED' });
    // The next round draws on.
    spec
      .given([...history, empty])
      .when({ type: 'DrawRound', roundId: 't1.1.2', roundNumber: 2, seed: SEED })
      .then(
        shoeDecider.decide(
          { ...draw, roundId: 't1.1.2', roundNumber: 2 },
          spec.stateAfter(history),
        ),
      );
  });

  it('takes no scanned card for a round sealed for its void', () => {
    const history = [
      ...scannerShoe(),
      ...shoeDecider.decide(
        { type: 'BurnScannedCard', shownCard: 'AS' },
        spec.stateAfter(scannerShoe()),
      ),
    ];
    const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
    const [sealed] = shoeDecider.decide(
      { type: 'SealRound', roundId: 't1.1.1' },
      spec.stateAfter([...history, first!]),
    );
    expect(sealed).toMatchObject({ type: 'RoundSealed', data: { cards: [{ card: 'KD' }] } });
    spec
      .given([...history, first!, sealed!])
      .when(scan('QD', 1, 'banker'))
      .thenThrows({ code: 'ROUND_FINISHED' });
  });
});
