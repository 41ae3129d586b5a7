import type { BetSettlement, RoundOutcome } from '@croupier/baccarat';
import {
  settlePlacedBets,
  type RoundEvent,
  type RoundRules,
  type RoundStatus,
  type SettledSpot,
  type SettlementLine,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf } from './parse.js';
import type { BetState } from './round-model.js';
import type { VerdictBuilder } from './verdict.js';

/**
 * What the rules pay each standing bet (chip) under `outcome`, by bet id, and the spots: chips on
 * one spot (player, bet type, banker mode, seat) are one stake, paid once on their total and
 * shared over the chips (docs/rules.md "Spots"). A round settled before that (its RoundSettled
 * lists no `spots`, `bySpot` false) is checked chip by chip, as it was paid.
 */
export function payoutsByRule(
  standing: readonly BetState[],
  outcome: RoundOutcome,
  rules: RoundRules,
  bySpot: boolean,
): { chips: Map<string, BetSettlement>; spots: SettledSpot[] } {
  return settlePlacedBets(
    standing.map(({ bet }) => bet),
    outcome,
    rules,
    bySpot,
  );
}

/**
 * Settles every standing bet again by the round's own rules, spot by spot (`payoutsByRule`), and
 * compares each recorded line field by field, and each recorded spot; the totals must be the sums
 * of the lines. Records on each bet its recorded line and the recomputed one.
 */
export function checkSettlement(
  round: {
    status: RoundStatus;
    rules: RoundRules | null;
    outcome: RoundOutcome | null;
    bets: readonly BetState[];
  },
  data: Extract<RoundEvent, { type: 'RoundSettled' }>['data'],
  recorded: RecordedEvent,
  verdict: VerdictBuilder,
): void {
  const at = locationOf(recorded);
  const { rules, outcome } = round;
  if (round.status !== 'completed' || rules === null || outcome === null) {
    verdict.fail(
      'payouts',
      'PAYOUT_MISMATCH',
      at,
      'the round is settled but it has no rules or no complete result to settle by',
    );
    return;
  }
  const standing = round.bets.filter((b) => b.status === 'active');
  const lines = new Map(data.lines.map((line) => [line.betId, line]));
  for (const line of data.lines) {
    if (!standing.some((b) => b.bet.betId === line.betId)) {
      verdict.fail(
        'payouts',
        'PAYOUT_MISMATCH',
        at,
        `a settlement line pays bet ${line.betId}, which is not a standing bet of the round`,
        { expected: 'no line', found: line },
      );
    }
  }
  const byRule = payoutsByRule(standing, outcome, rules, data.spots !== undefined);
  if (data.spots !== undefined) checkSpots(byRule.spots, data.spots, at, verdict);
  for (const state of standing) {
    const { bet } = state;
    const expected = byRule.chips.get(bet.betId)!;
    state.expected = expected;
    state.paid = {
      result: expected.result,
      payout: expected.payout,
      commission: expected.commission,
    };
    const line = lines.get(bet.betId);
    if (line === undefined) {
      verdict.fail(
        'payouts',
        'BET_NOT_SETTLED',
        at,
        `bet ${bet.betId} (${bet.playerId}, ${verdict.money(bet.amount)} on ${bet.type}) has no settlement line`,
        { expected: { result: expected.result, payout: expected.payout }, found: null },
      );
      continue;
    }
    state.line = line;
    const fields: [string, unknown, unknown][] = [
      ['player', bet.playerId, line.playerId],
      ['bet type', bet.type, line.type],
      ['banker mode', bet.bankerMode, line.bankerMode],
      ['seat', bet.seat, line.seat],
      ['stake', bet.amount, line.stake],
      ['result', expected.result, line.result],
      ['payout', expected.payout, line.payout],
      ['commission', expected.commission, line.commission],
      ['commission mode', rules.commission, line.commissionMode],
    ];
    for (const [field, want, got] of fields) {
      if (want === got) continue;
      verdict.fail(
        'payouts',
        'PAYOUT_MISMATCH',
        at,
        `bet ${bet.betId} (${bet.playerId}, ${verdict.money(bet.amount)} on ${bet.type}): ${field} recomputed ${shown(verdict, field, want)}, recorded ${shown(verdict, field, got)}`,
        { expected: want, found: got },
      );
    }
  }
  const sum = (pick: (line: SettlementLine) => number) =>
    data.lines.reduce((total, line) => total + pick(line), 0);
  const totals: [string, number, number][] = [
    ['staked', sum((l) => l.stake), data.totals.staked],
    ['paid out', sum((l) => l.payout), data.totals.paidOut],
    ['commission', sum((l) => l.commission), data.totals.commission],
  ];
  for (const [field, want, got] of totals) {
    if (want === got) continue;
    verdict.fail(
      'payouts',
      'TOTALS_MISMATCH',
      at,
      `the settlement's total ${field} is not the sum of its lines`,
      { expected: want, found: got },
    );
  }
  verdict.pass('payouts');
}

/** The recorded spots must be the spots the rules make of the standing bets, paid as they pay. */
function checkSpots(
  expected: readonly SettledSpot[],
  recorded: readonly SettledSpot[],
  at: ReturnType<typeof locationOf>,
  verdict: VerdictBuilder,
): void {
  const keyOf = (spot: SettledSpot) => spot.betIds.join(',');
  const found = new Map(recorded.map((spot) => [keyOf(spot), spot]));
  for (const want of expected) {
    const got = found.get(keyOf(want));
    found.delete(keyOf(want));
    const what = `spot ${want.type}${want.bankerMode === null ? '' : `/${want.bankerMode}`}${want.seat === null ? '' : ` seat ${want.seat}`} of ${want.playerId} (bets ${want.betIds.join(', ')})`;
    if (got === undefined) {
      verdict.fail(
        'payouts',
        'PAYOUT_MISMATCH',
        at,
        `${what} is not among the settlement's spots`,
        {
          expected: want,
          found: null,
        },
      );
      continue;
    }
    for (const field of [
      'playerId',
      'type',
      'bankerMode',
      'seat',
      'stake',
      'result',
      'payout',
      'commission',
    ] as const) {
      if (want[field] === got[field]) continue;
      verdict.fail(
        'payouts',
        'PAYOUT_MISMATCH',
        at,
        `${what}: ${field} recomputed ${shown(verdict, field, want[field])}, recorded ${shown(verdict, field, got[field])}`,
        { expected: want[field], found: got[field] },
      );
    }
  }
  for (const extra of found.values()) {
    verdict.fail(
      'payouts',
      'PAYOUT_MISMATCH',
      at,
      `a settlement spot groups bets ${extra.betIds.join(', ')}, which are not one spot of standing bets`,
      { expected: 'no spot', found: extra },
    );
  }
}

/**
 * A refund must return a placed bet's stake to its player, once; as cleared only if cleared.
 * A void after settlement is resettled (every bet paid its stake), never refunded.
 */
export function checkRefund(
  round: { status: RoundStatus; settled: boolean; bets: ReadonlyMap<string, BetState> },
  data: Extract<RoundEvent, { type: 'BetsRefunded' }>['data'],
  recorded: RecordedEvent,
  verdict: VerdictBuilder,
): void {
  const at = locationOf(recorded);
  if (data.reason === 'voided' && round.status !== 'voided') {
    verdict.fail(
      'refunds',
      'REFUND_MISMATCH',
      at,
      'stakes are refunded as voided but the round is not voided',
    );
  } else if (data.reason === 'voided' && round.settled) {
    verdict.fail(
      'refunds',
      'REFUND_MISMATCH',
      at,
      'stakes are refunded as voided, but the round was settled: a void after settlement is resettled (its payouts adjusted to the stakes), not refunded',
      { expected: 'a RoundResettled', found: 'BetsRefunded' },
    );
  }
  for (const line of data.lines) {
    const state = round.bets.get(line.betId);
    if (state === undefined) {
      verdict.fail(
        'refunds',
        'REFUND_MISMATCH',
        at,
        `bet ${line.betId} is refunded but was never placed on the round`,
        {
          expected: 'no refund',
          found: line,
        },
      );
      continue;
    }
    if (state.refund !== null) {
      verdict.fail('refunds', 'REFUND_MISMATCH', at, `bet ${line.betId} is refunded twice`, {
        expected: 'one refund',
        found: 'two',
      });
      continue;
    }
    if (data.reason === 'cleared' && state.status !== 'cleared') {
      verdict.fail(
        'refunds',
        'REFUND_MISMATCH',
        at,
        `bet ${line.betId} is refunded as cleared but was not cleared`,
      );
    }
    if (line.amount !== state.bet.amount || line.playerId !== state.bet.playerId) {
      verdict.fail(
        'refunds',
        'REFUND_MISMATCH',
        at,
        `bet ${line.betId}: the refund does not return its stake to its player`,
        {
          expected: { playerId: state.bet.playerId, amount: state.bet.amount },
          found: { playerId: line.playerId, amount: line.amount },
        },
      );
    }
    state.refund = { amount: line.amount, reason: data.reason };
  }
  verdict.pass('refunds');
}

/** The fields of a line or spot that are amounts of money. */
const AMOUNTS = new Set(['stake', 'payout', 'commission']);

/** A field's value in a finding's message: an amount in the round's currency, else as it is. */
function shown(verdict: VerdictBuilder, field: string, value: unknown): string {
  return AMOUNTS.has(field) && typeof value === 'number' ? verdict.money(value) : String(value);
}
