import { describe, expect, it } from 'vitest';
import {
  assertValidTableRules,
  BetRejectedError,
  tableRulesProblems,
  validateBets,
  validateBetSet,
  type BetRejectionCode,
  type ProposedBet,
  type StandingBet,
  type TableRules,
} from '../src/index.js';

const RULES: TableRules = {
  decks: 8,
  shufflePolicy: 'shoe',
  burn: true,
  cutCard: 16,
  bets: {
    player: { min: 100, max: 10_000, maxRound: null },
    banker: { min: 100, max: 10_000, maxRound: null },
    tie: { min: 100, max: 1_000, maxRound: null },
    player_pair: { min: 100, max: 500, maxRound: 60 },
    lucky_six: { min: 100, max: 500, maxRound: 50 },
  },
  playerBankerDifferenceLimit: null,
  bankerModes: ['commission', 'no_commission'],
  commission: 'deducted',
  tieOdds: 8,
  seats: null,
};

function rejection(
  bets: ProposedBet[],
  {
    rules = RULES,
    round = 1,
    existing = [],
  }: { rules?: TableRules; round?: number; existing?: readonly StandingBet[] } = {},
): BetRejectionCode | 'accepted' {
  try {
    validateBets(rules, round, existing, bets);
    return 'accepted';
  } catch (error) {
    if (error instanceof BetRejectedError) return error.code;
    throw error;
  }
}

describe('bet validation', () => {
  it('accepts a valid bet and records the banker mode', () => {
    expect(validateBets(RULES, 1, [], [{ type: 'banker', amount: 500 }])).toEqual([
      { type: 'banker', amount: 500, bankerMode: 'commission', seat: null },
    ]);
  });

  it('names each reason a bet is refused with a stable code', () => {
    expect(rejection([{ type: 'dragon', amount: 100 }])).toBe('UNKNOWN_BET');
    expect(rejection([{ type: 'perfect_pair', amount: 100 }])).toBe('BET_NOT_OFFERED');
    expect(rejection([{ type: 'lucky_six', amount: 100 }], { round: 51 })).toBe(
      'BET_PAST_MAX_ROUND',
    );
    expect(rejection([{ type: 'lucky_six', amount: 100 }], { round: 50 })).toBe('accepted');
    expect(rejection([{ type: 'player_pair', amount: 100 }], { round: 61 })).toBe(
      'BET_PAST_MAX_ROUND',
    );
    expect(rejection([{ type: 'player', amount: 99 }])).toBe('BET_BELOW_MIN');
    expect(rejection([{ type: 'tie', amount: 1_001 }])).toBe('BET_ABOVE_MAX');
    expect(rejection([{ type: 'banker', amount: 100, bankerMode: 'free' }])).toBe(
      'BANKER_MODE_NOT_OFFERED',
    );
    expect(rejection([{ type: 'player', amount: 100, seat: 3 }])).toBe('INVALID_SEAT');
  });

  it('refuses amounts that are not positive integers of minor units', () => {
    for (const amount of [0, -100, 100.5, '100', null, undefined, Number.NaN, Infinity, 2 ** 60]) {
      expect(rejection([{ type: 'player', amount }]), String(amount)).toBe('INVALID_AMOUNT');
    }
  });

  it("applies limits to the player's total on the bet in the round", () => {
    expect(
      rejection([{ type: 'tie', amount: 600 }], {
        existing: [{ type: 'tie', amount: 500, seat: null }],
      }),
    ).toBe('BET_ABOVE_MAX');
    expect(
      rejection([{ type: 'tie', amount: 50 }], {
        existing: [{ type: 'tie', amount: 100, seat: null }],
      }),
    ).toBe('accepted');
  });

  it('applies the Player/Banker limit to the difference when the table says so', () => {
    const hedged = { ...RULES, playerBankerDifferenceLimit: 10_000 };
    const both = [
      { type: 'player', amount: 50_000 },
      { type: 'banker', amount: 45_000 },
    ];
    expect(rejection(both, { rules: hedged })).toBe('accepted');
    expect(rejection([{ type: 'player', amount: 50_000 }], { rules: hedged })).toBe(
      'BET_DIFFERENCE_LIMIT',
    );
    expect(
      rejection([{ type: 'player', amount: 5_000 }], {
        rules: hedged,
        existing: [{ type: 'banker', amount: 12_000, bankerMode: 'commission', seat: null }],
      }),
    ).toBe('accepted');
    expect(rejection(both, { rules: RULES })).toBe('BET_ABOVE_MAX');
  });

  it('judges the whole set a change leaves, removals included (issue 24)', () => {
    const hedged = { ...RULES, playerBankerDifferenceLimit: 5_000 };
    // Player 6,000 hedged by Banker 2,000 stands; without the Banker bet it would not.
    const player = { type: 'player', amount: 6_000, seat: null } as const;
    expect(() => {
      validateBetSet(hedged, 1, [player]);
    }).toThrow(expect.objectContaining({ code: 'BET_DIFFERENCE_LIMIT' }));
    expect(() => {
      validateBetSet(hedged, 1, [player, { ...player, type: 'banker', amount: 2_000 }]);
    }).not.toThrow();
    // A tie spot of 10 + 1 chips keeps its minimum only while the 10 stands.
    const tie = { ...RULES, bets: { ...RULES.bets, tie: { min: 10, max: 1_000, maxRound: null } } };
    expect(() => {
      validateBetSet(tie, 1, [{ type: 'tie', amount: 1, seat: null }]);
    }).toThrow(expect.objectContaining({ code: 'BET_BELOW_MIN' }));
    expect(
      rejection([{ type: 'tie', amount: 1 }], {
        rules: tie,
        existing: [{ type: 'tie', amount: 10, seat: null }],
      }),
    ).toBe('accepted');
    // The minimum is per spot: two banker modes are two spots.
    expect(
      rejection([{ type: 'banker', amount: 50, bankerMode: 'no_commission' }], {
        existing: [{ type: 'banker', amount: 500, bankerMode: 'commission', seat: null }],
      }),
    ).toBe('BET_BELOW_MIN');
    expect(() => {
      validateBetSet(RULES, 1, []);
    }).not.toThrow();
  });

  it('requires a seat number on a seated table', () => {
    const seated = { ...RULES, seats: 7 };
    expect(rejection([{ type: 'player', amount: 100 }], { rules: seated })).toBe('INVALID_SEAT');
    expect(rejection([{ type: 'player', amount: 100, seat: 8 }], { rules: seated })).toBe(
      'INVALID_SEAT',
    );
    expect(rejection([{ type: 'player', amount: 100, seat: 7 }], { rules: seated })).toBe(
      'accepted',
    );
  });

  it('refuses a total whose win could not be paid as an exact integer', () => {
    // A Player/Banker difference limit leaves the totals themselves uncapped.
    const hedged = { ...RULES, playerBankerDifferenceLimit: 10_000 };
    const pair = (amount: number) => [
      { type: 'player', amount },
      { type: 'banker', amount },
    ];
    expect(rejection(pair(2 ** 52 - 1), { rules: hedged })).toBe('accepted');
    expect(rejection(pair(2 ** 52), { rules: hedged })).toBe('BET_ABOVE_MAX');
  });

  it('says which field was wrong', () => {
    try {
      validateBets(RULES, 1, [], [{ type: 'player', amount: -1 }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BetRejectedError);
      expect((error as BetRejectedError).field).toBe('amount');
      expect((error as BetRejectedError).message).toMatch(/amount must be a positive integer/);
    }
  });
});

describe('table rules', () => {
  const problemPaths = (rules: TableRules) =>
    tableRulesProblems(rules).map((p) => p.path.join('.'));

  it('accepts sound rules', () => {
    expect(tableRulesProblems(RULES)).toEqual([]);
    expect(() => {
      assertValidTableRules(RULES);
    }).not.toThrow();
  });

  it('rejects a cut card that could let the shoe run out, or that the burn could reach', () => {
    expect(problemPaths({ ...RULES, cutCard: 10 })).toEqual(['cutCard']);
    expect(problemPaths({ ...RULES, cutCard: 406 })).toEqual(['cutCard']);
    expect(problemPaths({ ...RULES, cutCard: 405 })).toEqual([]);
    expect(problemPaths({ ...RULES, cutCard: null })).toEqual(['cutCard']);
  });

  it('rejects a burn or a cut card on a table that shuffles every round', () => {
    expect(problemPaths({ ...RULES, shufflePolicy: 'every-round' })).toEqual(['burn', 'cutCard']);
  });

  it('names every bad field', () => {
    const bad: TableRules = {
      ...RULES,
      decks: 9,
      tieOdds: 7,
      seats: 0,
      bankerModes: [],
      bets: { ...RULES.bets, tie: { min: 500, max: 100, maxRound: 0 } },
    };
    expect(problemPaths(bad)).toEqual(
      expect.arrayContaining([
        'decks',
        'tieOdds',
        'seats',
        'bankerModes',
        'bets.tie.max',
        'bets.tie.maxRound',
      ]),
    );
    expect(() => {
      assertValidTableRules(bad);
    }).toThrow(/decks: must be an integer from 1 to 8/);
  });

  it('rejects a maximum whose win could not be paid as an exact integer', () => {
    const fits = Math.floor(Number.MAX_SAFE_INTEGER / 21); // lucky six pays up to 20:1
    const withMax = (max: number): TableRules => ({
      ...RULES,
      bets: { ...RULES.bets, lucky_six: { min: 100, max, maxRound: 50 } },
    });
    expect(problemPaths(withMax(fits))).toEqual([]);
    expect(problemPaths(withMax(fits + 1))).toEqual(['bets.lucky_six.max']);
  });

  it('rejects a perfect pair bet that one deck can never pay', () => {
    const single = {
      ...RULES,
      decks: 1,
      cutCard: 16,
      bets: { ...RULES.bets, perfect_pair: { min: 1, max: 5, maxRound: 50 } },
    };
    expect(problemPaths(single)).toEqual(['bets.perfect_pair']);
  });

  it('keeps accrued commission to seated tables in commission mode', () => {
    expect(problemPaths({ ...RULES, commission: 'accrued' })).toEqual([
      'commission',
      'bankerModes',
    ]);
    expect(
      problemPaths({ ...RULES, commission: 'accrued', seats: 7, bankerModes: ['commission'] }),
    ).toEqual([]);
  });
});
