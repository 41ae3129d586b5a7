import type { WalletEvent } from '@croupier/contracts';
import {
  evolveWallet,
  initialWalletState,
  type OpenStake,
  type WalletState,
} from '@croupier/wallet';

/**
 * What a read model keeps of a wallet to add up its balance: the wallet's state as a JSON
 * document, without the deposit and withdrawal references and the refunded stakes (they only
 * grow, and no balance depends on them). Open stakes and commission owed are bounded by the bets
 * and shifts open.
 */
export type WalletBalanceDocument = Omit<
  WalletState,
  'references' | 'openStakes' | 'commissionOwed' | 'refundedStakes'
> & {
  readonly openStakes: readonly (readonly [string, OpenStake])[];
  readonly commissionOwed: readonly (readonly [string, number])[];
};

const stateOf = (doc: WalletBalanceDocument | undefined): WalletState =>
  doc === undefined
    ? initialWalletState()
    : {
        ...doc,
        openStakes: new Map(doc.openStakes),
        commissionOwed: new Map(doc.commissionOwed),
        references: new Map(),
        refundedStakes: new Set(),
      };

const documentOf = (state: WalletState): WalletBalanceDocument => {
  const {
    references: _references,
    refundedStakes: _refundedStakes,
    openStakes,
    commissionOwed,
    ...rest
  } = state;
  return { ...rest, openStakes: [...openStakes], commissionOwed: [...commissionOwed] };
};

/**
 * One wallet event on a wallet's balance document, by the wallet's own fold (`evolveWallet` in
 * services/wallet): game recall shows the balances the wallet really held, commission given back
 * by a resettlement included, and no second copy of those rules can drift from it.
 */
export function walletBalanceStep(
  doc: WalletBalanceDocument | undefined,
  event: WalletEvent,
): { before: number; after: number; next: WalletBalanceDocument } {
  const state = stateOf(doc);
  const next = evolveWallet(state, event);
  return { before: state.balance, after: next.balance, next: documentOf(next) };
}

/** Players' wallet balances in memory, by `walletBalanceStep`: each player's document by id. */
export class WalletBalanceFold {
  private readonly wallets = new Map<string, WalletBalanceDocument>();

  /** Applies one wallet event; answers the player's balance before and after it. */
  apply(event: WalletEvent): { before: number; after: number } {
    const playerId = event.data.playerId;
    const { before, after, next } = walletBalanceStep(this.wallets.get(playerId), event);
    this.wallets.set(playerId, next);
    return { before, after };
  }

  balanceOf(playerId: string): number {
    return this.wallets.get(playerId)?.balance ?? 0;
  }

  reset(): void {
    this.wallets.clear();
  }
}
