import type { StakeOf, StakeRefusal } from '@croupier/contracts';
import type { OperatorWalletState } from './operator-wallet.decider.js';

/**
 * What the wallet's refusal codes of a debit mean to a player placing a bet
 * (docs/wallet-integration.md#every-answer-and-what-croupier-does). `KEY_CONFLICT` and
 * `ROLLED_BACK` speak of the key, not the player's money: the player's retry asks under a new key,
 * so they are answered as the wallet's silence is (`UNAVAILABLE`). Any other code is the wallet's
 * own, shown to the player as `OPERATOR_WALLET_REFUSED` with the code.
 */
const REFUSALS: Readonly<
  Record<string, 'INSUFFICIENT_FUNDS' | 'CURRENCY_MISMATCH' | 'WALLET_NOT_FOUND' | 'UNAVAILABLE'>
> = {
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  CURRENCY_MISMATCH: 'CURRENCY_MISMATCH',
  PLAYER_UNKNOWN: 'WALLET_NOT_FOUND',
  KEY_CONFLICT: 'UNAVAILABLE',
  ROLLED_BACK: 'UNAVAILABLE',
  UNAVAILABLE: 'UNAVAILABLE',
};

/**
 * Why the stakes were refused: a refusal of the player's money first (the wallet's named codes,
 * then its own), its silence otherwise.
 */
export function refusalOf(stakes: readonly StakeOf[], state: OperatorWalletState): StakeRefusal {
  const betIds = stakes.map((stake) => stake.betId);
  const codes = stakes.map((stake) => state.debits.get(stake.betId)?.failure ?? 'UNAVAILABLE');
  const named = codes
    .map((code) => REFUSALS[code])
    .find((code) => code !== undefined && code !== 'UNAVAILABLE');
  if (named !== undefined)
    return {
      code: named,
      message: `the operator's wallet refused the stake: ${codes.join(', ')}`,
      details: { betIds },
    };
  const own = codes.find((code) => REFUSALS[code] === undefined);
  if (own !== undefined)
    return {
      code: 'OPERATOR_WALLET_REFUSED',
      message: `the operator's wallet refused the stake: ${own}`,
      details: { betIds, walletCode: own },
    };
  return {
    code: 'UNAVAILABLE',
    message:
      "the operator's wallet did not confirm the stake: the bet is refused and any debit is rolled back; retry",
    details: { betIds, dependency: 'operator-wallet' },
  };
}
