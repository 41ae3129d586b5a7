import { shuffleShoe } from '@croupier/baccarat';
import type { ShoeCommand } from './shoe.decider.js';
import { shoeDecider } from './shoe.decider.js';

// What the shoe's tests (one per capability folder) start from: a shuffled rng shoe of a known
// seed, and a one-deck scanner shoe with its card reader's posts. Test data only.

export const SEED = '11'.repeat(32);
export const OTHER_SEED = '22'.repeat(32);
export const shuffle = (
  overrides: Partial<Extract<ShoeCommand, { type: 'ShuffleShoe' }>> = {},
): ShoeCommand => ({
  type: 'ShuffleShoe',
  shoeId: 't1.1',
  tableId: 't1',
  number: 1,
  decks: 8,
  cardSource: 'rng',
  shufflePolicy: 'shoe',
  burn: true,
  cutCard: 16,
  rng: { seed: SEED, sealedSeed: 'sealed' },
  ...overrides,
});
export const order = shuffleShoe(Buffer.from(SEED, 'hex'), { shoeId: 't1.1', decks: 8 });
export const shuffled = () => shoeDecider.decide(shuffle(), shoeDecider.initialState());
export const scannerShoe = () =>
  shoeDecider.decide(
    shuffle({ cardSource: 'scanner', decks: 1, cutCard: 16, rng: null }),
    shoeDecider.initialState(),
  );
export const scan = (card: string, index: number, hand: 'player' | 'banker'): ShoeCommand => ({
  type: 'DrawScannedCard',
  roundId: 't1.1.1',
  roundNumber: 1,
  index,
  card: card as never,
  hand,
});
