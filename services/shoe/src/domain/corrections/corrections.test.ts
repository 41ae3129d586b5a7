import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { shoeDecider, type ShoeCommand } from '../shoe.decider.js';
import { scan, scannerShoe } from '../shoe.fixtures.js';

const spec = deciderSpecification(shoeDecider);

describe('shoe: corrections', () => {
  it('corrects a misread card, keeping the composition right', () => {
    const history = [
      ...scannerShoe(),
      ...shoeDecider.decide(
        { type: 'BurnScannedCard', shownCard: 'AS' },
        spec.stateAfter(scannerShoe()),
      ),
    ];
    const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
    const correct: ShoeCommand = {
      type: 'CorrectCard',
      roundId: 't1.1.1',
      position: 2,
      card: 'QD',
      reason: 'reader misread',
    };
    const [corrected] = shoeDecider.decide(correct, spec.stateAfter([...history, first!]));
    expect(corrected).toMatchObject({
      type: 'CardCorrected',
      data: { previous: 'KD', card: 'QD', position: 2 },
    });
    // KD is back in the shoe, QD is out.
    const after = spec.stateAfter([...history, first!, corrected!]);
    expect(after.seen.get('KD')).toBe(0);
    expect(after.seen.get('QD')).toBe(1);
  });
});
