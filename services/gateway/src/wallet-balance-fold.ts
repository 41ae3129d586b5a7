import type { WalletEvent } from '@croupier/contracts';
import { shiftKey } from '@croupier/wallet';

/**
 * Players' wallet balances as the wallet itself adds them up (`evolveWallet` in
 * services/wallet), so game recall shows the balances the wallet really held. The wallet's
 * own fold also keeps every deposit reference and open stake; this one keeps only what moves
 * a balance: the commission owed per dealer shift, because a payout adjustment that lowers
 * commission already collected gives the difference back.
 */
export class WalletBalanceFold {
  private readonly balances = new Map<string, number>();
  /** Per player, commission owed per `table/shift` (only positive amounts are kept). */
  private readonly owed = new Map<string, Map<string, number>>();

  /** Applies one wallet event; answers the player's balance before and after it. */
  apply(event: WalletEvent): { before: number; after: number } {
    const playerId = event.data.playerId;
    const before = this.balanceOf(playerId);
    let change = 0;
    switch (event.type) {
      case 'FundsDeposited':
      case 'PayoutCredited':
      case 'StakeRefunded':
        change = event.data.amount;
        break;
      case 'FundsWithdrawn':
      case 'StakeDebited':
        change = -event.data.amount;
        break;
      case 'CommissionAccrued':
        this.addOwed(playerId, shiftKey(event.data.tableId, event.data.shiftId), event.data.amount);
        break;
      case 'CommissionCollected':
        this.addOwed(
          playerId,
          shiftKey(event.data.tableId, event.data.shiftId),
          -event.data.amount,
        );
        change = -event.data.amount;
        break;
      case 'PayoutAdjusted': {
        const key = shiftKey(event.data.tableId, event.data.shiftId);
        const owed = this.addOwed(playerId, key, event.data.commissionDelta);
        // Commission already collected and now reduced comes back to the balance.
        change = event.data.delta + (owed < 0 ? -owed : 0);
        break;
      }
    }
    const after = before + change;
    this.balances.set(playerId, after);
    return { before, after };
  }

  balanceOf(playerId: string): number {
    return this.balances.get(playerId) ?? 0;
  }

  reset(): void {
    this.balances.clear();
    this.owed.clear();
  }

  /** Adds to what is owed for a shift; answers the new amount (negative: over-collected). */
  private addOwed(playerId: string, key: string, amount: number): number {
    let shifts = this.owed.get(playerId);
    if (shifts === undefined) {
      shifts = new Map();
      this.owed.set(playerId, shifts);
    }
    const owed = (shifts.get(key) ?? 0) + amount;
    if (owed > 0) shifts.set(key, owed);
    else shifts.delete(key);
    if (shifts.size === 0) this.owed.delete(playerId);
    return owed;
  }
}
