import {
  DomainError,
  funMarkOf,
  isPlayMoney,
  type PlayerId,
  type RoundId,
  type WalletEvent,
} from '@croupier/contracts';
import { mayRefund, type RefundReason, type StakeStanding } from '../stake-standing.js';
import { moneyText, requirePositive, requireSameMoney, requireWallet } from '../wallet.rules.js';
import { available, type OpenStake, type WalletState } from '../wallet.state.js';

/**
 * A bet's stake from its debit to the one payout (possibly 0) or refund that closes it, and the
 * adjustment a resettlement of its round makes afterwards.
 */
export interface DebitStakesCommand {
  type: 'DebitStakes';
  playerId: PlayerId;
  roundId: RoundId;
  currency: string;
  stakes: readonly { betId: string; amount: number }[];
}

export interface CreditPayoutCommand {
  type: 'CreditPayout';
  /** The round's currency: play money is credited to a fun wallet only, real money never. */
  currency: string;
  settlementId: string;
  roundId: RoundId;
  betId: string;
  amount: number;
  result: 'win' | 'lose' | 'push';
  /** Commission owed on an accrued-commission table, recorded with the payout. */
  accruedCommission: { tableId: string; seat: number; shiftId: string; amount: number } | null;
}

export interface RefundStakeCommand {
  type: 'RefundStake';
  /** The currency the stake was debited in (absent: real money): play money goes back to a fun wallet only. */
  currency?: string | undefined;
  betId: string;
  /** The round the stake was debited for, and its amount: a refund for another is refused. */
  roundId: RoundId;
  amount: number;
  reason: RefundReason;
  /**
   * What the stake's round records of it, read when the refund is asked for: a refund before
   * any bet (`bet-rejected`, `orphaned-debit`) stands only on the round's release of it.
   */
  standing?: StakeStanding | undefined;
}

export interface AdjustPayoutCommand {
  type: 'AdjustPayout';
  currency: string;
  resettlementId: string;
  roundId: RoundId;
  betId: string;
  delta: number;
  commissionDelta: number;
  tableId: string;
  shiftId: string;
  seat?: number | null;
  reason: 'void' | 'correction';
}

/**
 * The open stake a command names by bet id, round and amount. A bet id open for another round or
 * amount names another bet: the command is refused, so no id can move another bet's money.
 */
function openStakeNamed(
  state: WalletState,
  stake: { betId: string; roundId: RoundId; amount?: number },
): OpenStake | undefined {
  const open = state.openStakes.get(stake.betId);
  if (open === undefined) return undefined;
  if (open.roundId !== stake.roundId) {
    throw new DomainError(
      'ID_CONFLICT',
      `betId ${stake.betId} names an open stake of round ${open.roundId}, not of round ${stake.roundId}; a new bet needs a new id`,
      { field: 'betId', betIds: [stake.betId] },
    );
  }
  if (stake.amount !== undefined && open.amount !== stake.amount) {
    throw new DomainError(
      'ID_CONFLICT',
      `betId ${stake.betId} names an open stake of ${open.amount}, not ${stake.amount}; a new bet needs a new id`,
      { field: 'betId', betIds: [stake.betId] },
    );
  }
  return open;
}

/** Balances stay exact: no movement may take one past the largest safe integer. */
function requireSafeBalance(state: WalletState, credit: number): void {
  if (!Number.isSafeInteger(state.balance + credit)) {
    throw new DomainError(
      'BALANCE_LIMIT',
      `a credit of ${credit} would take the balance of ${state.balance} past what minor units can hold exactly`,
      { field: 'amount' },
    );
  }
}

export function decideDebitStakes(command: DebitStakesCommand, state: WalletState): WalletEvent[] {
  if (!state.exists && isPlayMoney(command.currency))
    throw new DomainError(
      'WALLET_NOT_FOUND',
      `no play money yet: top the fun wallet up first (POST /v1/wallets/${command.playerId}/play-money)`,
    );
  requireWallet(state);
  if (state.currency !== command.currency) {
    throw new DomainError(
      'CURRENCY_MISMATCH',
      `this wallet holds ${state.currency ?? 'nothing'}, the table plays ${command.currency}`,
    );
  }
  const ids = command.stakes.map((stake) => stake.betId);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) {
    throw new DomainError('VALIDATION_ERROR', `betId ${twice} appears twice in one request`, {
      field: 'betId',
    });
  }
  // A stake open for this round and amount was debited by an earlier attempt: a retry.
  const fresh = command.stakes.filter(
    (stake) => openStakeNamed(state, { ...stake, roundId: command.roundId }) === undefined,
  );
  let total = 0;
  for (const stake of fresh) {
    requirePositive(stake.amount, 'a stake');
    total += stake.amount;
  }
  if (total > available(state)) {
    throw new DomainError(
      'INSUFFICIENT_FUNDS',
      `stakes of ${moneyText(state, total)} exceed the ${moneyText(state, available(state))} available`,
      {
        available: available(state),
      },
    );
  }
  return fresh.map((stake) => ({
    type: 'StakeDebited',
    data: {
      playerId: command.playerId,
      betId: stake.betId,
      roundId: command.roundId,
      amount: stake.amount,
      ...funMarkOf(state.currency),
    },
  }));
}

export function decideCreditPayout(
  command: CreditPayoutCommand,
  state: WalletState,
): WalletEvent[] {
  requireSameMoney(state, command.currency, 'a payout');
  // A stake no longer open was paid or refunded already: crediting again would pay twice.
  if (openStakeNamed(state, { betId: command.betId, roundId: command.roundId }) === undefined)
    return [];
  if (!Number.isSafeInteger(command.amount) || command.amount < 0) {
    throw new DomainError(
      'INVALID_AMOUNT',
      `a payout must be a non-negative integer, got ${command.amount}`,
    );
  }
  requireSafeBalance(state, command.amount);
  const events: WalletEvent[] = [
    {
      type: 'PayoutCredited',
      data: {
        playerId: state.playerId,
        betId: command.betId,
        roundId: command.roundId,
        settlementId: command.settlementId,
        amount: command.amount,
        result: command.result,
        ...funMarkOf(state.currency),
      },
    },
  ];
  const accrued = command.accruedCommission;
  if (accrued !== null && accrued.amount > 0) {
    events.push({
      type: 'CommissionAccrued',
      data: {
        playerId: state.playerId,
        tableId: accrued.tableId,
        seat: accrued.seat,
        shiftId: accrued.shiftId,
        betId: command.betId,
        settlementId: command.settlementId,
        amount: accrued.amount,
      },
    });
  }
  return events;
}

export function decideRefundStake(command: RefundStakeCommand, state: WalletState): WalletEvent[] {
  requireSameMoney(state, command.currency ?? null, 'a refund');
  // Closed already (paid or refunded), or never debited: nothing to return.
  const stake = openStakeNamed(state, command);
  if (stake === undefined) return [];
  // Not released by its round: it stands as a bet, or may still become one. Its round
  // closes it (settlement or void), never this refund.
  if (!mayRefund(command.reason, command.standing)) return [];
  return [
    {
      type: 'StakeRefunded',
      data: {
        playerId: state.playerId,
        betId: command.betId,
        roundId: stake.roundId,
        amount: stake.amount,
        reason: command.reason,
        ...funMarkOf(state.currency),
      },
    },
  ];
}

export function decideAdjustPayout(
  command: AdjustPayoutCommand,
  state: WalletState,
): WalletEvent[] {
  if (!Number.isSafeInteger(command.delta) || !Number.isSafeInteger(command.commissionDelta)) {
    throw new DomainError('INVALID_AMOUNT', 'adjustments are whole numbers of minor units');
  }
  requireSameMoney(state, command.currency, 'an adjustment');
  if (command.delta === 0 && command.commissionDelta === 0) return [];
  // A stake given back was never taken: its bet's resettlement moves none of its money.
  if (state.refundedStakes.has(command.betId)) return [];
  requireSafeBalance(state, command.delta);
  const { type: _type, currency: _currency, ...data } = command;
  return [
    {
      type: 'PayoutAdjusted',
      data: { playerId: state.playerId, ...data, ...funMarkOf(state.currency) },
    },
  ];
}
