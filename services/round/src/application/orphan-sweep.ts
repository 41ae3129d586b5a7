import { load, systemContext, type Projection } from '@croupier/application';
import { streams, walletEventSchema, betPlaced } from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';
import type { WalletPort } from '@croupier/contracts';
import { roundAggregate } from './aggregates.js';

interface PendingDebit {
  readonly playerId: string;
  readonly roundId: string;
  readonly amount: number;
  /** When the store recorded the debit (ms since the epoch): the same in every process. */
  readonly debitedAt: number;
}

/**
 * Stakes debited for a bet that no round has recorded yet, nor any refund closed. Normally a
 * debit leaves this list a few milliseconds later, when its BetPlaced arrives.
 */
export class PendingDebits implements Projection {
  readonly name = 'pending-debits';
  private readonly pending = new Map<string, PendingDebit>();

  constructor(private readonly clock: () => number = Date.now) {}

  apply(event: RecordedEvent): void {
    switch (event.type) {
      case 'StakeDebited': {
        const debit = walletEventSchema.parse({ type: event.type, data: event.data });
        if (debit.type !== 'StakeDebited') return;
        const { betId, playerId, roundId, amount } = debit.data;
        // The store's time, not this process's first sight of it: a restart (or a replica)
        // does not start the grace period over.
        const debitedAt = event.recordedAt.getTime();
        this.pending.set(betId, { playerId, roundId, amount, debitedAt });
        return;
      }
      case 'BetPlaced':
        this.pending.delete(betPlaced.parse({ type: event.type, data: event.data }).data.betId);
        return;
      case 'StakeRefunded':
      case 'PayoutCredited':
        this.pending.delete((event.data as { betId: string }).betId);
        return;
    }
  }

  reset(): void {
    this.pending.clear();
  }

  /** Debits pending for longer than `graceMs`. */
  stale(graceMs: number): [string, PendingDebit][] {
    const now = this.clock();
    return [...this.pending].filter(([, debit]) => now - debit.debitedAt >= graceMs);
  }

  get size(): number {
    return this.pending.size;
  }
}

/**
 * The recovery sweep of the bet saga: a stake debited whose BetPlaced never came (the process
 * died between the two steps) is refunded, but only once its round can no longer take the bet
 * (betting closed, or the round finished or voided), so a late BetPlaced cannot follow the refund.
 * Refunds are idempotent in the wallet: sweeping twice, or from two processes, refunds once.
 */
export async function sweepOrphanedDebits(
  store: EventStore,
  pending: PendingDebits,
  wallets: WalletPort,
  graceMs: number,
): Promise<number> {
  let refunded = 0;
  for (const [betId, debit] of pending.stale(graceMs)) {
    const { state } = await load(store, roundAggregate, streams.round(debit.roundId));
    if (state.status === 'betting') continue; // the bet may still be recorded
    if (state.bets.has(betId)) continue; // it was: the projection had not seen it yet
    await wallets.refundStake(
      { playerId: debit.playerId, betId, reason: 'orphaned-debit' },
      systemContext('orphan-sweep'),
    );
    refunded++;
  }
  return refunded;
}
