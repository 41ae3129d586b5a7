import {
  isPlayMoney,
  streams,
  walletStreamOf,
  walletEventSchema,
  type RoundStatus,
  type WalletEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf, parseStream, provenanceOf } from './parse.js';
import type { BetAdjustment, BetState, WalletMovement } from './round-model.js';
import type { VerdictBuilder } from './verdict.js';

/** A wallet event of the round, reduced to what the money check compares. */
interface Movement {
  readonly recorded: RecordedEvent;
  readonly kind: 'debit' | 'payout' | 'refund' | 'accrued' | 'adjustment' | 'other';
  readonly type: string;
  readonly playerId: string;
  readonly betId: string;
  readonly roundId: string | null;
  readonly amount: number;
  readonly result: string | null;
  readonly reason: string | null;
  /** The settlement, or the resettlement of an adjustment. */
  readonly settlementId: string | null;
  /** A payout adjustment's change to the commission owed. */
  readonly commissionDelta: number | null;
}

function movementOf(recorded: RecordedEvent, event: WalletEvent): Movement | null {
  const base = { recorded, type: event.type, playerId: event.data.playerId };
  switch (event.type) {
    case 'StakeDebited':
      return {
        ...base,
        kind: 'debit',
        betId: event.data.betId,
        roundId: event.data.roundId,
        amount: event.data.amount,
        result: null,
        reason: null,
        settlementId: null,
        commissionDelta: null,
      };
    case 'PayoutCredited':
      return {
        ...base,
        kind: 'payout',
        betId: event.data.betId,
        roundId: event.data.roundId,
        amount: event.data.amount,
        result: event.data.result,
        reason: null,
        settlementId: event.data.settlementId,
        commissionDelta: null,
      };
    case 'StakeRefunded':
      return {
        ...base,
        kind: 'refund',
        betId: event.data.betId,
        roundId: event.data.roundId,
        amount: event.data.amount,
        result: null,
        reason: event.data.reason,
        settlementId: null,
        commissionDelta: null,
      };
    case 'CommissionAccrued':
      return {
        ...base,
        kind: 'accrued',
        betId: event.data.betId,
        roundId: null,
        amount: event.data.amount,
        result: null,
        reason: null,
        settlementId: event.data.settlementId,
        commissionDelta: null,
      };
    case 'PayoutAdjusted':
      return {
        ...base,
        kind: 'adjustment',
        betId: event.data.betId,
        roundId: event.data.roundId,
        amount: event.data.delta,
        result: null,
        reason: event.data.reason,
        settlementId: event.data.resettlementId,
        commissionDelta: event.data.commissionDelta,
      };
    case 'FundsDeposited':
    case 'FundsWithdrawn':
    case 'CommissionCollected':
      return null;
    default: {
      // A wallet event this auditor does not judge (added after it was written): shown, noted.
      const data = recorded.data as Record<string, unknown>;
      const betId = data['betId'];
      if (typeof betId !== 'string') return null;
      const amount = typeof data['amount'] === 'number' ? data['amount'] : data['delta'];
      return {
        ...base,
        kind: 'other',
        betId,
        roundId: typeof data['roundId'] === 'string' ? data['roundId'] : null,
        amount: typeof amount === 'number' ? amount : 0,
        result: null,
        reason: typeof data['reason'] === 'string' ? data['reason'] : null,
        settlementId: null,
        commissionDelta: null,
      };
    }
  }
}

/** Whether `a` stands after `b` in the global log (unknown positions are never judged). */
const later = (a: RecordedEvent, b: RecordedEvent): boolean =>
  a.position >= 0n && b.position >= 0n && a.position > b.position;

/** A debited stake the round released (StakeReleased): it never became a bet; a refund closes it. */
export interface ReleasedStakeRecord {
  readonly betId: string;
  readonly playerId: string;
  readonly amount: number;
  readonly recorded: RecordedEvent;
}

export interface RoundMoney {
  readonly roundId: string;
  readonly status: RoundStatus;
  /** Settled (complete) or refunded (voided): every stake must be closed by now. */
  readonly finished: boolean;
  readonly settlementId: string | null;
  /** The RoundSettled of the round, if any: every payout is credited after it. */
  readonly settledAt?: RecordedEvent | null;
  /** The table and dealer shift the round was played in: where adjusted commission is owed. */
  readonly place?: { readonly tableId: string; readonly shiftId: string } | null;
  /**
   * The round's currency (RoundOpened): play money (FUN) moves in the player's fun wallet only,
   * real money in their real wallet only (ADR 0030). Absent: real money.
   */
  readonly currency?: string | null;
  readonly bets: readonly BetState[];
  /** Stakes the round released for refund; absent where the caller has no round stream. */
  readonly released?: readonly ReleasedStakeRecord[];
  readonly events: readonly RecordedEvent[];
}

/**
 * Every stake debited for the round must be closed by exactly one payout (of its settlement
 * line's amount) or one refund (of the stake); every bet on the round must have been debited;
 * commission accrued must be what the settlement owes; every resettlement line that moves money
 * must be applied by exactly one payout adjustment of the recomputed difference.
 */
export function checkRoundWallet(round: RoundMoney, verdict: VerdictBuilder): WalletMovement[] {
  const { roundId } = round;
  const betIds = new Set(round.bets.map((b) => b.bet.betId));
  const byBet = new Map<string, Movement[]>();
  const movements: WalletMovement[] = [];
  const adjustments: Movement[] = [];
  for (const { recorded, event } of parseStream(round.events, walletEventSchema, verdict)) {
    const movement = movementOf(recorded, event);
    if (movement === null) continue;
    const ofRound =
      movement.roundId === null ? betIds.has(movement.betId) : movement.roundId === roundId;
    if (!ofRound) continue;
    if (movement.kind === 'adjustment') adjustments.push(movement);
    const wallet = walletStreamOf(movement.playerId, round.currency);
    if (recorded.stream !== wallet) {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        locationOf(recorded),
        `${movement.type} for ${movement.playerId} is stored in ${recorded.stream}, not ${wallet}${isPlayMoney(round.currency) ? ': the round plays play money' : ''}`,
      );
    } else if (((event.data as { fun?: unknown }).fun === true) !== isPlayMoney(round.currency)) {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        locationOf(recorded),
        `${movement.type} for ${movement.playerId} is ${isPlayMoney(round.currency) ? 'not marked as play money, in a round of play money' : 'marked as play money, in a round of real money'}`,
      );
    }
    if (movement.kind === 'other') {
      verdict.note(
        `${recorded.stream}@${recorded.revision}: ${movement.type} for bet ${movement.betId} is shown but not verified by this auditor`,
      );
    }
    const list = byBet.get(movement.betId) ?? [];
    list.push(movement);
    byBet.set(movement.betId, list);
    movements.push({
      stream: recorded.stream,
      revision: String(recorded.revision),
      type: movement.type,
      playerId: movement.playerId,
      betId: movement.betId,
      amount: movement.amount,
      detail: detailOf(movement, verdict),
      occurredAt: provenanceOf(recorded).occurredAt,
    });
  }

  let open = 0;
  for (const [betId, list] of byBet) {
    const state = round.bets.find((b) => b.bet.betId === betId);
    const debits = list.filter((m) => m.kind === 'debit');
    const closings = list.filter((m) => m.kind === 'payout' || m.kind === 'refund');
    const accrued = list.filter((m) => m.kind === 'accrued');
    for (const extra of debits.slice(1)) {
      verdict.fail(
        'debits',
        'DEBIT_MISMATCH',
        locationOf(extra.recorded),
        `bet ${betId} is debited more than once`,
        { expected: 'one debit', found: `${debits.length} debits` },
      );
    }
    const debit = debits[0];
    if (debit === undefined) {
      for (const closing of closings) {
        verdict.fail(
          'debits',
          'DEBIT_UNMATCHED',
          locationOf(closing.recorded),
          `${closing.type} for bet ${betId}, which was never debited`,
          { expected: 'a StakeDebited first', found: closing.type },
        );
      }
      continue;
    }
    const placed = state?.placed;
    if (placed !== undefined && later(debit.recorded, placed)) {
      verdict.fail(
        'debits',
        'POSITION_INVALID',
        locationOf(debit.recorded),
        `bet ${betId} is debited after it was placed (${placed.stream}@${placed.revision}): a stake is always debited first, so one of them was moved in the log or inserted after the fact`,
        {
          expected: `a position before ${placed.position}`,
          found: String(debit.recorded.position),
        },
      );
    }
    if (state !== undefined && debit.amount !== state.bet.amount) {
      verdict.fail(
        'debits',
        'DEBIT_MISMATCH',
        locationOf(debit.recorded),
        `bet ${betId}: the wallet debited ${verdict.money(debit.amount)} for a ${verdict.money(state.bet.amount)} bet`,
        { expected: state.bet.amount, found: debit.amount },
      );
    }
    if (closings.length > 1) {
      verdict.fail(
        'debits',
        'DEBIT_CLOSED_TWICE',
        locationOf(closings[1]!.recorded),
        `bet ${betId}'s stake is closed ${closings.length} times (${closings.map((c) => `${c.type}@${c.recorded.revision}`).join(', ')})`,
        { expected: 'one payout or refund', found: closings.map((c) => c.type) },
      );
    }
    const closing = closings[0];
    if (closing === undefined) {
      if (state === undefined) {
        // Its bet never reached the round: the orphaned-debit sweep refunds it after a grace
        // period that the events cannot date, so an unrefunded one is reported, not judged.
        verdict.note(
          `${debit.recorded.stream}@${debit.recorded.revision}: bet ${betId} was debited ${debit.amount} but never reached round ${roundId}; its refund is not recorded yet`,
        );
        open++;
      } else if (!round.finished) {
        open++;
      } else {
        verdict.fail(
          'debits',
          'DEBIT_UNMATCHED',
          locationOf(debit.recorded),
          `bet ${betId}'s stake of ${verdict.money(debit.amount)} is debited but neither paid nor refunded`,
          { expected: 'a PayoutCredited or StakeRefunded', found: null },
        );
      }
      continue;
    }
    checkClosing(round, betId, debit, closing, state, accrued, verdict);
    if (closing.kind === 'refund') checkRelease(round, debit, closing, state, verdict);
  }
  for (const state of round.bets) {
    if (byBet.get(state.bet.betId)?.some((m) => m.kind === 'debit')) continue;
    verdict.fail(
      'debits',
      'DEBIT_UNMATCHED',
      { stream: streams.round(roundId), revision: null, type: 'BetPlaced' },
      `bet ${state.bet.betId} (${state.bet.playerId}, ${verdict.money(state.bet.amount)} on ${state.bet.type}) is on the round but no wallet debited its stake`,
      { expected: 'a StakeDebited', found: null },
    );
  }
  checkAdjustments(round, adjustments, verdict);
  verdict.pass('debits', open > 0 ? `${open} stake(s) still open: not paid or refunded yet` : null);
  return movements;
}

/**
 * A refund of a stake whose bet the round refused or never received (`bet-rejected`,
 * `orphaned-debit`) stands only on the round's StakeReleased for it, of the same amount and
 * before it; a bet the round holds is closed only by its settlement or void, never so.
 */
function checkRelease(
  round: RoundMoney,
  debit: Movement,
  closing: Movement,
  state: BetState | undefined,
  verdict: VerdictBuilder,
): void {
  if (closing.reason !== 'bet-rejected' && closing.reason !== 'orphaned-debit') return;
  const at = locationOf(closing.recorded);
  const betId = closing.betId;
  if (state !== undefined && state.bet.playerId === closing.playerId) {
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      at,
      `bet ${betId} stands on round ${round.roundId}, yet its stake was refunded as ${closing.reason}: only its settlement or void closes it`,
      { expected: 'a payout, or a refund of the void', found: `StakeRefunded (${closing.reason})` },
    );
    return;
  }
  if (round.released === undefined) return;
  const release = round.released.find((r) => r.betId === betId && r.playerId === closing.playerId);
  if (release === undefined) {
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      at,
      `bet ${betId}'s stake was refunded as ${closing.reason}, but round ${round.roundId} never released it`,
      { expected: 'a StakeReleased on the round first', found: null },
    );
    return;
  }
  if (release.amount !== debit.amount) {
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      locationOf(release.recorded),
      `round ${round.roundId} released ${verdict.money(release.amount)} for bet ${betId}, whose debit was ${verdict.money(debit.amount)}`,
      { expected: debit.amount, found: release.amount },
    );
  }
  if (later(release.recorded, closing.recorded)) {
    verdict.fail(
      'debits',
      'POSITION_INVALID',
      at,
      `bet ${betId}'s stake is refunded before its round released it (${release.recorded.stream}@${release.recorded.revision})`,
      {
        expected: `a position after ${release.recorded.position}`,
        found: String(closing.recorded.position),
      },
    );
  }
}

/** What a movement's detail column says: the payout's result, the refund's or adjustment's reason. */
function detailOf(movement: Movement, verdict: VerdictBuilder): string | null {
  if (movement.kind !== 'adjustment') return movement.result ?? movement.reason;
  const commission = movement.commissionDelta ?? 0;
  return commission === 0
    ? movement.reason
    : `${movement.reason ?? 'adjustment'}, commission owed ${verdict.money.signed(commission)}`;
}

/** A PayoutAdjusted field in a finding's message: a change of money in the round's currency. */
function changeShown(verdict: VerdictBuilder, field: string, value: unknown): string {
  return (field === 'difference' || field === 'commission owed change') && typeof value === 'number'
    ? verdict.money.signed(value)
    : String(value);
}

/**
 * Every resettlement line of a standing bet that moves money (a payout difference, or commission
 * owed changed on an accrued-commission table) is applied by exactly one PayoutAdjusted in the
 * bet's player's wallet, after the resettlement, of the difference the rules give; a line that
 * moves nothing has none, and no PayoutAdjusted stands without its line.
 */
function checkAdjustments(
  round: RoundMoney,
  adjustments: readonly Movement[],
  verdict: VerdictBuilder,
): void {
  const expected = new Map<string, { state: BetState; line: BetAdjustment }>();
  const resettlements = new Map<string, RecordedEvent>();
  for (const state of round.bets) {
    for (const line of state.adjustments) {
      resettlements.set(line.resettlementId, line.at);
      if (line.recorded === null) continue; // named by the payouts check: nothing was sent
      expected.set(`${line.resettlementId}/${state.bet.betId}`, { state, line });
    }
  }
  const matched = new Map<string, Movement>();
  for (const movement of adjustments) {
    const at = locationOf(movement.recorded);
    const key = `${movement.settlementId ?? ''}/${movement.betId}`;
    const match = expected.get(key);
    if (match === undefined) {
      const resettledAt = resettlements.get(movement.settlementId ?? '');
      verdict.fail(
        'debits',
        'ADJUSTMENT_UNMATCHED',
        at,
        resettledAt === undefined
          ? `PayoutAdjusted of ${verdict.money.signed(movement.amount)} for bet ${movement.betId} names resettlement ${movement.settlementId ?? '(none)'}, which round ${round.roundId} never recorded`
          : `PayoutAdjusted of ${verdict.money.signed(movement.amount)} for bet ${movement.betId}, which the resettlement at ${resettledAt.stream}@${resettledAt.revision} does not adjust`,
        { expected: 'no PayoutAdjusted', found: { delta: movement.amount } },
      );
      continue;
    }
    const first = matched.get(key);
    if (first !== undefined) {
      verdict.fail(
        'debits',
        'ADJUSTMENT_UNMATCHED',
        at,
        `bet ${movement.betId} is adjusted a second time for the resettlement at ${match.line.at.stream}@${match.line.at.revision} (first at ${first.recorded.stream}@${first.recorded.revision})`,
        { expected: 'one PayoutAdjusted', found: 'two' },
      );
      continue;
    }
    matched.set(key, movement);
    const { line, state } = match;
    if (later(line.at, movement.recorded)) {
      verdict.fail(
        'debits',
        'POSITION_INVALID',
        at,
        `bet ${movement.betId} is adjusted before the resettlement it applies was recorded (${line.at.stream}@${line.at.revision}): one of them was moved in the log or inserted after the fact`,
        {
          expected: `a position after ${line.at.position}`,
          found: String(movement.recorded.position),
        },
      );
    }
    const recorded = movement.recorded.data as { tableId?: unknown; shiftId?: unknown };
    const fields: [string, unknown, unknown][] = [
      ['wallet', state.bet.playerId, movement.playerId],
      ['difference', line.expected.delta, movement.amount],
      ['commission owed change', line.expected.commissionDelta, movement.commissionDelta],
      ['reason', line.kind, movement.reason],
    ];
    if (round.place) {
      fields.push(['table', round.place.tableId, recorded.tableId]);
      fields.push(['dealer shift', round.place.shiftId, recorded.shiftId]);
    }
    for (const [field, want, got] of fields) {
      if (want === got) continue;
      verdict.fail(
        'debits',
        'ADJUSTMENT_MISMATCH',
        at,
        `bet ${movement.betId}: PayoutAdjusted records ${field} ${changeShown(verdict, field, got)}; the resettlement at ${line.at.stream}@${line.at.revision}, recomputed, gives ${changeShown(verdict, field, want)}`,
        { expected: want, found: got },
      );
    }
  }
  for (const [key, { state, line }] of expected) {
    const moves = line.expected.delta !== 0 || line.expected.commissionDelta !== 0;
    if (!moves || matched.has(key)) continue;
    const commission =
      line.expected.commissionDelta === 0
        ? ''
        : `, commission owed ${verdict.money.signed(line.expected.commissionDelta)}`;
    verdict.fail(
      'debits',
      'ADJUSTMENT_MISSING',
      locationOf(line.at),
      `bet ${state.bet.betId} (${state.bet.playerId}): the resettlement pays a difference of ${verdict.money.signed(line.expected.delta)}${commission}, but no PayoutAdjusted in ${streams.wallet(state.bet.playerId)} applies it`,
      {
        expected: {
          delta: line.expected.delta,
          commissionDelta: line.expected.commissionDelta,
        },
        found: null,
      },
    );
  }
}

function checkClosing(
  round: RoundMoney,
  betId: string,
  debit: Movement,
  closing: Movement,
  state: BetState | undefined,
  accrued: readonly Movement[],
  verdict: VerdictBuilder,
): void {
  const at = locationOf(closing.recorded);
  if (closing.kind === 'refund') {
    if (closing.amount !== debit.amount) {
      verdict.fail(
        'debits',
        'CREDIT_MISMATCH',
        at,
        `bet ${betId}: refunded ${verdict.money(closing.amount)} of a ${verdict.money(debit.amount)} stake`,
        { expected: debit.amount, found: closing.amount },
      );
    }
    if (state?.line) {
      verdict.fail(
        'debits',
        'CREDIT_MISMATCH',
        at,
        `bet ${betId} was settled (${state.line.result}) but its stake was refunded instead of paid`,
        {
          expected: `PayoutCredited ${state.line.payout}`,
          found: `StakeRefunded ${closing.amount}`,
        },
      );
    }
    return;
  }
  const settled = round.settledAt;
  if (settled !== undefined && settled !== null && later(settled, closing.recorded)) {
    verdict.fail(
      'debits',
      'POSITION_INVALID',
      at,
      `bet ${betId} is credited before the settlement it pays was recorded (${settled.stream}@${settled.revision}): one of them was moved in the log or inserted after the fact`,
      {
        expected: `a position after ${settled.position}`,
        found: String(closing.recorded.position),
      },
    );
  }
  if (state === undefined || state.line === null) {
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      at,
      state === undefined
        ? `bet ${betId} is paid but is not on the round`
        : `bet ${betId} is paid but has no settlement line`,
      { expected: 'no payout', found: closing.amount },
    );
    return;
  }
  const fields: [string, unknown, unknown][] = [
    ['amount', state.expected?.payout ?? state.line.payout, closing.amount],
    ['result', state.expected?.result ?? state.line.result, closing.result],
    ['settlement', round.settlementId, closing.settlementId],
  ];
  for (const [field, expected, found] of fields) {
    if (expected === found) continue;
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      at,
      `bet ${betId}: the wallet credited ${field} ${field === 'amount' && typeof found === 'number' ? verdict.money(found) : String(found)}, the settlement gives ${field === 'amount' && typeof expected === 'number' ? verdict.money(expected) : String(expected)}`,
      { expected, found },
    );
  }
  const owed = state.line.commissionMode === 'accrued' ? state.line.commission : 0;
  const accruedTotal = accrued.reduce((sum, item) => sum + item.amount, 0);
  if (owed !== accruedTotal) {
    verdict.fail(
      'debits',
      'CREDIT_MISMATCH',
      at,
      `bet ${betId}: commission accrued ${verdict.money(accruedTotal)}, the settlement owes ${verdict.money(owed)}`,
      { expected: owed, found: accruedTotal },
    );
  }
}
