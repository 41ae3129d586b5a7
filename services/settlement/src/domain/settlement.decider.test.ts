import type { RoundEvent, RoundRules } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { settlementDecider } from './settlement.decider.js';

const spec = deciderSpecification(settlementDecider);
const ROUND = 't1.1.1';
const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
const REFUND = '00000000-0000-4000-8000-0000000000c2';
const betIds = ['a', 'b', 'c'].map((c) => `00000000-0000-4000-8000-00000000000${c}`);
const PLACE = {
  roundId: ROUND,
  tableId: 't1',
  shoeId: 't1.1',
  currency: 'EUR',
  shiftId: '00000000-0000-4000-8000-0000000000d1',
};
const RULES: RoundRules = {
  bets: {
    player: { min: 10, max: 10_000, maxRound: null },
    banker: { min: 10, max: 10_000, maxRound: null },
    tie: { min: 10, max: 1_000, maxRound: null },
  },
  playerBankerDifferenceLimit: null,
  bankerModes: ['commission'],
  commission: 'deducted',
  tieOdds: 8,
  seats: null,
};
const history: RoundEvent[] = [
  {
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
      dealer: { dealerId: null, shiftId: '00000000-0000-4000-8000-0000000000d1' },
    },
  },
  ...(['banker', 'player', 'tie'] as const).map((type, i): RoundEvent => ({
    type: 'BetPlaced',
    data: {
      roundId: ROUND,
      betId: betIds[i]!,
      playerId: i === 2 ? 'bob' : 'alice',
      type,
      amount: 30,
      bankerMode: type === 'banker' ? 'commission' : null,
      seat: null,
      rebetOf: null,
    },
  })),
];
const completed: RoundEvent = {
  type: 'RoundCompleted',
  data: {
    roundId: ROUND,
    player: { cards: ['2C', '3D'], total: 5, natural: false, pair: false, perfectPair: false },
    banker: { cards: ['4H', '4S'], total: 8, natural: true, pair: true, perfectPair: false },
    winner: 'banker',
  },
};

describe('settlement decider', () => {
  it('settles every standing bet of a completed round with the round’s paytable', () => {
    const [settled] = settlementDecider.decide(
      { type: 'SettleRound', settlementId: SETTLEMENT },
      spec.stateAfter([...history, completed]),
    );
    expect(settled).toMatchObject({
      type: 'RoundSettled',
      data: { settlementId: SETTLEMENT, totals: { staked: 90, paidOut: 58, commission: 2 } },
    });
    const lines = (settled as Extract<RoundEvent, { type: 'RoundSettled' }>).data.lines;
    expect(lines.map((l) => [l.type, l.result, l.payout, l.commission])).toEqual([
      ['banker', 'win', 58, 2],
      ['player', 'lose', 0, 0],
      ['tie', 'lose', 0, 0],
    ]);
  });

  it('settles once', () => {
    const settled = settlementDecider.decide(
      { type: 'SettleRound', settlementId: SETTLEMENT },
      spec.stateAfter([...history, completed]),
    );
    spec
      .given([...history, completed, ...settled])
      .when({ type: 'SettleRound', settlementId: REFUND })
      .then([]);
  });

  it('does not settle a round that is not complete', () => {
    spec
      .given(history)
      .when({ type: 'SettleRound', settlementId: SETTLEMENT })
      .thenThrows({ code: 'ROUND_NOT_DEALING' });
  });

  it('refunds every bet of a voided round, once', () => {
    const voided: RoundEvent = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } };
    const refunded: RoundEvent = {
      type: 'BetsRefunded',
      data: {
        ...PLACE,
        refundId: REFUND,
        reason: 'voided',
        lines: betIds.map((betId, i) => ({
          betId,
          playerId: i === 2 ? 'bob' : 'alice',
          amount: 30,
        })),
      },
    };
    spec
      .given([...history, voided])
      .when({ type: 'RefundVoidedRound', refundId: REFUND })
      .then([refunded]);
    spec
      .given([...history, voided, refunded])
      .when({ type: 'RefundVoidedRound', refundId: REFUND })
      .then([]);
    spec
      .given([...history, voided])
      .when({ type: 'SettleRound', settlementId: SETTLEMENT })
      .then([]);
  });

  it('never pays a round voided after it completed but before its settlement: the void refunds it', () => {
    const voided: RoundEvent = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } };
    spec
      .given([...history, completed, voided])
      .when({ type: 'SettleRound', settlementId: SETTLEMENT })
      .then([]);
    const [refunded] = settlementDecider.decide(
      { type: 'RefundVoidedRound', refundId: REFUND },
      spec.stateAfter([...history, completed, voided]),
    );
    expect(refunded?.type).toBe('BetsRefunded');
  });

  it('refunds cleared bets and leaves them out of the settlement', () => {
    const cleared: RoundEvent = {
      type: 'BetsCleared',
      data: { roundId: ROUND, playerId: 'alice', betIds: betIds.slice(0, 2) },
    };
    spec
      .given([...history, cleared])
      .when({ type: 'RefundClearedBets', refundId: REFUND, betIds: betIds.slice(0, 2) })
      .then([
        {
          type: 'BetsRefunded',
          data: {
            ...PLACE,
            refundId: REFUND,
            reason: 'cleared',
            lines: betIds.slice(0, 2).map((betId) => ({ betId, playerId: 'alice', amount: 30 })),
          },
        },
      ]);
    const [settled] = settlementDecider.decide(
      { type: 'SettleRound', settlementId: SETTLEMENT },
      spec.stateAfter([...history, cleared, completed]),
    );
    expect(
      (settled as Extract<RoundEvent, { type: 'RoundSettled' }>).data.lines.map((l) => l.betId),
    ).toEqual([betIds[2]]);
  });

  describe('chips on one spot are one stake (issue 24)', () => {
    const chip = (id: string, amount: number, type: 'banker' | 'tie' = 'banker'): RoundEvent => ({
      type: 'BetPlaced',
      data: {
        roundId: ROUND,
        betId: `00000000-0000-4000-8000-0000000001${id}`,
        playerId: 'alice',
        type,
        amount,
        bankerMode: type === 'banker' ? 'commission' : null,
        seat: null,
        rebetOf: null,
      },
    });
    const stacked = [history[0]!, chip('01', 10), chip('02', 10), chip('03', 10), chip('04', 15)];
    const settle = (events: RoundEvent[]) =>
      settlementDecider.decide(
        { type: 'SettleRound', settlementId: SETTLEMENT },
        spec.stateAfter(events),
      )[0] as Extract<RoundEvent, { type: 'RoundSettled' }>;

    it('pays a spot once on its total, each chip its share: 0.45 on Banker returns 0.87', () => {
      const settled = settle([...stacked, completed]);
      expect(settled.data.totals).toEqual({ staked: 45, paidOut: 87, commission: 3 });
      expect(settled.data.lines.map((l) => [l.stake, l.payout])).toEqual([
        [10, 20],
        [10, 19],
        [10, 19],
        [15, 29],
      ]);
      expect(settled.data.spots).toEqual([
        {
          playerId: 'alice',
          type: 'banker',
          bankerMode: 'commission',
          seat: null,
          stake: 45,
          result: 'win',
          payout: 87,
          commission: 3,
          betIds: settled.data.lines.map((l) => l.betId),
        },
      ]);
      // Three 0.10 chips: 0.58, as seed 003 pays a 0.30 Banker bet.
      expect(settle([...stacked.slice(0, 4), completed]).data.totals.paidOut).toBe(58);
    });

    it('resettles a corrected result spot by spot too', () => {
      const settled = settle([...stacked, completed]);
      const corrected: RoundEvent = {
        type: 'RoundResultCorrected',
        data: { ...(completed.data as object), reason: 'misread', winner: 'tie' } as never,
      };
      const [resettled] = settlementDecider.decide(
        { type: 'ResettleRound', resettlementId: REFUND, kind: 'correction', reason: 'misread' },
        spec.stateAfter([...stacked, completed, settled, corrected]),
      ) as Extract<RoundEvent, { type: 'RoundResettled' }>[];
      // A tie pushes the Banker spot: every chip gets its own stake back.
      expect(resettled!.data.adjustments.map((a) => [a.previousPayout, a.payout, a.delta])).toEqual(
        [
          [20, 10, -10],
          [19, 10, -9],
          [19, 10, -9],
          [29, 15, -14],
        ],
      );
    });

    it('resettles a round settled chip by chip (before spots) chip by chip', () => {
      const settled = settle([...stacked, completed]);
      // As recorded before spots: every chip paid alone (0.19, 0.19, 0.19, 0.29, commission
      // 0.01 each), no `spots`.
      const legacy: RoundEvent = {
        type: 'RoundSettled',
        data: {
          ...settled.data,
          spots: undefined,
          lines: settled.data.lines.map((l) => ({
            ...l,
            payout: l.stake === 15 ? 29 : 19,
            commission: 1,
          })),
        },
      };
      delete (legacy.data as { spots?: unknown }).spots;
      const corrected: RoundEvent = {
        type: 'RoundResultCorrected',
        data: { ...completed.data, reason: 'misread' },
      };
      // The same result again changes nothing anyone was paid chip by chip (by spot it would pay
      // the first chip 0.20): nothing to record.
      spec
        .given([...stacked, completed, legacy, corrected])
        .when({ type: 'ResettleRound', resettlementId: REFUND, kind: 'correction', reason: 'x' })
        .then([]);
    });
  });
});
