import { evaluateRound, type Card } from '@croupier/baccarat';
import { paytableIdOf, presetConfig, type RoundRules } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { describeEvent, examineRound, VerdictBuilder, WalletBalances } from '../src/index.js';

/**
 * Disputes after settlement, checked from hand-made streams: a scanner round where Player 9C KH
 * beats Banker 2D 3S, paid, then the 3S corrected to a 7S (a tie) and resettled (ADR 0009).
 */
const ROUND = 'scan.1.1';
const BET = '00000000-0000-4000-8000-000000000001';
const SHIFT = '00000000-0000-4000-8000-000000000002';
const SETTLEMENT = '00000000-0000-4000-8000-000000000003';
const RESETTLEMENT = '00000000-0000-4000-8000-000000000004';
const config = presetConfig('generic', { cardSource: 'scanner', burn: false });
const rules: RoundRules = {
  bets: config.bets,
  playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
  bankerModes: config.bankerModes,
  commission: config.commission,
  tieOdds: config.tieOdds,
  seats: config.seats,
};
const place = {
  roundId: ROUND,
  tableId: 'scan',
  shoeId: 'scan.1',
  currency: 'EUR',
  shiftId: SHIFT,
};

let position = 100n;
const actors = {
  dan: { id: 'dan', role: 'dealer' },
  sue: { id: 'sue', role: 'supervisor' },
  system: { id: 'settlement', role: 'system' },
};

function event(
  stream: string,
  revision: number,
  type: string,
  data: Record<string, unknown>,
  actor: { id: string; role: string } = actors.dan,
): RecordedEvent {
  position += 1n;
  return {
    id: `00000000-0000-4000-9000-${String(position).padStart(12, '0')}`,
    stream,
    revision: BigInt(revision),
    position,
    type,
    data,
    metadata: { actor, occurredAt: '2026-12-01T10:00:00.000Z' },
    recordedAt: new Date(0),
  };
}

function hand(cards: readonly Card[], total: number, natural: boolean) {
  return { cards: [...cards], total, natural, pair: false, perfectPair: false };
}

/** The round's stream and pia's wallet events, in global order, each step optional. */
function dispute(options: { resettled?: boolean; correctedCard?: boolean } = {}) {
  const { resettled = true, correctedCard = true } = options;
  position = 100n;
  const round: RecordedEvent[] = [];
  const wallet: RecordedEvent[] = [];
  const r = (type: string, data: Record<string, unknown>, actor = actors.dan) =>
    round.push(event(`round-${ROUND}`, round.length, type, { roundId: ROUND, ...data }, actor));
  const w = (type: string, data: Record<string, unknown>) =>
    wallet.push(
      event('wallet-pia', 5 + wallet.length, type, { playerId: 'pia', ...data }, actors.system),
    );
  r('RoundOpened', {
    tableId: 'scan',
    shoeId: 'scan.1',
    number: 1,
    cardSource: 'scanner',
    currency: 'EUR',
    rules,
    paytableId: paytableIdOf(rules),
    dealer: { dealerId: 'dan', shiftId: SHIFT },
  });
  w('StakeDebited', { betId: BET, roundId: ROUND, amount: 2_000 });
  r('BetPlaced', {
    betId: BET,
    playerId: 'pia',
    type: 'player',
    amount: 2_000,
    bankerMode: null,
    seat: null,
    rebetOf: null,
  });
  r('BettingClosed', {});
  const dealt: [Card, 'player' | 'banker'][] = [
    ['9C', 'player'],
    ['2D', 'banker'],
    ['KH', 'player'],
    ['3S', 'banker'],
  ];
  for (const [index, [card, side]] of dealt.entries())
    r('CardDealt', { hand: side, card, shoePosition: index });
  const first = evaluateRound(['9C', 'KH'], ['2D', '3S']);
  r('RoundCompleted', {
    player: hand(first.player, first.playerTotal, first.playerNatural),
    banker: hand(first.banker, first.bankerTotal, first.bankerNatural),
    winner: first.winner,
  });
  const line = {
    betId: BET,
    playerId: 'pia',
    type: 'player',
    bankerMode: null,
    seat: null,
    stake: 2_000,
    result: 'win',
    payout: 4_000,
    commission: 0,
    commissionMode: 'deducted',
  };
  r(
    'RoundSettled',
    {
      ...place,
      settlementId: SETTLEMENT,
      lines: [line],
      totals: { staked: 2_000, paidOut: 4_000, commission: 0 },
    },
    actors.system,
  );
  w('PayoutCredited', {
    betId: BET,
    roundId: ROUND,
    settlementId: SETTLEMENT,
    amount: 4_000,
    result: 'win',
  });
  if (correctedCard)
    r(
      'CardCorrected',
      { shoePosition: 3, previous: '3S', card: '7S', reason: 'video review' },
      actors.sue,
    );
  const tie = evaluateRound(['9C', 'KH'], ['2D', correctedCard ? '7S' : '3S']);
  r(
    'RoundResultCorrected',
    {
      reason: 'video review',
      player: hand(tie.player, tie.playerTotal, tie.playerNatural),
      banker: hand(tie.banker, tie.bankerTotal, tie.bankerNatural),
      winner: tie.winner,
    },
    actors.sue,
  );
  if (resettled) {
    r(
      'RoundResettled',
      {
        ...place,
        resettlementId: RESETTLEMENT,
        kind: 'correction',
        reason: 'video review',
        adjustments: [
          {
            betId: BET,
            playerId: 'pia',
            stake: 2_000,
            previousPayout: 4_000,
            payout: 2_000,
            delta: -2_000,
            result: 'push',
            previousCommission: 0,
            commission: 0,
            commissionMode: 'deducted',
            seat: null,
          },
        ],
      },
      actors.system,
    );
    w('PayoutAdjusted', {
      betId: BET,
      roundId: ROUND,
      resettlementId: RESETTLEMENT,
      delta: -2_000,
      commissionDelta: 0,
      tableId: 'scan',
      shiftId: SHIFT,
      reason: 'correction',
    });
  }
  return { round, wallet };
}

function examine(round: RecordedEvent[], wallet: RecordedEvent[]) {
  const verdict = new VerdictBuilder();
  const examined = examineRound(ROUND, round, wallet, verdict);
  const found = verdict.findings.map((f) => `${f.check}/${f.code} ${f.stream}@${f.revision}`);
  return { examined, verdict, found };
}

const edit = (
  events: RecordedEvent[],
  type: string,
  change: (data: Record<string, unknown>) => void,
) => {
  change(events.find((e) => e.type === type)!.data as Record<string, unknown>);
};

describe('a result corrected after settlement', () => {
  it('is verified: the corrected cards give a tie, the resettlement and its adjustment agree', () => {
    const { round, wallet } = dispute();
    const { examined, verdict, found } = examine(round, wallet);
    expect(found).toEqual([]);
    expect(verdict.notes).toEqual([]);
    expect(examined.result?.winner).toBe('tie');
    expect(examined.bets[0]?.adjustments[0]?.expected).toMatchObject({
      previousPayout: 4_000,
      payout: 2_000,
      delta: -2_000,
      result: 'push',
    });
    expect(examined.wallet?.map((m) => [m.type, m.amount])).toEqual([
      ['StakeDebited', 2_000],
      ['PayoutCredited', 4_000],
      ['PayoutAdjusted', -2_000],
    ]);
  });

  it('is described in the trail in plain words', () => {
    const { round, wallet } = dispute();
    const find = (type: string) => [...round, ...wallet].find((e) => e.type === type)!;
    // The round's currency, as its audit passes it: the events themselves name none.
    const what = (type: string) => describeEvent(find(type), 'EUR');
    expect(what('CardCorrected')).toBe(
      'Supervisor sue corrected card at shoe position 3: 3S \u2192 7S (video review)',
    );
    expect(what('RoundResultCorrected')).toBe(
      'result corrected (video review): tie: Player 9 [9C KH], Banker 9 [2D 7S]',
    );
    expect(what('RoundResettled')).toBe(
      `Resettled (corrected result: video review): bet ${BET} of pia paid 40.00 EUR, now 20.00 EUR (\u221220.00 EUR)`,
    );
    expect(what('PayoutAdjusted')).toBe(
      `pia adjusted \u221220.00 EUR for bet ${BET} (result corrected after settlement)`,
    );
    // Told no currency, an amount says it is minor units rather than pass for a sum of money.
    expect(describeEvent(find('PayoutAdjusted'))).toBe(
      `pia adjusted \u22122000 (minor units) for bet ${BET} (result corrected after settlement)`,
    );
  });

  it('waits for its resettlement, saying so, without failing', () => {
    const { round, wallet } = dispute({ resettled: false });
    const { verdict, found } = examine(round, wallet);
    expect(found).toEqual([]);
    expect(verdict.notes).toEqual([
      expect.stringMatching(/resettlement that pays 1 bet\(s\) by it is not recorded yet/),
    ]);
  });

  it('names a corrected result recorded with no card corrected', () => {
    const { round, wallet } = dispute({ correctedCard: false });
    const { found } = examine(round, wallet);
    expect(found).toContain(`lifecycle/LIFECYCLE_VIOLATION round-${ROUND}@9`);
  });

  it('names a resettlement that says the round was voided', () => {
    const { round, wallet } = dispute();
    edit(round, 'RoundResettled', (data) => {
      data['kind'] = 'void';
    });
    const { found } = examine(round, wallet);
    // A void pays the stake back: 2000 is right, but the round was not voided, and the result
    // of a void is "refund".
    expect(found).toEqual([
      `payouts/RESETTLEMENT_MISMATCH round-${ROUND}@11`,
      `payouts/RESETTLEMENT_MISMATCH round-${ROUND}@11`,
      `debits/ADJUSTMENT_MISMATCH wallet-pia@7`,
    ]);
  });

  it('names an adjustment of another amount, or for another shift', () => {
    const { round, wallet } = dispute();
    edit(wallet, 'PayoutAdjusted', (data) => {
      data['delta'] = -1_500;
      data['shiftId'] = '00000000-0000-4000-8000-000000000009';
    });
    const { verdict, found } = examine(round, wallet);
    expect(found).toEqual([
      'debits/ADJUSTMENT_MISMATCH wallet-pia@7',
      'debits/ADJUSTMENT_MISMATCH wallet-pia@7',
    ]);
    expect(verdict.findings[0]).toMatchObject({ expected: '-2000', found: '-1500' });
  });

  it('names an adjustment recorded before its resettlement', () => {
    const { round, wallet } = dispute();
    const adjusted = wallet.at(-1)!;
    wallet[wallet.length - 1] = { ...adjusted, position: round.at(-1)!.position - 1n };
    expect(examine(round, wallet).found).toEqual(['debits/POSITION_INVALID wallet-pia@7']);
  });

  it('names refunds of a round voided after settlement: it is resettled instead', () => {
    const { round, wallet } = dispute({ resettled: false });
    round.push(
      event(`round-${ROUND}`, round.length, 'RoundVoided', { roundId: ROUND, reason: 'x' }),
      event(`round-${ROUND}`, round.length + 1, 'BetsRefunded', {
        ...place,
        refundId: RESETTLEMENT,
        reason: 'voided',
        lines: [{ betId: BET, playerId: 'pia', amount: 2_000 }],
      }),
    );
    expect(examine(round, wallet).found).toEqual([`refunds/REFUND_MISMATCH round-${ROUND}@12`]);
  });
});

describe('WalletBalances', () => {
  it('folds a payout adjustment like the wallet: commission collected and lowered comes back', () => {
    const balances = new WalletBalances();
    position = 0n;
    const shift = { tableId: 'salon', shiftId: SHIFT };
    const events: [string, Record<string, unknown>][] = [
      ['FundsDeposited', { amount: 10_000, currency: 'EUR', reference: 'first' }],
      ['StakeDebited', { betId: BET, roundId: 'salon.1.1', amount: 2_000 }],
      [
        'PayoutCredited',
        {
          betId: BET,
          roundId: 'salon.1.1',
          settlementId: SETTLEMENT,
          amount: 4_000,
          result: 'win',
        },
      ],
      [
        'CommissionAccrued',
        { ...shift, seat: 3, betId: BET, settlementId: SETTLEMENT, amount: 100 },
      ],
      ['CommissionCollected', { ...shift, amount: 100, dealerChangeId: RESETTLEMENT }],
      [
        'PayoutAdjusted',
        {
          ...shift,
          betId: BET,
          roundId: 'salon.1.1',
          resettlementId: RESETTLEMENT,
          delta: -2_000,
          commissionDelta: -100,
          reason: 'void',
        },
      ],
    ];
    for (const [revision, [type, data]] of events.entries())
      balances.apply(event('wallet-pia', revision, type, { playerId: 'pia', ...data }));
    // 10000 - 2000 + 4000 - 100 collected - 2000 taken back + 100 given back.
    expect(balances.get('pia')).toMatchObject({
      balance: 10_000,
      commissionOwed: 0,
      openStakes: 0,
    });
  });

  it('lowers commission still owed instead of giving it back', () => {
    const balances = new WalletBalances();
    const shift = { tableId: 'salon', shiftId: SHIFT };
    balances.apply(
      event('wallet-pia', 0, 'CommissionAccrued', {
        playerId: 'pia',
        ...shift,
        seat: 3,
        betId: BET,
        settlementId: SETTLEMENT,
        amount: 100,
      }),
    );
    balances.apply(
      event('wallet-pia', 1, 'PayoutAdjusted', {
        playerId: 'pia',
        ...shift,
        betId: BET,
        roundId: 'salon.1.1',
        resettlementId: RESETTLEMENT,
        delta: -2_000,
        commissionDelta: -100,
        reason: 'void',
      }),
    );
    expect(balances.get('pia')).toMatchObject({ balance: -2_000, commissionOwed: 0 });
  });
});
