import { evaluateRound, type Card } from '@croupier/baccarat';
import { paytableIdOf, presetConfig, type RoundRules } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { auditRound, examineRound, VerdictBuilder } from '../src/index.js';

/**
 * The payout check by spot (issue 24): three 0.10 Banker chips of one player are one 0.30 stake,
 * paid 0.58 (seed 003) with 0.02 commission, shared 0.20, 0.19, 0.19 over the chips; paying each chip alone (0.57)
 * is a payout mismatch. A round settled before spots (no `spots` in its RoundSettled) was paid
 * chip by chip and is checked that way.
 */
const ROUND = 'touch.1.1';
const SHIFT = '00000000-0000-4000-8000-000000000002';
const SETTLEMENT = '00000000-0000-4000-8000-000000000003';
const CHIPS = ['a', 'b', 'c'].map((c) => `00000000-0000-4000-8000-00000000001${c}`);
const config = presetConfig('touch');
const rules: RoundRules = {
  bets: config.bets,
  playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
  bankerModes: config.bankerModes,
  commission: config.commission,
  tieOdds: config.tieOdds,
  seats: config.seats,
};

function round(lines: { payout: number; commission: number }[], spots: boolean): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const r = (type: string, data: Record<string, unknown>) =>
    events.push({
      id: `00000000-0000-4000-9000-${String(events.length + 1).padStart(12, '0')}`,
      stream: `round-${ROUND}`,
      revision: BigInt(events.length),
      position: BigInt(100 + events.length),
      type,
      data: { roundId: ROUND, ...data },
      metadata: { actor: { id: 'pia', role: 'player' }, occurredAt: '2026-12-01T10:00:00.000Z' },
      recordedAt: new Date(0),
    });
  r('RoundOpened', {
    tableId: 'touch',
    shoeId: 'touch.1',
    number: 1,
    cardSource: 'scanner',
    currency: 'EUR',
    rules,
    paytableId: paytableIdOf(rules),
    dealer: { dealerId: null, shiftId: SHIFT },
  });
  const bet = { playerId: 'pia', type: 'banker', bankerMode: 'commission', seat: null };
  for (const betId of CHIPS) r('BetPlaced', { betId, ...bet, amount: 10, rebetOf: null });
  r('BettingClosed', {});
  const dealt: [Card, 'player' | 'banker'][] = [
    ['2C', 'player'],
    ['4H', 'banker'],
    ['3D', 'player'],
    ['4S', 'banker'],
  ];
  for (const [index, [card, hand]] of dealt.entries())
    r('CardDealt', { hand, card, shoePosition: index });
  const result = evaluateRound(['2C', '3D'], ['4H', '4S']); // Banker natural 8
  const side = (cards: readonly Card[], total: number, natural: boolean, pair: boolean) => ({
    cards: [...cards],
    total,
    natural,
    pair,
    perfectPair: false,
  });
  r('RoundCompleted', {
    player: side(result.player, result.playerTotal, result.playerNatural, result.playerPair),
    banker: side(result.banker, result.bankerTotal, result.bankerNatural, result.bankerPair),
    winner: result.winner,
  });
  const paid = lines.map((line, i) => ({
    betId: CHIPS[i]!,
    ...bet,
    stake: 10,
    result: 'win',
    ...line,
    commissionMode: 'deducted',
  }));
  const sum = (pick: (l: (typeof paid)[number]) => number) =>
    paid.reduce((total, l) => total + pick(l), 0);
  r('RoundSettled', {
    tableId: 'touch',
    shoeId: 'touch.1',
    currency: 'EUR',
    shiftId: SHIFT,
    settlementId: SETTLEMENT,
    lines: paid,
    ...(spots
      ? {
          spots: [
            {
              ...bet,
              stake: 30,
              result: 'win',
              payout: sum((l) => l.payout),
              commission: sum((l) => l.commission),
              betIds: CHIPS,
            },
          ],
        }
      : {}),
    totals: { staked: 30, paidOut: sum((l) => l.payout), commission: sum((l) => l.commission) },
  });
  return events;
}

const payoutFindings = (events: RecordedEvent[]) => {
  const verdict = new VerdictBuilder();
  examineRound(ROUND, events, [], verdict);
  return verdict.findings.filter((f) => f.check === 'payouts').map((f) => `${f.code} ${f.message}`);
};

describe('the payout check, spot by spot', () => {
  it('passes three 0.10 Banker chips paid as one 0.30 stake: 0.58 shared 0.20, 0.19, 0.19', () => {
    const shares = [
      { payout: 20, commission: 1 },
      { payout: 19, commission: 1 },
      { payout: 19, commission: 0 },
    ];
    expect(payoutFindings(round(shares, true))).toEqual([]);
  });

  it('finds each chip paid alone (3 x 0.19 = 0.57) a payout mismatch', () => {
    const perChip = CHIPS.map(() => ({ payout: 19, commission: 1 }));
    expect(payoutFindings(round(perChip, true))).toContainEqual(
      expect.stringContaining('PAYOUT_MISMATCH spot banker/commission of pia'),
    );
  });

  it('checks a round settled before spots chip by chip, as it was paid', () => {
    const perChip = CHIPS.map(() => ({ payout: 19, commission: 1 }));
    expect(payoutFindings(round(perChip, false))).toEqual([]);
  });
});

describe('the amounts of a finding', () => {
  it("are written in the round's currency in its message, and kept as integers in expected and found", () => {
    const perChip = CHIPS.map(() => ({ payout: 19, commission: 1 }));
    const { verdict } = auditRound({ roundId: ROUND, round: round(perChip, true) });
    const payouts = verdict.findings.filter((f) => f.check === 'payouts');
    const chip = payouts.find((f) => f.message.startsWith(`bet ${CHIPS[0]}`));
    expect(chip?.message).toBe(
      `bet ${CHIPS[0]} (pia, 0.10 EUR on banker): payout recomputed 0.20 EUR, recorded 0.19 EUR`,
    );
    expect(chip).toMatchObject({ expected: '20', found: '19' });
    const spot = payouts.find((f) => f.message.startsWith('spot banker/commission of pia'));
    expect(spot?.message).toContain('payout recomputed 0.58 EUR, recorded 0.57 EUR');
  });

  it('are said to be minor units where no currency is known', () => {
    const perChip = CHIPS.map(() => ({ payout: 19, commission: 1 }));
    const verdict = new VerdictBuilder();
    examineRound(ROUND, round(perChip, true), [], verdict);
    expect(verdict.findings.map((f) => f.message)).toContainEqual(
      expect.stringContaining('payout recomputed 20 (minor units), recorded 19 (minor units)'),
    );
  });
});
