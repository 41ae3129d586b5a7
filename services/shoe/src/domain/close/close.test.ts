import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import { shoeDecider } from '../shoe.decider.js';
import { SEED, shuffled } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: closing', () => {
  it('will not close a shoe as completed before its cut card', () => {
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'completed',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SHOE_NOT_FINISHED' });
  });

  it('will not close a shoe as exhausted while it holds a card', () => {
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'exhausted',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SHOE_NOT_FINISHED' });
  });
});
