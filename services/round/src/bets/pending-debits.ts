import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  betPlaced,
  operatorWalletEventSchema,
  walletEventSchema,
  type RoundId,
  parseRecorded,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

export interface PendingDebit {
  readonly playerId: string;
  readonly roundId: RoundId;
  readonly betId: string;
  readonly amount: number;
  /** When the store recorded the debit (ms since the epoch): the same in every process. */
  readonly debitedAt: number;
  /** A play-money stake, from the player's fun wallet (ADR 0030); absent on real money. */
  readonly fun?: true;
}

/**
 * Stakes debited for a bet that its round has not recorded yet, nor any refund or payout closed:
 * the sweep's work list, a durable read model (docs/adr/0023) ordered by when the store recorded
 * each debit. Normally a debit leaves it a few milliseconds later, when its BetPlaced arrives.
 * Keyed by round, bet id and player: the bet id alone is the client's to choose.
 */
export class PendingDebits implements DurableProjection<PendingDebit> {
  readonly name = 'pending-debits';
  readonly handles = [
    'StakeDebited',
    'StakeRefunded',
    'PayoutCredited',
    'BetPlaced',
    'OperatorDebitConfirmed',
    'OperatorCreditRequested',
    'OperatorRollbackRequested',
  ] as const;

  constructor(
    private readonly storage: ProjectionStorage,
    private readonly clock: () => number = Date.now,
  ) {}

  keysOf(event: RecordedEvent): readonly string[] {
    switch (event.type) {
      case 'StakeDebited':
      case 'StakeRefunded':
      case 'PayoutCredited': {
        const parsed = parseRecorded(walletEventSchema, event);
        return 'betId' in parsed.data && 'roundId' in parsed.data ? [pendingKey(parsed.data)] : [];
      }
      case 'BetPlaced':
        return [pendingKey(parseRecorded(betPlaced, event).data)];
      // Seamless mode (ADR 0026): a stake the operator's wallet confirmed, closed by a credit or
      // a rollback requested of it.
      case 'OperatorDebitConfirmed':
      case 'OperatorCreditRequested':
      case 'OperatorRollbackRequested': {
        const parsed = parseRecorded(operatorWalletEventSchema, event);
        return 'betId' in parsed.data && 'roundId' in parsed.data ? [pendingKey(parsed.data)] : [];
      }
      default:
        return [];
    }
  }

  apply(event: RecordedEvent, docs: DocumentSet<PendingDebit>): void {
    const [key] = this.keysOf(event);
    if (key === undefined) return;
    if (event.type === 'OperatorDebitConfirmed') {
      const { betId, playerId, roundId, amount } = event.data as PendingDebit;
      const debitedAt = event.recordedAt.getTime();
      docs.put(key, { playerId, roundId, betId, amount, debitedAt }, { sort: BigInt(debitedAt) });
      return;
    }
    if (event.type !== 'StakeDebited') {
      // Placed, refunded or paid: no longer pending.
      docs.delete(key);
      return;
    }
    const debit = parseRecorded(walletEventSchema, event);
    if (debit.type !== 'StakeDebited') return;
    const { betId, playerId, roundId, amount, fun } = debit.data;
    // The store's time, not this process's first sight of it: a restart (or a replica) does
    // not start the grace period over.
    const debitedAt = event.recordedAt.getTime();
    docs.put(
      key,
      { playerId, roundId, betId, amount, debitedAt, ...(fun ? { fun } : {}) },
      { sort: BigInt(debitedAt) },
    );
  }

  /** Debits pending for at least `graceMs`, oldest first. */
  async stale(graceMs: number): Promise<PendingDebit[]> {
    const due = await this.storage.list(this.name, {
      sortAtMost: BigInt(this.clock() - graceMs),
    });
    return due.map((row) => row.doc as PendingDebit);
  }
}

const pendingKey = (stake: { roundId: string; betId: string; playerId: string }): string =>
  `${stake.roundId}/${stake.betId}/${stake.playerId}`;
