import {
  DomainError,
  foldCommissionDebt,
  funMarkOf,
  isPlayMoney,
  PLAY_MONEY_CURRENCY,
  type PlayerId,
  type RoundId,
  type ShiftEnd,
  type WalletEvent,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';
import { mayRefund, type RefundReason, type StakeStanding } from './stake-standing.js';

/**
 * A player's wallet. Its balance is the sum of its events. A stake debited for a bet stays
 * "open" until exactly one payout (possibly 0) or refund closes it; commission owed on an
 * accrued-commission table is held back from what the player can spend until it is collected.
 */
export type WalletCommand =
  | {
      type: 'Deposit';
      playerId: PlayerId;
      amount: number;
      currency: string;
      reference: string;
      /** The most this wallet may hold after the deposit (the operator's limit per currency). */
      maxBalance: number;
    }
  | { type: 'Withdraw'; amount: number; reference: string }
  /**
   * Fun mode (ADR 0030): tops a fun wallet up to `topUpTo` play money, if it holds less. Play
   * money enters a fun wallet this way only, and a real wallet never.
   */
  | { type: 'GrantPlayMoney'; playerId: PlayerId; topUpTo: number }
  | {
      type: 'DebitStakes';
      playerId: PlayerId;
      roundId: RoundId;
      currency: string;
      stakes: readonly { betId: string; amount: number }[];
    }
  | {
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
  | {
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
  | {
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
   * Collects the commission owed at a table for every shift but the one now running (`null`
   * once the table closed: every shift has ended), naming what ended them.
   */
  | {
      type: 'CollectCommission';
      tableId: string;
      currentShiftId: string | null;
      endedBy: ShiftEnd;
    };

export interface OpenStake {
  readonly roundId: RoundId;
  readonly amount: number;
}

export interface WalletState {
  readonly exists: boolean;
  readonly playerId: PlayerId;
  /** The wallet's one currency: `FUN` for a fun wallet (play money, ADR 0030). */
  readonly currency: string | null;
  /** Sum of all movements, minor units. */
  readonly balance: number;
  readonly openStakes: ReadonlyMap<string, OpenStake>;
  /**
   * The bet ids of stakes given back (StakeRefunded): never taken, so nothing their round
   * resettles later is the wallet's to adjust.
   */
  readonly refundedStakes: ReadonlySet<string>;
  /**
   * Amount of each deposit and withdrawal by its reference, keyed `deposit:REF`, `withdrawal:REF`;
   * a fun wallet's play-money grants by number, `grant:N`.
   */
  readonly references: ReadonlyMap<string, number>;
  /** Commission owed per table dealer shift (accrued, not yet collected), keyed `table/shift`. */
  readonly commissionOwed: ReadonlyMap<string, number>;
}

export const initialWalletState = (): WalletState => ({
  exists: false,
  playerId: '',
  currency: null,
  balance: 0,
  openStakes: new Map(),
  refundedStakes: new Set(),
  references: new Map(),
  commissionOwed: new Map(),
});

export const shiftKey = (tableId: string, shiftId: string): string => `${tableId}/${shiftId}`;

/** What the player can spend: the balance less commission owed. */
export function available(state: WalletState): number {
  let owed = 0;
  for (const amount of state.commissionOwed.values()) owed += amount;
  return state.balance - owed;
}

const withoutStake = (stakes: ReadonlyMap<string, OpenStake>, betId: string) => {
  const next = new Map(stakes);
  next.delete(betId);
  return next;
};

export function evolveWallet(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'FundsDeposited':
      return {
        ...state,
        exists: true,
        playerId: event.data.playerId,
        currency: state.currency ?? event.data.currency,
        balance: state.balance + event.data.amount,
        references: new Map(state.references).set(
          `deposit:${event.data.reference}`,
          event.data.amount,
        ),
      };
    case 'PlayMoneyGranted':
      return {
        ...state,
        exists: true,
        playerId: event.data.playerId,
        currency: PLAY_MONEY_CURRENCY,
        balance: state.balance + event.data.amount,
        references: new Map(state.references).set(`grant:${event.data.grant}`, event.data.amount),
      };
    case 'FundsWithdrawn':
      return {
        ...state,
        balance: state.balance - event.data.amount,
        references: new Map(state.references).set(
          `withdrawal:${event.data.reference}`,
          event.data.amount,
        ),
      };
    case 'StakeDebited': {
      const openStakes = new Map(state.openStakes);
      openStakes.set(event.data.betId, { roundId: event.data.roundId, amount: event.data.amount });
      return { ...state, balance: state.balance - event.data.amount, openStakes };
    }
    case 'PayoutCredited':
      return {
        ...state,
        balance: state.balance + event.data.amount,
        openStakes: withoutStake(state.openStakes, event.data.betId),
      };
    case 'StakeRefunded':
      return {
        ...state,
        balance: state.balance + event.data.amount,
        openStakes: withoutStake(state.openStakes, event.data.betId),
        refundedStakes: new Set(state.refundedStakes).add(event.data.betId),
      };
    case 'CommissionAccrued':
    case 'CommissionCollected':
    case 'PayoutAdjusted': {
      const commissionOwed = new Map(state.commissionOwed);
      const givenBack = foldCommissionDebt(commissionOwed, event);
      const moved =
        event.type === 'CommissionCollected'
          ? -event.data.amount
          : event.type === 'PayoutAdjusted'
            ? event.data.delta + givenBack
            : 0;
      return { ...state, balance: state.balance + moved, commissionOwed };
    }
  }
}

function requirePositive(amount: number, what: string): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new DomainError(
      'INVALID_AMOUNT',
      `${what} must be a positive integer number of minor units, got ${amount}`,
      {
        field: 'amount',
      },
    );
  }
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

function requireWallet(state: WalletState): void {
  if (!state.exists)
    throw new DomainError('WALLET_NOT_FOUND', 'the wallet has no funds yet: deposit first');
}

/**
 * Play money and real money never meet (ADR 0030): a command for play money is refused by a
 * real wallet, and one for real money by a fun wallet, whatever else it names.
 */
function requireSameMoney(state: WalletState, currency: string | null, what: string): void {
  if (state.currency === null || isPlayMoney(state.currency) === isPlayMoney(currency)) return;
  throw new DomainError(
    'CURRENCY_MISMATCH',
    isPlayMoney(currency)
      ? `${what} in play money (${currency}) never reaches a real-money wallet (${state.currency})`
      : `${what} in ${currency ?? 'real money'} never reaches a fun wallet: it holds play money (${state.currency}) only`,
    { field: 'currency' },
  );
}

const grantsOf = (state: WalletState): number =>
  [...state.references.keys()].filter((key) => key.startsWith('grant:')).length;

/**
 * A reference names one deposit or withdrawal: the same one again is a retry (nothing more to
 * do); another amount under the same reference is a conflict, refused.
 */
function alreadyRecorded(
  state: WalletState,
  kind: 'deposit' | 'withdrawal',
  reference: string,
  amount: number,
): boolean {
  const recorded = state.references.get(`${kind}:${reference}`);
  if (recorded === undefined) return false;
  if (recorded === amount) return true;
  throw new DomainError(
    'ID_CONFLICT',
    `reference "${reference}" already records a ${kind} of ${recorded}, not ${amount}; a new ${kind} needs a new reference`,
    { field: 'reference' },
  );
}

function decide(command: WalletCommand, state: WalletState): WalletEvent[] {
  switch (command.type) {
    case 'Deposit':
      requirePositive(command.amount, 'a deposit');
      if (isPlayMoney(command.currency) || isPlayMoney(state.currency)) {
        throw new DomainError(
          'CURRENCY_MISMATCH',
          `play money (${PLAY_MONEY_CURRENCY}) is granted to a fun wallet, never deposited, and a fun wallet takes no real money`,
          { field: 'currency' },
        );
      }
      if (state.currency !== null && state.currency !== command.currency) {
        throw new DomainError(
          'CURRENCY_MISMATCH',
          `this wallet holds ${state.currency}, not ${command.currency}`,
        );
      }
      if (alreadyRecorded(state, 'deposit', command.reference, command.amount)) return [];
      if (command.amount > command.maxBalance - state.balance) {
        throw new DomainError(
          'BALANCE_LIMIT',
          `a deposit of ${command.amount} would take the balance of ${state.balance} past the limit of ${command.maxBalance} ${command.currency}`,
          { field: 'amount', maxBalance: command.maxBalance, balance: state.balance },
        );
      }
      return [
        {
          type: 'FundsDeposited',
          data: {
            playerId: command.playerId,
            amount: command.amount,
            currency: command.currency,
            reference: command.reference,
          },
        },
      ];
    case 'GrantPlayMoney': {
      requirePositive(command.topUpTo, 'a fun balance');
      requireSameMoney(state, PLAY_MONEY_CURRENCY, 'a play-money grant');
      const amount = command.topUpTo - available(state);
      if (amount <= 0) return [];
      return [
        {
          type: 'PlayMoneyGranted',
          data: {
            playerId: command.playerId,
            amount,
            currency: PLAY_MONEY_CURRENCY,
            topUpTo: command.topUpTo,
            grant: grantsOf(state) + 1,
            fun: true,
          },
        },
      ];
    }
    case 'Withdraw':
      requireWallet(state);
      if (isPlayMoney(state.currency)) {
        throw new DomainError(
          'CURRENCY_MISMATCH',
          'play money cannot be withdrawn: it is worth nothing outside its fun wallet',
          { field: 'currency' },
        );
      }
      requirePositive(command.amount, 'a withdrawal');
      if (alreadyRecorded(state, 'withdrawal', command.reference, command.amount)) return [];
      if (command.amount > available(state)) {
        throw new DomainError(
          'INSUFFICIENT_FUNDS',
          `cannot withdraw ${command.amount}: ${available(state)} available`,
          {
            available: available(state),
          },
        );
      }
      return [
        {
          type: 'FundsWithdrawn',
          data: { playerId: state.playerId, amount: command.amount, reference: command.reference },
        },
      ];
    case 'DebitStakes': {
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
          `stakes of ${total} exceed the ${available(state)} available`,
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
    case 'CreditPayout': {
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
    case 'RefundStake': {
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
    case 'AdjustPayout': {
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
    case 'CollectCommission': {
      // Every seat's debt of every shift but the one now running, one record per seat and shift.
      const prefix = shiftKey(command.tableId, '');
      return [...state.commissionOwed]
        .filter(([key, owed]) => key.startsWith(prefix) && owed > 0)
        .map(([key, owed]) => {
          const [shiftId, seat] = key.slice(prefix.length).split('/') as [string, string];
          return { shiftId, seat: Number(seat), owed };
        })
        .filter(({ shiftId }) => shiftId !== command.currentShiftId)
        .map(({ shiftId, seat, owed }) => ({
          type: 'CommissionCollected',
          data: {
            playerId: state.playerId,
            tableId: command.tableId,
            shiftId,
            ...(seat > 0 ? { seat } : {}),
            amount: owed,
            ...command.endedBy,
          },
        }));
    }
  }
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  decide,
  evolve: evolveWallet,
  initialState: initialWalletState,
};
