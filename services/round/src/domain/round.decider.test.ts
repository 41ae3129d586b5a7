import type { DrawnCard, RoundEvent, RoundRules } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { roundDecider, type RoundCommand } from './round.decider.js';

const spec = deciderSpecification(roundDecider);
const RULES: RoundRules = {
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
const ROUND = 't1.1.1';
const opened = (
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
const BET_A = '00000000-0000-4000-8000-00000000000a';
const BET_B = '00000000-0000-4000-8000-00000000000b';
const placed = (
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
const closed: RoundEvent = { type: 'BettingClosed', data: { roundId: ROUND } };
const started: RoundEvent = { type: 'DealStarted', data: { roundId: ROUND } };
const place = (
  bets: { betId: string; type: string; amount: unknown }[],
  playerId = 'alice',
): RoundCommand => ({
  type: 'PlaceBets',
  playerId,
  bets,
  rebetOf: null,
});
const naturalCards: DrawnCard[] = [
  { position: 10, card: '9C', hand: 'player' },
  { position: 11, card: '2D', hand: 'banker' },
  { position: 12, card: 'KH', hand: 'player' },
  { position: 13, card: '3S', hand: 'banker' },
];
const natural: RoundCommand = { type: 'DealCards', cards: naturalCards };

const released = (betId: string, amount: number, playerId = 'alice'): RoundEvent => ({
  type: 'StakeReleased',
  data: { roundId: ROUND, playerId, betId, amount, reason: 'bet-rejected' },
});
const release = (betId: string, amount: number, playerId = 'alice'): RoundCommand => ({
  type: 'ReleaseStakes',
  playerId,
  stakes: [{ betId, amount }],
  reason: 'bet-rejected',
});

describe('round decider', () => {
  it("releases a debited stake it does not hold as the player's bet, and then never takes that bet", () => {
    spec
      .given([opened(), closed])
      .when(release(BET_A, 500))
      .then([released(BET_A, 500)]);
    // Released once: releasing again records nothing.
    spec
      .given([opened(), closed, released(BET_A, 500)])
      .when(release(BET_A, 500))
      .then([]);
    // A bet the player placed is the round's to close: its stake is not released.
    spec
      .given([opened(), placed(BET_A, 'player', 500)])
      .when(release(BET_A, 500))
      .then([]);
    // Another player's stake under the same id is not that bet's: it is released.
    spec
      .given([opened(), placed(BET_A, 'player', 500)])
      .when(release(BET_A, 500, 'bob'))
      .then([released(BET_A, 500, 'bob')]);
    // Once released, a bet under the id is refused, even while betting is open.
    spec
      .given([opened(), released(BET_A, 500)])
      .when(place([{ betId: BET_A, type: 'player', amount: 500 }]))
      .thenThrows({ code: 'ID_CONFLICT', details: { field: 'betId', betIds: [BET_A] } });
  });

  it('places a valid bet', () => {
    spec
      .given([opened()])
      .when(place([{ betId: BET_A, type: 'banker', amount: 500 }]))
      .then([placed(BET_A, 'banker', 500)]);
  });

  it('refuses a double submit, and a bet id that names another bet', () => {
    const given = spec.given([opened(), placed(BET_A, 'player', 500)]);
    given
      .when(place([{ betId: BET_A, type: 'player', amount: 500 }]))
      .thenThrows({ code: 'DUPLICATE_BET' });
    given
      .when(place([{ betId: BET_A, type: 'player', amount: 600 }]))
      .thenThrows({ code: 'ID_CONFLICT' });
    given
      .when(place([{ betId: BET_A, type: 'tie', amount: 500 }]))
      .thenThrows({ code: 'ID_CONFLICT' });
    given
      .when(place([{ betId: BET_A, type: 'player', amount: 500 }], 'bob'))
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([opened()])
      .when(
        place([
          { betId: BET_A, type: 'player', amount: 500 },
          { betId: BET_A, type: 'tie', amount: 100 },
        ]),
      )
      .thenThrows({ code: 'VALIDATION_ERROR' });
  });

  it('refuses bets once betting is closed, or while paused', () => {
    spec
      .given([opened(), closed])
      .when(place([{ betId: BET_A, type: 'player', amount: 500 }]))
      .thenThrows({ code: 'BETTING_CLOSED' });
    spec
      .given([opened(), { type: 'RoundPaused', data: { roundId: ROUND, reason: 'shuffler jam' } }])
      .when(place([{ betId: BET_A, type: 'player', amount: 500 }]))
      .thenThrows({ code: 'ROUND_PAUSED' });
  });

  it('refuses bets against the rules with the rules engine’s codes, naming the field', () => {
    spec
      .given([opened()])
      .when(place([{ betId: BET_A, type: 'dragon', amount: 500 }]))
      .thenThrows({ code: 'UNKNOWN_BET' });
    spec
      .given([opened()])
      .when(place([{ betId: BET_A, type: 'player', amount: 5.5 }]))
      .thenThrows({ code: 'INVALID_AMOUNT' });
    spec
      .given([opened({ number: 51 })])
      .when(place([{ betId: BET_A, type: 'lucky_six', amount: 100 }]))
      .thenThrows({ code: 'BET_PAST_MAX_ROUND' });
    const error = spec
      .given([opened(), placed(BET_A, 'tie', 900)])
      .when(place([{ betId: BET_B, type: 'tie', amount: 200 }]))
      .thenThrows({ code: 'BET_ABOVE_MAX' });
    expect(error).toMatchObject({ details: { field: 'amount' } });
  });

  it('takes as many bets in one request as the table offers bets and banker modes', () => {
    // Four bet types, Banker in two modes: five combinations.
    const id = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;
    const five = [
      { betId: id(1), type: 'player', amount: 100 },
      { betId: id(2), type: 'banker', amount: 100, bankerMode: 'commission' },
      { betId: id(3), type: 'banker', amount: 100, bankerMode: 'no_commission' },
      { betId: id(4), type: 'tie', amount: 100 },
      { betId: id(5), type: 'lucky_six', amount: 100 },
    ];
    const state = spec.stateAfter([opened()]);
    expect(roundDecider.decide(place(five), state)).toHaveLength(5);
    const error = spec
      .given([opened()])
      .when(place([...five, { betId: id(6), type: 'tie', amount: 100 }]))
      .thenThrows({ code: 'VALIDATION_ERROR' });
    expect(error).toMatchObject({ details: { field: 'body.bets' } });
    expect(error.message).toMatch(/at most 5 bets/);
  });

  it('counts only the same player’s stakes against the limits', () => {
    spec
      .given([opened(), placed(BET_A, 'tie', 900, 'bob')])
      .when(place([{ betId: BET_B, type: 'tie', amount: 900 }]))
      .then([placed(BET_B, 'tie', 900)]);
  });

  it('clears a player’s bets before betting closes', () => {
    spec
      .given([opened(), placed(BET_A, 'player', 500), placed(BET_B, 'tie', 100, 'bob')])
      .when({ type: 'ClearBets', playerId: 'alice' })
      .then([
        { type: 'BetsCleared', data: { roundId: ROUND, playerId: 'alice', betIds: [BET_A] } },
      ]);
    spec
      .given([opened()])
      .when({ type: 'ClearBets', playerId: 'alice' })
      .thenThrows({ code: 'NO_BETS_TO_CLEAR' });
  });

  it('removes one bet, leaving the player’s others standing', () => {
    spec
      .given([opened(), placed(BET_A, 'player', 500), placed(BET_B, 'tie', 100)])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_B] })
      .then([
        { type: 'BetsCleared', data: { roundId: ROUND, playerId: 'alice', betIds: [BET_B] } },
      ]);
  });

  it('refuses to remove a chip when the bets left would break a limit (issue 24)', () => {
    const BET_C = '00000000-0000-4000-8000-00000000000c';
    const hedged = opened({ rules: { ...RULES, playerBankerDifferenceLimit: 5_000 } });
    // Player 6,000 stands only hedged by Banker 2,000: taking the Banker bet off would deal an
    // unhedged 6,000 past the limit.
    spec
      .given([hedged, placed(BET_A, 'player', 6_000), placed(BET_B, 'banker', 2_000)])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_B] })
      .thenThrows({ code: 'BET_DIFFERENCE_LIMIT', details: { field: 'amount' } });
    // A tie spot of 100 + 10: without the 100 chip the spot is under its minimum.
    spec
      .given([opened(), placed(BET_A, 'tie', 100), placed(BET_B, 'tie', 10)])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_A] })
      .thenThrows({ code: 'BET_BELOW_MIN' });
    // The 10 chip may go, and so may everything.
    spec
      .given([opened(), placed(BET_A, 'tie', 100), placed(BET_B, 'tie', 10)])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_B] })
      .then([
        { type: 'BetsCleared', data: { roundId: ROUND, playerId: 'alice', betIds: [BET_B] } },
      ]);
    spec
      .given([hedged, placed(BET_A, 'player', 6_000), placed(BET_B, 'banker', 2_000)])
      .when({ type: 'ClearBets', playerId: 'alice' })
      .then([
        {
          type: 'BetsCleared',
          data: { roundId: ROUND, playerId: 'alice', betIds: [BET_A, BET_B] },
        },
      ]);
    // A chip placed below the minimum on a spot that holds the minimum is fine; alone it is not.
    spec
      .given([opened(), placed(BET_A, 'tie', 100)])
      .when(place([{ betId: BET_C, type: 'tie', amount: 10 }]))
      .then([placed(BET_C, 'tie', 10)]);
    spec
      .given([opened()])
      .when(place([{ betId: BET_C, type: 'tie', amount: 10 }]))
      .thenThrows({ code: 'BET_BELOW_MIN' });
  });

  it('refuses a rebet on top of bets already down, yet answers a retried rebet as a double submit', () => {
    const rebet = (bets: { betId: string; type: string; amount: number }[]): RoundCommand => ({
      type: 'PlaceBets',
      playerId: 'alice',
      bets,
      rebetOf: 't1.1.0',
    });
    spec
      .given([opened(), placed(BET_A, 'banker', 100)])
      .when(rebet([{ betId: BET_B, type: 'player', amount: 200 }]))
      .thenThrows({ code: 'BETS_ALREADY_PLACED' });
    spec
      .given([opened(), placed(BET_A, 'banker', 100)])
      .when(rebet([{ betId: BET_A, type: 'banker', amount: 100 }]))
      .thenThrows({ code: 'DUPLICATE_BET' });
    // Another player's bets are no obstacle.
    spec
      .given([opened(), placed(BET_A, 'banker', 100, 'bob')])
      .when(rebet([{ betId: BET_B, type: 'player', amount: 200 }]))
      .then([
        {
          ...placed(BET_B, 'player', 200),
          data: { ...placed(BET_B, 'player', 200).data, rebetOf: 't1.1.0' },
        } as RoundEvent,
      ]);
  });

  it('refuses to remove a bet that is not the player’s standing bet', () => {
    const cleared: RoundEvent = {
      type: 'BetsCleared',
      data: { roundId: ROUND, playerId: 'alice', betIds: [BET_A] },
    };
    spec
      .given([opened(), placed(BET_A, 'player', 500), cleared])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_A] })
      .thenThrows({ code: 'NO_BETS_TO_CLEAR' });
    spec
      .given([opened(), placed(BET_B, 'tie', 100, 'bob')])
      .when({ type: 'ClearBets', playerId: 'alice', betIds: [BET_B] })
      .thenThrows({ code: 'NO_BETS_TO_CLEAR' });
  });

  it('deals an rng round and completes it in the same step', () => {
    const events = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    expect(events.map((e) => e.type)).toEqual([
      'CardDealt',
      'CardDealt',
      'CardDealt',
      'CardDealt',
      'RoundCompleted',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'RoundCompleted',
      data: {
        roundId: ROUND,
        player: { cards: ['9C', 'KH'], total: 9, natural: true, pair: false, perfectPair: false },
        banker: { cards: ['2D', '3S'], total: 5, natural: false, pair: false, perfectPair: false },
        winner: 'player',
      },
    });
  });

  it('refuses cards out of the third-card order', () => {
    spec
      .given([opened(), closed, started])
      .when({ type: 'DealCards', cards: [{ position: 10, card: '9C', hand: 'banker' }] })
      .thenThrows({ code: 'INVALID_DEAL' });
    spec.given([opened()]).when(natural).thenThrows({ code: 'ROUND_NOT_DEALING' });
    // The shoe draws only for a round that committed to its deal first (ADR 0033).
    spec.given([opened(), closed]).when(natural).thenThrows({ code: 'ROUND_NOT_DEALING' });
  });

  it('waits for a scanned round to be confirmed, and lets a supervisor correct a card first', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    expect(dealt.map((e) => e.type)).toEqual(['CardDealt', 'CardDealt', 'CardDealt', 'CardDealt']);
    const history = [scanner, closed, started, ...dealt];
    // 9C misread: it was 5C, so Player 5 must now draw: the correction is consistent, dealing goes on.
    spec
      .given(history)
      .when({ type: 'CorrectCard', shoePosition: 10, card: '5C', reason: 'misread' })
      .then([
        {
          type: 'CardCorrected',
          data: { roundId: ROUND, shoePosition: 10, previous: '9C', card: '5C', reason: 'misread' },
        },
      ]);
    const corrected = spec.stateAfter([
      ...history,
      {
        type: 'CardCorrected',
        data: { roundId: ROUND, shoePosition: 10, previous: '9C', card: '5C', reason: 'misread' },
      },
    ]);
    expect(corrected.status).toBe('dealing');
    const confirmed = roundDecider.decide({ type: 'ConfirmResult' }, spec.stateAfter(history));
    expect(confirmed.map((e) => e.type)).toEqual(['RoundCompleted']);
  });

  it('refuses a correction that would make the cards already dealt break the rules', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(
      {
        type: 'DealCards',
        cards: [
          { position: 10, card: '2C', hand: 'player' },
          { position: 11, card: '2D', hand: 'banker' },
          { position: 12, card: '3H', hand: 'player' },
          { position: 13, card: '3S', hand: 'banker' },
          { position: 14, card: '4S', hand: 'player' },
        ],
      },
      spec.stateAfter([scanner, closed, started]),
    );
    // With a 9C first the Player has a natural: no third card should have been dealt.
    spec
      .given([scanner, closed, started, ...dealt])
      .when({ type: 'CorrectCard', shoePosition: 10, card: '5C', reason: 'misread' })
      .thenThrows({ code: 'INVALID_CORRECTION' });
  });

  it('pauses, resumes and voids, a completed round too', () => {
    const pause: RoundCommand = { type: 'PauseRound', reason: 'card on the floor' };
    spec
      .given([opened()])
      .when(pause)
      .then([{ type: 'RoundPaused', data: { roundId: ROUND, reason: 'card on the floor' } }]);
    spec.given([opened()]).when({ type: 'ResumeRound' }).thenThrows({ code: 'ROUND_NOT_PAUSED' });
    spec
      .given([opened()])
      .when({ type: 'VoidRound', reason: 'table fault' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'table fault' } }]);
    const completed = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    // A completed round can still be voided: settlement then resettles every bet to its stake.
    spec
      .given([opened(), closed, started, ...completed])
      .when({ type: 'VoidRound', reason: 'late' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'late' } }]);
    const voided = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'late' } } as const;
    spec
      .given([opened(), closed, started, ...completed, voided])
      .when({ type: 'VoidRound', reason: 'again' })
      .then([]);
  });

  it('corrects a card of a completed round only if the round stays complete, and corrects its result', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    const confirmed = roundDecider.decide(
      { type: 'ConfirmResult' },
      spec.stateAfter([scanner, closed, started, ...dealt]),
    );
    const history = [scanner, closed, started, ...dealt, ...confirmed];
    // Banker's second card 3S read as 7S: Banker 9 ties Player 9.
    const [correctedCard, corrected] = roundDecider.decide(
      { type: 'CorrectCard', shoePosition: 13, card: '7S', reason: 'video review' },
      spec.stateAfter(history),
    );
    expect(correctedCard?.type).toBe('CardCorrected');
    expect(corrected).toMatchObject({
      type: 'RoundResultCorrected',
      data: { winner: 'tie', reason: 'video review' },
    });
    // Player's first card 9C read as 4C: Player 4 would draw: the round cannot stay complete.
    spec
      .given(history)
      .when({ type: 'CorrectCard', shoePosition: 10, card: '4C', reason: 'video review' })
      .thenThrows({ code: 'INVALID_CORRECTION' });
  });

  it('pauses a stalled deal only as the watchdog saw it: a card, a resume or a pause first leave it alone', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const card: RoundEvent = {
      type: 'CardDealt',
      data: { roundId: ROUND, hand: 'player', card: '4C', shoePosition: 3 },
    };
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    const stall = (cards: number, pauses: number): RoundCommand => ({
      type: 'PauseRound',
      reason: 'dealing stalled',
      stalled: { cards, pauses },
    });
    const pausedNow = [
      { type: 'RoundPaused', data: { roundId: ROUND, reason: 'dealing stalled' } },
    ] as const;
    spec
      .given([scanner, closed, started])
      .when(stall(0, 0))
      .then([...pausedNow]);
    spec
      .given([scanner, closed, started, card])
      .when(stall(1, 0))
      .then([...pausedNow]);
    // A card came after the watchdog looked.
    spec.given([scanner, closed, started, card]).when(stall(0, 0)).then([]);
    // Another watchdog paused first, or a supervisor paused and resumed since.
    spec.given([scanner, closed, started, paused]).when(stall(0, 0)).then([]);
    spec.given([scanner, closed, started, paused, resumed]).when(stall(0, 0)).then([]);
    spec
      .given([scanner, closed, started, paused, resumed])
      .when(stall(0, 1))
      .then([...pausedNow]);
    // Still betting, or every card in: not waiting for a card.
    spec.given([scanner]).when(stall(0, 0)).then([]);
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    spec
      .given([scanner, closed, started, ...dealt])
      .when(stall(dealt.length, 0))
      .then([]);
  });

  it('voids a paused round only while it is in the pause the watchdog saw', () => {
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    const voidPaused = (pauses: number): RoundCommand => ({
      type: 'VoidRound',
      reason: 'not resumed',
      pausedAs: { pauses },
    });
    const voided = [
      { type: 'RoundVoided', data: { roundId: ROUND, reason: 'not resumed' } },
    ] as const;
    spec
      .given([opened(), closed, paused])
      .when(voidPaused(1))
      .then([...voided]);
    spec.given([opened(), closed, paused, resumed]).when(voidPaused(1)).then([]);
    spec.given([opened(), closed, paused, resumed, paused]).when(voidPaused(1)).then([]);
    spec
      .given([opened(), closed, paused, resumed, paused])
      .when(voidPaused(2))
      .then([...voided]);
    spec.given([opened(), closed]).when(voidPaused(0)).then([]);
  });

  it('commits to the deal before the shoe draws: DealStarted, with BettingClosed when asked', () => {
    spec.given([opened(), closed]).when({ type: 'StartDeal' }).then([started]);
    spec.given([opened()]).when({ type: 'StartDeal', closeBetting: true }).then([closed, started]);
    spec.given([opened()]).when({ type: 'StartDeal' }).thenThrows({ code: 'ROUND_NOT_DEALING' });
    // Started already (a retried deal), or dealt in full: nothing more.
    spec.given([opened(), closed, started]).when({ type: 'StartDeal' }).then([]);
    const completed = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    spec
      .given([opened(), closed, started, ...completed])
      .when({ type: 'StartDeal' })
      .then([]);
    const voided: RoundEvent = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } };
    spec
      .given([opened(), closed, voided])
      .when({ type: 'StartDeal' })
      .thenThrows({ code: 'ROUND_FINISHED' });
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'x' } };
    spec
      .given([opened(), paused])
      .when({ type: 'StartDeal', closeBetting: true })
      .thenThrows({ code: 'ROUND_PAUSED' });
  });

  it('voids a round whose deal is under way only with the cards its shoe sealed, recording those it never dealt', () => {
    const drawn = naturalCards;
    const underWay = [opened(), closed, started];
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault' })
      .thenThrows({ code: 'DEAL_IN_PROGRESS' });
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault', sealed: drawn })
      .then([
        { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault', discarded: [...drawn] } },
      ]);
    // Sealed before the shoe drew: nothing to discard, and the void says so.
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault', sealed: [] })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault', discarded: [] } }]);
    // A scanned round with two cards dealt and a third drawn: only the third is discarded.
    const scanner = opened({ cardSource: 'scanner' });
    const two = roundDecider.decide(
      { type: 'DealCards', cards: drawn.slice(0, 2) },
      spec.stateAfter([scanner, closed, started]),
    );
    spec
      .given([scanner, closed, started, ...two])
      .when({ type: 'VoidRound', reason: 'reader fault', sealed: drawn.slice(0, 3) })
      .then([
        {
          type: 'RoundVoided',
          data: { roundId: ROUND, reason: 'reader fault', discarded: [drawn[2]!] },
        },
      ]);
    // Once sealed, the round takes no card: the watchdog's void stands even after a resume.
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    spec
      .given([...underWay, paused, resumed])
      .when({ type: 'VoidRound', reason: 'stalled', pausedAs: { pauses: 1 }, sealed: [] })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'stalled', discarded: [] } }]);
    // No deal started, or dealt in full: no card can be out unrecorded, no seal needed.
    spec
      .given([opened(), closed])
      .when({ type: 'VoidRound', reason: 'fault' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } }]);
  });
});
