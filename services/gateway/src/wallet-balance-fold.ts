import type { WalletEvent } from '@croupier/contracts';
import { evolveWallet, initialWalletState, type WalletState } from '@croupier/wallet';

/**
 * Players' wallet balances as the wallet itself adds them up: its own fold (`evolveWallet` in
 * services/wallet), so game recall shows the balances the wallet really held, commission given
 * back by a resettlement included, and no second copy of those rules can drift from it.
 */
export class WalletBalanceFold {
  private readonly wallets = new Map<string, WalletState>();

  /** Applies one wallet event; answers the player's balance before and after it. */
  apply(event: WalletEvent): { before: number; after: number } {
    const playerId = event.data.playerId;
    const state = this.wallets.get(playerId) ?? initialWalletState();
    const next = evolveWallet(state, event);
    this.wallets.set(playerId, next);
    return { before: state.balance, after: next.balance };
  }

  balanceOf(playerId: string): number {
    return this.wallets.get(playerId)?.balance ?? 0;
  }

  reset(): void {
    this.wallets.clear();
  }
}
