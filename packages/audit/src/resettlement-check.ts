import type { RoundOutcome } from '@croupier/baccarat';
import type { Adjustment, RoundEvent, RoundRules, RoundStatus } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf } from './parse.js';
import type { BetAdjustment, BetState, PaidLine } from './round-model.js';
import { payoutsByRule } from './settlement-check.js';
import type { VerdictBuilder } from './verdict.js';

type Resettled = Extract<RoundEvent, { type: 'RoundResettled' }>['data'];

export interface RoundForResettlement {
  readonly status: RoundStatus;
  /** The round's RoundSettled, if it was settled. */
  readonly settledAt: RecordedEvent | null;
  /** A result was corrected after the round was settled. */
  readonly correctedAfterSettlement: boolean;
  /** The round was settled spot by spot (its RoundSettled lists `spots`): resettled the same way. */
  readonly bySpot: boolean;
  readonly rules: RoundRules | null;
  /** The result the rules give from the cards as corrected so far (never the recorded one). */
  readonly outcome: RoundOutcome | null;
  readonly bets: readonly BetState[];
}

/**
 * What a bet has been paid so far, by the rules: its settlement recomputed and every
 * resettlement since (the recorded line only where the rules could not settle it).
 */
function paidSoFar(state: BetState): PaidLine {
  if (state.paid !== null) return state.paid;
  const line = state.line;
  return line === null
    ? { result: 'lose', payout: 0, commission: 0 }
    : { result: line.result, payout: line.payout, commission: line.commission };
}

/**
 * What each standing bet should be paid now by the rules, by bet id: the stake back for a void,
 * else by the result, spot by spot as the round was settled (`payoutsByRule`).
 */
function paidNow(
  kind: 'void' | 'correction',
  round: RoundForResettlement,
  standing: readonly BetState[],
): Map<string, PaidLine> {
  if (kind === 'void') {
    return new Map(
      standing.map((state) => [
        state.bet.betId,
        { result: 'refund', payout: state.bet.amount, commission: 0 },
      ]),
    );
  }
  const { chips } = payoutsByRule(standing, round.outcome!, round.rules!, round.bySpot);
  return new Map(
    [...chips].map(([betId, settled]) => [
      betId,
      { result: settled.result, payout: settled.payout, commission: settled.commission },
    ]),
  );
}

/**
 * A resettlement (ADR 0009) recomputed from the rules and the recorded facts, never from the
 * adjustment itself: what each standing bet was paid so far (its settlement recomputed, then
 * every resettlement before this one), what it should be paid now, and so the difference. Each
 * recorded line must say the same; each bet of the round gets one line. Records on each bet the
 * line recorded and the line recomputed, and moves the bet's `paid` to the recomputed payout.
 */
export function checkResettlement(
  round: RoundForResettlement,
  data: Resettled,
  recorded: RecordedEvent,
  verdict: VerdictBuilder,
): void {
  const at = locationOf(recorded);
  const fail = (message: string, values: { expected?: unknown; found?: unknown } = {}): void => {
    verdict.fail('payouts', 'RESETTLEMENT_MISMATCH', at, message, values);
  };
  if (round.settledAt === null) {
    fail('the round is resettled, but it was never settled', {
      expected: 'a RoundSettled first',
      found: null,
    });
    return;
  }
  if (data.kind === 'void' && round.status !== 'voided') {
    fail('the round is resettled as voided, but it was not voided', {
      expected: 'a RoundVoided first',
      found: round.status,
    });
  }
  if (data.kind === 'correction' && !round.correctedAfterSettlement) {
    fail(
      'the round is resettled by a corrected result, but no result was corrected after it was settled',
      {
        expected: 'a RoundResultCorrected after the RoundSettled',
        found: null,
      },
    );
  }
  const { rules, outcome } = round;
  if (rules === null || (data.kind === 'correction' && outcome === null)) {
    fail('the round is resettled, but it has no rules or no complete result to settle by');
    return;
  }
  const standing = round.bets.filter((state) => state.status === 'active');
  const lines = new Map<string, Adjustment>();
  for (const line of data.adjustments) {
    if (lines.has(line.betId)) {
      fail(`bet ${line.betId} is resettled twice in one resettlement`, {
        expected: 'one line per bet',
        found: 'two',
      });
      continue;
    }
    lines.set(line.betId, line);
    if (!standing.some((state) => state.bet.betId === line.betId)) {
      fail(`a resettlement line pays bet ${line.betId}, which is not a standing bet of the round`, {
        expected: 'no line',
        found: line,
      });
    }
  }
  const now = paidNow(data.kind, round, standing);
  for (const state of standing) {
    const { bet } = state;
    const before = paidSoFar(state);
    const after = now.get(bet.betId)!;
    const expected: BetAdjustment['expected'] = {
      ...after,
      previousPayout: before.payout,
      previousCommission: before.commission,
      delta: after.payout - before.payout,
      commissionDelta: rules.commission === 'accrued' ? after.commission - before.commission : 0,
    };
    const line = lines.get(bet.betId) ?? null;
    state.adjustments.push({
      at: recorded,
      resettlementId: data.resettlementId,
      kind: data.kind,
      recorded: line,
      expected,
    });
    state.paid = after;
    const what = `bet ${bet.betId} (${bet.playerId}, ${bet.amount} on ${bet.type})`;
    if (line === null) {
      fail(
        `${what} is not in the resettlement: it was paid ${before.payout}, the rules now pay ${after.payout}`,
        {
          expected: { payout: after.payout, delta: expected.delta },
          found: null,
        },
      );
      continue;
    }
    const fields: [string, unknown, unknown][] = [
      ['player', bet.playerId, line.playerId],
      ['stake', bet.amount, line.stake],
      ['seat', bet.seat, line.seat],
      ['previous payout', expected.previousPayout, line.previousPayout],
      ['payout', expected.payout, line.payout],
      ['delta', expected.delta, line.delta],
      ['result', expected.result, line.result],
      ['previous commission', expected.previousCommission, line.previousCommission],
      ['commission', expected.commission, line.commission],
      ['commission mode', rules.commission, line.commissionMode],
    ];
    for (const [field, want, got] of fields) {
      if (want === got) continue;
      fail(`${what}: ${field} recomputed ${String(want)}, recorded ${String(got)}`, {
        expected: want,
        found: got,
      });
    }
  }
  verdict.pass('payouts');
}

/**
 * After the replay: a void or a corrected result of a settled round that changes what a bet is
 * paid is answered by a resettlement. Settlement records it right after; until it does, the
 * audit says so (a note), since the money it moves is not due yet.
 */
export function pendingResettlement(round: RoundForResettlement): string | null {
  if (round.settledAt === null || round.rules === null) return null;
  const voided = round.status === 'voided';
  if (!voided && (!round.correctedAfterSettlement || round.outcome === null)) return null;
  const kind = voided ? 'void' : 'correction';
  const standing = round.bets.filter((state) => state.status === 'active');
  const now = paidNow(kind, round, standing);
  const owed = standing.filter((state) => {
    const due = now.get(state.bet.betId)!;
    const paid = paidSoFar(state);
    return paid.payout !== due.payout || paid.commission !== due.commission;
  });
  if (owed.length === 0) return null;
  return voided
    ? `the round was voided after it was settled; the resettlement that pays ${owed.length} bet(s) their stake back is not recorded yet`
    : `a result was corrected after the round was settled; the resettlement that pays ${owed.length} bet(s) by it is not recorded yet`;
}
