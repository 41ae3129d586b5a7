import {
  randomId,
  systemContext,
  type CommandHandler,
  type DocumentSet,
  type DurableProjection,
} from '@croupier/application';
import {
  betPlaced,
  DomainError,
  PLAY_MONEY_CURRENCY,
  operatorWalletEventSchema,
  streams,
  walletEventSchema,
  type CommandContext,
  type RoundId,
  type StakeOf,
  type StakeRefusal,
  type WalletPort,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';
import {
  releaseKey,
  roundDecider,
  type BetRequest,
  type RoundState,
} from '../domain/round.decider.js';
import { handleRound, roundAggregate } from '../shared/aggregates.js';

/**
 * The bet workflow: the one place where money moves for a bet before its round settles it.
 *
 *   1. validate   the round's decider judges the bets; if it refuses, nothing moves
 *   2. debit      the wallet debits each stake for this round, bet id and amount; if it refuses
 *                 some, those it did debit are released and refunded as in step 4
 *   3. place      the round records the bets (BetPlaced)
 *   4. release    if the round refused them, it records that it will never take those ids
 *                 (StakeReleased), and only then are their stakes refunded, to this round
 *   5. sweep      a debit whose bet never came (the process died between 2 and 3) is released
 *                 and refunded the same way, once its round takes no more bets
 *
 * Each step names the round, the bet id and the amount, and the wallet refuses a step that names
 * another round or amount for an open stake. A compensation refunds only the stakes its own
 * request debited, and only through the round. A stake that became a bet is closed only by its
 * round (settlement, void, resettlement): step 4 releases no stake whose bet the round holds,
 * and once released, no bet can be placed under the id, so a refund and a bet can never both
 * stand for one stake. The wallet refunds no stake before any bet unless its round released it.
 */
export class BetWorkflow {
  constructor(
    private readonly commands: CommandHandler,
    private readonly wallets: WalletPort,
  ) {}

  /** Places a player's bets on a round: steps 1-4. */
  async place(
    input: {
      roundId: RoundId;
      playerId: string;
      bets: readonly BetRequest[];
      rebetOf: RoundId | null;
    },
    context: CommandContext,
  ): Promise<RoundState> {
    const { roundId, playerId } = input;
    const command = {
      type: 'PlaceBets',
      playerId,
      bets: input.bets,
      rebetOf: input.rebetOf,
    } as const;
    // 1. The decider validates, and gives each bet the amount its stake must be. On the round as
    // this process last saw it, with no read (a refusal is asked again on the round as read):
    // step 3's append checks the round's version, and if the round moved on and refuses the
    // bets there, step 4 gives the stakes back (ADR 0020, 0022).
    const { state, stakes } = await this.commands.ask(
      roundAggregate,
      streams.round(roundId),
      (round) => ({
        state: round,
        stakes: roundDecider
          .decide(command, round)
          .flatMap((event): StakeOf[] =>
            event.type === 'BetPlaced'
              ? [{ betId: event.data.betId, amount: event.data.amount }]
              : [],
          ),
      }),
    );
    // 2.
    let debited: readonly StakeOf[];
    let refusal: StakeRefusal | null;
    try {
      ({ debited, refusal } = await this.wallets.debitStakes(
        { playerId, roundId, currency: state.currency, stakes },
        context,
      ));
    } catch (error) {
      throw namingBetIds(error, stakes);
    }
    if (refusal !== null) {
      // Refused in part (an operator's wallet answers each stake on its own): what this request
      // debited goes back as step 4 gives it back, through the round. A concurrent request for
      // the same bet id shares the debit, and if it placed the bet meanwhile, the round keeps
      // that stake for its bet and it is not refunded (ADR 0034).
      if (debited.length > 0)
        await this.release(roundId, playerId, state.currency, debited, 'bet-rejected', context);
      throw namingBetIds(new DomainError(refusal.code, refusal.message, refusal.details), stakes);
    }
    // 3.
    try {
      return (await handleRound(this.commands, roundId, command, context)).state;
    } catch (error) {
      // 4. Refused (betting closed meanwhile, an id taken, a limit reached by a concurrent
      // request): the stakes this request debited go back now. A failure that is not a refusal
      // (the store unreachable) leaves them to the sweep: the bets may have been placed.
      if (error instanceof DomainError && debited.length > 0)
        await this.release(roundId, playerId, state.currency, debited, 'bet-rejected', context);
      throw namingBetIds(error, stakes);
    }
  }

  /**
   * Step 5: refunds stakes debited longer than `graceMs` ago whose bets no round recorded,
   * once their round takes no more bets. Idempotent: sweeping twice, or from two processes,
   * releases and refunds each stake once.
   */
  async sweep(pending: PendingDebits, graceMs: number): Promise<number> {
    let refunded = 0;
    const context = systemContext('orphan-sweep');
    for (const debit of await pending.stale(graceMs)) {
      const { state } = await this.commands.load(roundAggregate, streams.round(debit.roundId));
      if (state.status === 'betting') continue; // its bet may still be on its way
      const stake = [{ betId: debit.betId, amount: debit.amount }];
      refunded +=
        state.status === 'none'
          ? // No such round: it can never hold the bet, and has no stream to record a release.
            // Its currency is unknown but for the debit's play-money mark.
            await this.refund(
              debit.roundId,
              debit.playerId,
              debit.fun ? PLAY_MONEY_CURRENCY : undefined,
              stake,
              'orphaned-debit',
              context,
            )
          : await this.release(
              debit.roundId,
              debit.playerId,
              state.currency,
              stake,
              'orphaned-debit',
              context,
            );
    }
    return refunded;
  }

  /**
   * The round releases the stakes it does not hold as this player's bets (it may have placed one
   * meanwhile, from an identical request that won the race), then each released stake is
   * refunded. A release recorded earlier is refunded again, which the wallet makes a no-op once
   * done: a crash between the two steps loses nothing.
   */
  private async release(
    roundId: RoundId,
    playerId: string,
    currency: string,
    stakes: readonly StakeOf[],
    reason: 'bet-rejected' | 'orphaned-debit',
    context: CommandContext,
  ): Promise<number> {
    const { state } = await handleRound(
      this.commands,
      roundId,
      { type: 'ReleaseStakes', playerId, stakes, reason },
      context,
    );
    const released = stakes.filter(
      (stake) =>
        state.releasedStakes.get(releaseKey(stake.betId, playerId))?.amount === stake.amount,
    );
    return this.refund(roundId, playerId, currency, released, reason, context);
  }

  /** Refunds stakes to the wallet they were debited from: play money to the fun wallet. */
  private async refund(
    roundId: RoundId,
    playerId: string,
    currency: string | undefined,
    stakes: readonly StakeOf[],
    reason: 'bet-rejected' | 'orphaned-debit',
    context: CommandContext,
  ): Promise<number> {
    let refunded = 0;
    for (const { betId, amount } of stakes) {
      const result = await this.wallets.refundStake(
        {
          playerId,
          roundId,
          ...(currency === undefined ? {} : { currency }),
          betId,
          amount,
          reason,
        },
        context,
      );
      if (result.refunded) refunded++;
    }
    return refunded;
  }
}

/** Bet requests as clients send them: each gets an id if it came without one. */
export function betRequestsOf(
  bets: readonly (Omit<BetRequest, 'betId'> & { betId?: string | undefined })[],
): BetRequest[] {
  if (bets.length === 0)
    throw new DomainError('VALIDATION_ERROR', 'bets: at least one bet is required');
  return bets.map((bet) => ({ ...bet, betId: bet.betId ?? randomId() }));
}

/**
 * A bet id that another record already holds (in another wallet or round) surfaces from the store
 * as an ID_CONFLICT without a field: name the bet ids, as the player gave them.
 */
function namingBetIds(error: unknown, stakes: readonly StakeOf[]): unknown {
  if (!(error instanceof DomainError) || error.code !== 'ID_CONFLICT' || 'field' in error.details)
    return error;
  const betIds = stakes.map((stake) => stake.betId);
  return new DomainError(
    'ID_CONFLICT',
    `betId ${betIds.join(', ')}: already used by another bet; a new bet needs a new id`,
    { field: 'betId', betIds },
  );
}

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
        const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
        return 'betId' in parsed.data && 'roundId' in parsed.data ? [pendingKey(parsed.data)] : [];
      }
      case 'BetPlaced':
        return [pendingKey(betPlaced.parse({ type: event.type, data: event.data }).data)];
      // Seamless mode (ADR 0026): a stake the operator's wallet confirmed, closed by a credit or
      // a rollback requested of it.
      case 'OperatorDebitConfirmed':
      case 'OperatorCreditRequested':
      case 'OperatorRollbackRequested': {
        const parsed = operatorWalletEventSchema.parse({ type: event.type, data: event.data });
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
    const debit = walletEventSchema.parse({ type: event.type, data: event.data });
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
