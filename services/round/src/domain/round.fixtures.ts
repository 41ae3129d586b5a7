/** What the round decider's tests share: a round opened under these rules, bets and cards. */
import type { DrawnCard, RoundEvent, RoundRules } from '@croupier/contracts';
import type { RoundCommand } from './round.state.js';

export const RULES: RoundRules = {
  bets: {
    player: { min: 100, max: 10_000, maxRound: null },
    banker: { min: 100, max: 10_000, maxRound: null },
    tie: { min: 100, max: 1_000, maxRound: null },
    lucky_six: { min: 100, max: 1_000, maxRound: 50 },
  },
  playerBankerDifferenceLimit: null,
  bankerModes: ['commission', 'no_commission'],
  commission: 'deducted',
  tieOdds: 8,
  seats: null,
};
export const ROUND = 't1.1.1';
export const opened = (
  overrides: Partial<Extract<RoundEvent, { type: 'RoundOpened' }>['data']> = {},
): RoundEvent => ({
  type: 'RoundOpened',
  data: {
    roundId: ROUND,
    tableId: 't1',
    shoeId: 't1.1',
    number: 1,
    cardSource: 'rng',
    currency: 'EUR',
    rules: RULES,
    paytableId: 'a'.repeat(64),
    dealer: { dealerId: null, shiftId: '00000000-0000-4000-8000-000000000001' },
    ...overrides,
  },
});
export const BET_A = '00000000-0000-4000-8000-00000000000a';
export const BET_B = '00000000-0000-4000-8000-00000000000b';
export const placed = (
  betId: string,
  type: 'player' | 'banker' | 'tie',
  amount: number,
  playerId = 'alice',
): RoundEvent => ({
  type: 'BetPlaced',
  data: {
    roundId: ROUND,
    betId,
    playerId,
    type,
    amount,
    bankerMode: type === 'banker' ? 'commission' : null,
    seat: null,
    rebetOf: null,
  },
});
export const closed: RoundEvent = { type: 'BettingClosed', data: { roundId: ROUND } };
export const started: RoundEvent = { type: 'DealStarted', data: { roundId: ROUND } };
export const place = (
  bets: { betId: string; type: string; amount: unknown }[],
  playerId = 'alice',
): RoundCommand => ({
  type: 'PlaceBets',
  playerId,
  bets,
  rebetOf: null,
});
export const naturalCards: DrawnCard[] = [
  { position: 10, card: '9C', hand: 'player' },
  { position: 11, card: '2D', hand: 'banker' },
  { position: 12, card: 'KH', hand: 'player' },
  { position: 13, card: '3S', hand: 'banker' },
];
export const natural: RoundCommand = { type: 'DealCards', cards: naturalCards };

export const released = (betId: string, amount: number, playerId = 'alice'): RoundEvent => ({
  type: 'StakeReleased',
  data: { roundId: ROUND, playerId, betId, amount, reason: 'bet-rejected' },
});
export const release = (betId: string, amount: number, playerId = 'alice'): RoundCommand => ({
  type: 'ReleaseStakes',
  playerId,
  stakes: [{ betId, amount }],
  reason: 'bet-rejected',
});
