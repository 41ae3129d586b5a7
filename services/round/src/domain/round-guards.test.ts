import type { RoundEvent, RoundRules } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
import {
  evolveRound,
  initialRoundState,
  nextScannedCard,
  requireCorrectable,
  requireTakesCards,
  roundDecider,
  type RoundState,
} from './round.decider.js';

/** The guards the round service asks before another stream (the shoe's) is touched. */
const RULES: RoundRules = {
  bets: { player: { min: 100, max: 10_000, maxRound: null } },
  playerBankerDifferenceLimit: null,
  bankerModes: ['commission'],
  commission: 'deducted',
  tieOdds: 8,
  seats: null,
};
const ROUND = 't1.1.1';
const opened = (cardSource: 'rng' | 'scanner'): RoundEvent => ({
  type: 'RoundOpened',
  data: {
    roundId: ROUND,
    tableId: 't1',
    shoeId: 't1.1',
    number: 1,
    cardSource,
    currency: 'EUR',
    rules: RULES,
    paytableId: 'a'.repeat(64),
    dealer: { dealerId: null, shiftId: '00000000-0000-4000-8000-000000000001' },
  },
});
const closed: RoundEvent = { type: 'BettingClosed', data: { roundId: ROUND } };
const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'check' } };
const voided: RoundEvent = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'power cut' } };
const dealt = (hand: 'player' | 'banker', card: string, shoePosition: number): RoundEvent =>
  ({ type: 'CardDealt', data: { roundId: ROUND, hand, card, shoePosition } }) as RoundEvent;
/** Player 9C KH (9), Banker 2D 3S (5): a natural, so no third card. */
const natural = [
  dealt('player', '9C', 10),
  dealt('banker', '2D', 11),
  dealt('player', 'KH', 12),
  dealt('banker', '3S', 13),
];
const round = (...events: RoundEvent[]): RoundState =>
  events.reduce(evolveRound, initialRoundState());
const refusal = (check: () => unknown) => {
  try {
    check();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'none';
};

describe('requireTakesCards', () => {
  it('lets a closed round of the same source take cards', () => {
    expect(
      refusal(() => {
        requireTakesCards(round(opened('rng'), closed), 'rng');
      }),
    ).toBe('none');
  });

  it('refuses in the order clients see: source, betting, paused, voided', () => {
    expect(
      refusal(() => {
        requireTakesCards(initialRoundState(), 'rng');
      }),
    ).toBe('ROUND_NOT_FOUND');
    expect(
      refusal(() => {
        requireTakesCards(round(opened('scanner'), closed), 'rng');
      }),
    ).toBe('WRONG_CARD_SOURCE');
    // A paused round still betting is told to close betting first.
    expect(
      refusal(() => {
        requireTakesCards(round(opened('rng'), paused), 'rng');
      }),
    ).toBe('ROUND_NOT_DEALING');
    expect(
      refusal(() => {
        requireTakesCards(round(opened('rng'), closed, paused), 'rng');
      }),
    ).toBe('ROUND_PAUSED');
    expect(
      refusal(() => {
        requireTakesCards(round(opened('rng'), closed, voided), 'rng');
      }),
    ).toBe('ROUND_FINISHED');
  });
});

describe('nextScannedCard', () => {
  it('gives the hand the third-card rule wants and the card’s place in the round', () => {
    const state = round(opened('scanner'), closed, dealt('player', '9C', 10));
    expect(nextScannedCard(state)).toEqual({ hand: 'banker', index: 1 });
  });

  it('refuses a card the rule does not want', () => {
    expect(refusal(() => nextScannedCard(round(opened('scanner'), closed, ...natural)))).toBe(
      'INVALID_DEAL',
    );
  });
});

describe('requireCorrectable', () => {
  const scanned = round(opened('scanner'), closed, ...natural);

  it('refuses what decide refuses, before the shoe records the correction', () => {
    for (const [state, correction] of [
      [scanned, { shoePosition: 99, card: '5C', reason: 'misread' }],
      [
        round(opened('scanner'), closed, ...natural, voided),
        { shoePosition: 10, card: '5C', reason: 'x' },
      ],
      [round(opened('rng'), closed, ...natural), { shoePosition: 10, card: '5C', reason: 'x' }],
    ] as const) {
      const command = { type: 'CorrectCard', ...correction } as const;
      const code = refusal(() => requireCorrectable(state, correction));
      expect(code).not.toBe('none');
      expect(refusal(() => roundDecider.decide(command, state))).toBe(code);
    }
  });

  it('returns the card being replaced', () => {
    const correction = { shoePosition: 13, card: '4S', reason: 'misread' } as const;
    expect(requireCorrectable(scanned, correction)).toEqual({ card: '3S', shoePosition: 13 });
  });
});
