import {
  DomainError,
  isPlayMoney,
  PLAY_MONEY_CURRENCY,
  type PlayerId,
  type WalletEvent,
} from '@croupier/contracts';
import { moneyText, requirePositive, requireWallet } from '../wallet.rules.js';
import { available, type WalletState } from '../wallet.state.js';

/** Real money in and out of a wallet: deposits and withdrawals, each named by its reference. */
export interface DepositCommand {
  type: 'Deposit';
  playerId: PlayerId;
  amount: number;
  currency: string;
  reference: string;
  /** The most this wallet may hold after the deposit (the operator's limit per currency). */
  maxBalance: number;
}

export interface WithdrawCommand {
  type: 'Withdraw';
  amount: number;
  reference: string;
}

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

export function decideDeposit(command: DepositCommand, state: WalletState): WalletEvent[] {
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
}

export function decideWithdraw(command: WithdrawCommand, state: WalletState): WalletEvent[] {
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
      `cannot withdraw ${moneyText(state, command.amount)}: ${moneyText(state, available(state))} available`,
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
}
