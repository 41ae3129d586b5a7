import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import { shoeDecider } from '../shoe.decider.js';
import { scan, scannerShoe } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: scanned cards', () => {
  it('rejects a card the shoe cannot hold any more', () => {
    const history = [
      ...scannerShoe(),
      ...shoeDecider.decide(
        { type: 'BurnScannedCard', shownCard: 'AS' },
        spec.stateAfter(scannerShoe()),
      ),
    ];
    // One deck, and the ace of spades was the burn card.
    spec
      .given(history)
      .when(scan('AS', 0, 'player'))
      .thenThrows({ code: 'IMPOSSIBLE_CARD' });
    const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
    spec
      .given([...history, first!])
      .when(scan('KD', 1, 'banker'))
      .thenThrows({ code: 'IMPOSSIBLE_CARD' });
    spec
      .given([...history, first!])
      .when(scan('KD', 0, 'player'))
      .then([]); // the same post, retried
  });
});
