import { DomainError, formatMoney, isPlayMoney } from '@croupier/contracts';
import type { WalletState } from './wallet.state.js';

// The checks more than one of the wallet's capabilities makes before deciding.

export function requirePositive(amount: number, what: string): void {
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

/** An amount of this wallet's money as a person reads it, for messages ("45.00 EUR"). */
export const moneyText = (state: WalletState, amount: number): string =>
  state.currency === null ? `${amount} minor units` : formatMoney(amount, state.currency);

export function requireWallet(state: WalletState): void {
  if (!state.exists)
    throw new DomainError('WALLET_NOT_FOUND', 'the wallet has no funds yet: deposit first');
}

/**
 * Play money and real money never meet (ADR 0030): a command for play money is refused by a
 * real wallet, and one for real money by a fun wallet, whatever else it names.
 */
export function requireSameMoney(state: WalletState, currency: string | null, what: string): void {
  if (state.currency === null || isPlayMoney(state.currency) === isPlayMoney(currency)) return;
  throw new DomainError(
    'CURRENCY_MISMATCH',
    isPlayMoney(currency)
      ? `${what} in play money (${currency}) never reaches a real-money wallet (${state.currency})`
      : `${what} in ${currency ?? 'real money'} never reaches a fun wallet: it holds play money (${state.currency}) only`,
    { field: 'currency' },
  );
}
