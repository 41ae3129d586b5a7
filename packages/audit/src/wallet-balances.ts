import { foldCommissionDebt, walletEventSchema } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';

/** A wallet as its events add up. */
export interface WalletBalance {
  readonly playerId: string;
  /** The wallet's one currency, named by its first deposit (null before any). */
  readonly currency: string | null;
  readonly balance: number;
  /** Commission accrued on seat tables and not yet collected. */
  readonly commissionOwed: number;
  /** Stakes debited and not yet paid or refunded. */
  readonly openStakes: number;
  readonly deposited: number;
  readonly withdrawn: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Every wallet's balance, folded from the wallet streams: a disposable read model like the
 * gateway's (same `name`/`apply`/`reset` shape), rebuilt by replaying the log into an empty one.
 * It adds up as the wallet's own fold does (`evolveWallet` in services/wallet), a payout
 * adjustment included: commission owed is kept per dealer shift and seat, because a resettlement that
 * lowers commission already collected for a shift gives the difference back to the balance.
 */
export class WalletBalances {
  readonly name = 'wallet-balances';
  private readonly wallets = new Map<string, Mutable<WalletBalance>>();
  private readonly open = new Map<string, Set<string>>();
  /** Per player, commission owed per `table/shift/seat` (only positive amounts are kept). */
  private readonly owed = new Map<string, Map<string, number>>();

  apply(event: RecordedEvent): void {
    if (!event.stream.startsWith('wallet-')) return;
    const parsed = walletEventSchema.safeParse({ type: event.type, data: event.data });
    if (!parsed.success) return;
    const { type, data } = parsed.data;
    const wallet = this.walletOf(data.playerId);
    const open = this.open.get(data.playerId)!;
    const owed = this.owed.get(data.playerId)!;
    switch (type) {
      case 'FundsDeposited':
        wallet.currency ??= data.currency;
        wallet.balance += data.amount;
        wallet.deposited += data.amount;
        break;
      case 'FundsWithdrawn':
        wallet.balance -= data.amount;
        wallet.withdrawn += data.amount;
        break;
      case 'StakeDebited':
        wallet.balance -= data.amount;
        open.add(data.betId);
        break;
      case 'PayoutCredited':
      case 'StakeRefunded':
        wallet.balance += data.amount;
        open.delete(data.betId);
        break;
      case 'CommissionAccrued':
        foldCommissionDebt(owed, { type, data });
        break;
      case 'CommissionCollected':
        foldCommissionDebt(owed, { type, data });
        wallet.balance -= data.amount;
        break;
      case 'PayoutAdjusted':
        // Commission already collected and now reduced comes back to the balance.
        wallet.balance += data.delta + foldCommissionDebt(owed, { type, data });
        break;
    }
    wallet.openStakes = open.size;
    wallet.commissionOwed = [...owed.values()].reduce((sum, amount) => sum + amount, 0);
  }

  reset(): void {
    this.wallets.clear();
    this.open.clear();
    this.owed.clear();
  }

  get(playerId: string): WalletBalance | undefined {
    const wallet = this.wallets.get(playerId);
    return wallet === undefined ? undefined : { ...wallet };
  }

  /** Every wallet, by player id. */
  list(): WalletBalance[] {
    return [...this.wallets.values()]
      .map((wallet) => ({ ...wallet }))
      .sort((a, b) => (a.playerId < b.playerId ? -1 : a.playerId > b.playerId ? 1 : 0));
  }

  private walletOf(playerId: string): Mutable<WalletBalance> {
    let wallet = this.wallets.get(playerId);
    if (wallet === undefined) {
      wallet = {
        playerId,
        currency: null,
        balance: 0,
        commissionOwed: 0,
        openStakes: 0,
        deposited: 0,
        withdrawn: 0,
      };
      this.wallets.set(playerId, wallet);
      this.open.set(playerId, new Set());
      this.owed.set(playerId, new Map());
    }
    return wallet;
  }
}
