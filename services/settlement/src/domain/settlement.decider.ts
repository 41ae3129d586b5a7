import type { BetSettlement, RoundOutcome } from '@croupier/baccarat';
import {
  DomainError,
  settlePlacedBets,
  type PlacedBet,
  type Adjustment,
  type RefundLine,
  type RoundEvent,
  type RoundRules,
  type SettledSpot,
  type SettlementLine,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';

/**
 * Settlement's view of a round stream: the bets still standing, the outcome, and what has been
 * settled or refunded. From it, it decides RoundSettled (once, when the round completes) and
 * BetsRefunded (for cleared bets, and for every bet of a voided round).
 */
export type SettlementCommand =
  | { type: 'SettleRound'; settlementId: string }
  | { type: 'RefundVoidedRound'; refundId: string }
  | { type: 'RefundClearedBets'; refundId: string; betIds: readonly string[] }
  | { type: 'ResettleRound'; resettlementId: string; kind: 'void' | 'correction'; reason: string };

type Completed = Extract<RoundEvent, { type: 'RoundCompleted' }>['data'];

export interface SettlementState {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly currency: string;
  readonly shiftId: string;
  readonly rules: RoundRules | null;
  /** Bets placed and not cleared, by id. */
  readonly standing: ReadonlyMap<string, PlacedBet>;
  /** Bets cleared and not yet refunded. */
  readonly cleared: ReadonlyMap<string, PlacedBet>;
  readonly completed: Completed | null;
  readonly voided: boolean;
  readonly settlementId: string | null;
  /**
   * The round was settled spot by spot (its RoundSettled lists `spots`): a correction resettles
   * it the same way. A round settled before spots were paid whole is resettled chip by chip, as
   * it was paid.
   */
  readonly bySpot: boolean;
  /** What each settled bet is paid now: the settlement, as adjusted by resettlements since. */
  readonly paid: ReadonlyMap<string, PaidLine>;
  readonly resettlements: ReadonlySet<string>;
  readonly refunded: ReadonlySet<string>;
}

export interface PaidLine {
  readonly payout: number;
  readonly commission: number;
  readonly result: 'win' | 'lose' | 'push' | 'refund';
}

export const initialSettlementState = (): SettlementState => ({
  roundId: '',
  tableId: '',
  shoeId: '',
  currency: '',
  shiftId: '',
  rules: null,
  standing: new Map(),
  cleared: new Map(),
  completed: null,
  voided: false,
  settlementId: null,
  bySpot: true,
  paid: new Map(),
  resettlements: new Set(),
  refunded: new Set(),
});

export function evolveSettlement(state: SettlementState, event: RoundEvent): SettlementState {
  switch (event.type) {
    case 'RoundOpened':
      return {
        ...state,
        roundId: event.data.roundId,
        tableId: event.data.tableId,
        shoeId: event.data.shoeId,
        currency: event.data.currency,
        shiftId: event.data.dealer.shiftId,
        rules: event.data.rules,
      };
    case 'BetPlaced': {
      const { roundId: _roundId, rebetOf: _rebetOf, fun: _fun, ...bet } = event.data;
      const standing = new Map(state.standing);
      standing.set(bet.betId, bet);
      return { ...state, standing };
    }
    case 'BetsCleared': {
      const standing = new Map(state.standing);
      const cleared = new Map(state.cleared);
      for (const betId of event.data.betIds) {
        const bet = standing.get(betId);
        if (bet === undefined) continue;
        standing.delete(betId);
        cleared.set(betId, bet);
      }
      return { ...state, standing, cleared };
    }
    case 'RoundCompleted':
      return { ...state, completed: event.data };
    case 'RoundSettled':
      return {
        ...state,
        settlementId: event.data.settlementId,
        bySpot: event.data.spots !== undefined,
        paid: new Map(event.data.lines.map((line) => [line.betId, line])),
      };
    case 'RoundResultCorrected': {
      const { reason: _reason, ...completed } = event.data;
      return { ...state, completed };
    }
    case 'RoundResettled': {
      const paid = new Map(state.paid);
      for (const adjustment of event.data.adjustments) paid.set(adjustment.betId, adjustment);
      const resettlements = new Set(state.resettlements);
      resettlements.add(event.data.resettlementId);
      return { ...state, paid, resettlements };
    }
    case 'BetsRefunded': {
      const refunded = new Set(state.refunded);
      const cleared = new Map(state.cleared);
      for (const line of event.data.lines) {
        refunded.add(line.betId);
        cleared.delete(line.betId);
      }
      return { ...state, refunded, cleared };
    }
    case 'RoundVoided':
      return { ...state, voided: true };
    default:
      return state;
  }
}

/** The rules engine's view of a completed round. */
export function outcomeOf(completed: Completed): RoundOutcome {
  return {
    winner: completed.winner,
    playerTotal: completed.player.total,
    bankerTotal: completed.banker.total,
    playerCardCount: completed.player.cards.length as 2 | 3,
    bankerCardCount: completed.banker.cards.length as 2 | 3,
    playerNatural: completed.player.natural,
    bankerNatural: completed.banker.natural,
    playerPair: completed.player.pair,
    bankerPair: completed.banker.pair,
    playerPerfectPair: completed.player.perfectPair,
    bankerPerfectPair: completed.banker.perfectPair,
  };
}

/**
 * What each standing bet (chip) is paid under `outcome`, by bet id: chips on one spot are one
 * stake (docs/rules.md "Spots"), paid once on their total and shared back over the chips. A
 * round settled before that (`bySpot` false) is paid chip by chip, as it was.
 */
function settleStanding(
  state: SettlementState,
  outcome: RoundOutcome,
): { chips: Map<string, BetSettlement>; spots: SettledSpot[] } {
  return settlePlacedBets([...state.standing.values()], outcome, state.rules!, state.bySpot);
}

/**
 * Settles every standing bet of a completed round with the round's own paytable, spot by spot:
 * a line per bet (chip) with its share of its spot's payout, and the spots themselves.
 */
export function settlementLines(state: SettlementState): {
  lines: SettlementLine[];
  spots: SettledSpot[];
} {
  const rules = state.rules!;
  const { chips, spots } = settleStanding(state, outcomeOf(state.completed!));
  const lines = [...state.standing.values()].map((bet) => {
    const settled = chips.get(bet.betId)!;
    return {
      betId: bet.betId,
      playerId: bet.playerId,
      type: bet.type,
      bankerMode: bet.bankerMode,
      seat: bet.seat,
      stake: bet.amount,
      result: settled.result,
      payout: settled.payout,
      commission: settled.commission,
      commissionMode: rules.commission,
    };
  });
  return { lines, spots };
}

/** Where the round was played, as settlement records carry it. */
const placeOf = (state: SettlementState) => ({
  roundId: state.roundId,
  tableId: state.tableId,
  shoeId: state.shoeId,
  currency: state.currency,
  shiftId: state.shiftId,
});

const refundLine = (bet: PlacedBet): RefundLine => ({
  betId: bet.betId,
  playerId: bet.playerId,
  amount: bet.amount,
});

function decide(command: SettlementCommand, state: SettlementState): RoundEvent[] {
  if (state.rules === null) throw new DomainError('ROUND_NOT_FOUND', 'no such round');
  switch (command.type) {
    case 'SettleRound': {
      // A voided round is never paid (ADR 0033): voided before its settlement, its bets are
      // refunded by the void (RefundVoidedRound), whether it completed first or not. Only a void
      // after settlement is compensated, by a resettlement to the stakes (ADR 0009). The append
      // carries the round's expected version, so a void that lands while this is decided makes
      // it decide again, and nothing.
      if (state.settlementId !== null || state.voided) return [];
      if (state.completed === null)
        throw new DomainError('ROUND_NOT_DEALING', `round ${state.roundId} is not complete`);
      const { lines, spots } = settlementLines(state);
      const sum = (pick: (line: SettlementLine) => number) =>
        lines.reduce((total, line) => total + pick(line), 0);
      return [
        {
          type: 'RoundSettled',
          data: {
            ...placeOf(state),
            settlementId: command.settlementId,
            lines,
            spots,
            totals: {
              staked: sum((l) => l.stake),
              paidOut: sum((l) => l.payout),
              commission: sum((l) => l.commission),
            },
          },
        },
      ];
    }
    case 'RefundVoidedRound': {
      if (!state.voided)
        throw new DomainError('ROUND_NOT_DEALING', `round ${state.roundId} is not voided`);
      if (state.settlementId !== null) return []; // settled first: resettled, not refunded
      const lines = [...state.standing.values(), ...state.cleared.values()]
        .filter((bet) => !state.refunded.has(bet.betId))
        .map(refundLine);
      if (lines.length === 0) return [];
      return [
        {
          type: 'BetsRefunded',
          data: { ...placeOf(state), refundId: command.refundId, reason: 'voided', lines },
        },
      ];
    }
    case 'ResettleRound': {
      if (state.resettlements.has(command.resettlementId) || state.settlementId === null) return [];
      const rules = state.rules;
      // A correction pays every bet by the corrected result, the way the round was settled.
      const corrected =
        command.kind === 'correction'
          ? settleStanding(state, outcomeOf(state.completed!)).chips
          : null;
      const adjustments: Adjustment[] = [...state.standing.values()].map((bet) => {
        const before = state.paid.get(bet.betId) ?? { payout: 0, commission: 0 };
        const after =
          corrected === null
            ? { payout: bet.amount, commission: 0, result: 'refund' as const }
            : corrected.get(bet.betId)!;
        return {
          betId: bet.betId,
          playerId: bet.playerId,
          stake: bet.amount,
          previousPayout: before.payout,
          payout: after.payout,
          delta: after.payout - before.payout,
          result: after.result,
          previousCommission: before.commission,
          commission: after.commission,
          commissionMode: rules.commission,
          seat: bet.seat,
        };
      });
      // A correction that changes nothing anyone is paid moves no money: nothing to record.
      if (adjustments.every((a) => a.delta === 0 && a.commission === a.previousCommission))
        return [];
      return [
        {
          type: 'RoundResettled',
          data: {
            ...placeOf(state),
            resettlementId: command.resettlementId,
            kind: command.kind,
            reason: command.reason,
            adjustments,
          },
        },
      ];
    }
    case 'RefundClearedBets': {
      const lines = command.betIds
        .map((betId) => state.cleared.get(betId))
        .filter((bet): bet is PlacedBet => bet !== undefined && !state.refunded.has(bet.betId))
        .map(refundLine);
      if (lines.length === 0) return [];
      return [
        {
          type: 'BetsRefunded',
          data: { ...placeOf(state), refundId: command.refundId, reason: 'cleared', lines },
        },
      ];
    }
  }
}

export const settlementDecider: Decider<SettlementCommand, RoundEvent, SettlementState> = {
  decide,
  evolve: evolveSettlement,
  initialState: initialSettlementState,
};
