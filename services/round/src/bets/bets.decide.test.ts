import type { RoundEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import {
  RULES,
  ROUND,
  opened,
  BET_A,
  BET_B,
  placed,
  closed,
  place,
  released,
  release,
} from '../domain/round.fixtures.js';
import { roundDecider, type RoundCommand } from '../domain/round.decider.js';

const spec = deciderSpecification(roundDecider);

describe('round decider: bets', () => {
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
});
