import {
  deterministicId,
  systemContext,
  type Aggregate,
  type CommandHandler,
} from '@croupier/application';
import {
  eventTypesOf,
  isPlayMoney,
  operatorWalletEventSchema,
  roundEventSchema,
  streams,
  type CallBudget,
  type CommandContext,
  type OperatorWalletEvent,
  type OperatorWalletPort,
  type PlayerId,
  type WalletPort,
} from '@croupier/contracts';
import {
  operatorWalletDecider,
  type OperatorDebit,
  type OperatorWalletCommand,
  type OperatorWalletState,
} from './operator-wallet.decider.js';
import type { RecordedEvent } from '@croupier/eventstore';
import { refusalOf } from './stake-refusal.js';
import { beforeBet, stakeStandingOf } from '../application/round-stakes.js';

export const operatorWalletAggregate: Aggregate<
  OperatorWalletCommand,
  OperatorWalletEvent,
  OperatorWalletState
> = {
  name: 'operator-wallet',
  writes: eventTypesOf(operatorWalletEventSchema),
  decider: operatorWalletDecider,
  parse: (recorded) =>
    operatorWalletEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

/** Every event names its call by key: a retried step never records it twice. */
const eventIdOf = (event: OperatorWalletEvent): string =>
  deterministicId(event.type, event.data.key);

/** How long a debit is asked for, then its status: both end by the round's betting close. */
export interface DebitBudget {
  readonly debit: CallBudget;
  readonly status: CallBudget;
}

export interface SeamlessWalletTiming {
  /**
   * Kept out of a debit's budget for its status query (OPERATOR_WALLET_TIMEOUT_MS: one attempt),
   * so that a debit unanswered near the close is still resolved, by its status, before it.
   */
  readonly statusReserveMs: number;
  readonly now?: () => number;
}

/**
 * Seamless mode's wallet (ADR 0026): the bet workflow's `WalletPort` over the operator's wallet,
 * which holds the balance. A stake is recorded as asked for (`OperatorDebitRequested`) before
 * the wallet is called, then confirmed or failed by its answer; an answer that never comes is
 * resolved by a status query by its key, or the debit is given up and rolled back, so no bet
 * stands on a debit Croupier is unsure of. Refunds and payouts are recorded as requests and
 * delivered by `OperatorWalletOutbox`, whatever the wallet's state when they are decided.
 */
export class SeamlessWallet implements WalletPort {
  /**
   * `playMoney` applies a fun round's settlement record to Croupier's own fun wallets (ADR 0030):
   * play money never reaches the operator's wallet. Without it such records are left alone.
   */
  constructor(
    private readonly commands: CommandHandler,
    private readonly operator: OperatorWalletPort,
    private readonly onRequested: () => void = () => undefined,
    private readonly playMoney: (record: RecordedEvent) => Promise<void> = () => Promise.resolve(),
    private readonly timing: SeamlessWalletTiming = { statusReserveMs: 2_000 },
  ) {}

  private run(playerId: PlayerId, command: OperatorWalletCommand, context: CommandContext) {
    return this.commands.handle(
      operatorWalletAggregate,
      streams.operatorWallet(playerId),
      command,
      context,
      { eventIds: (events) => events.map(eventIdOf) },
    );
  }

  async debitStakes(
    input: Parameters<WalletPort['debitStakes']>[0],
    context: CommandContext,
  ): ReturnType<WalletPort['debitStakes']> {
    const { playerId, bettingClosesAt, ...debits } = input;
    const budget = this.budgetOf(bettingClosesAt);
    const { events, state } = await this.run(
      playerId,
      { type: 'RequestDebits', playerId, ...debits },
      context,
    );
    const askedNow = new Set(
      events.flatMap((event) => (event.type === 'OperatorDebitRequested' ? [event.data.key] : [])),
    );
    // Every stake not confirmed yet is asked for under its key: this request's, or a concurrent
    // identical request's (the wallet answers a key once, so both learn the same answer).
    const outcomes = await Promise.all(
      input.stakes.map(async (stake) => {
        const debit = state.debits.get(stake.betId)!;
        const status =
          debit.status === 'requested'
            ? await this.resolveDebit(playerId, stake.betId, debit, context, budget)
            : debit.status;
        return { stake, debit, status };
      }),
    );
    const debited = outcomes
      .filter((o) => o.status === 'confirmed' && askedNow.has(o.debit.key))
      .map((o) => o.stake);
    const failed = outcomes.filter((o) => o.status !== 'confirmed');
    if (failed.length === 0) return { debited, refusal: null };
    // Refused in part: what this request did debit is the caller's to give back, through its
    // round. Not here: a concurrent request for the same bet shares its debit's key, learned the
    // same confirmation, and may have placed the bet meanwhile (ADR 0034).
    const { state: after } = await this.commands.load(
      operatorWalletAggregate,
      streams.operatorWallet(playerId),
    );
    return {
      debited,
      refusal: refusalOf(
        failed.map((o) => o.stake),
        after,
      ),
    };
  }

  /**
   * The budget of a debit whose round closes betting at `closesAt` (ADR 0044): the debit's
   * attempts end before the close by what its status query keeps (one attempt, or half the time
   * left when less remains), and the status by the close. A stake confirmed later could not
   * become a bet: it would be refused by the round and rolled back. Without a close (a round dealt
   * by hand), the calls' own settings bound them.
   */
  private budgetOf(closesAt: string | undefined): DebitBudget | undefined {
    if (closesAt === undefined) return undefined;
    const until = Date.parse(closesAt);
    const left = until - (this.timing.now ?? Date.now)();
    const reserve = Math.min(this.timing.statusReserveMs, Math.max(0, Math.floor(left / 2)));
    return { debit: { until: until - reserve }, status: { until } };
  }

  /**
   * Refunds a debited stake by a rollback the outbox delivers; false if none was open, or if
   * its round has not released a stake refunded before any bet.
   */
  async refundStake(
    input: Parameters<WalletPort['refundStake']>[0],
    context: CommandContext,
  ): ReturnType<WalletPort['refundStake']> {
    const { playerId, currency: _currency, ...rollback } = input;
    const standing = beforeBet(rollback.reason)
      ? await stakeStandingOf(this.commands, input)
      : undefined;
    const { events } = await this.run(
      playerId,
      { type: 'RequestRollback', ...rollback, standing },
      context,
    );
    if (events.length > 0) this.onRequested();
    return { refunded: events.length > 0 };
  }

  /**
   * Seamless mode's wallet system: each settlement record of a round (its settlement, its
   * refund, its resettlement) becomes calls to the operator's wallet, one per bet, recorded under
   * keys named by the record and the bet before the outbox delivers them, so a record seen twice
   * asks once. A refund is the rollback of the stake's debit.
   */
  async applySettlementRecord(record: RecordedEvent): Promise<void> {
    const parsed = roundEventSchema.parse({ type: record.type, data: record.data });
    const context = systemContext('operator-wallet', record.id);
    const creditKey = (betId: string) => deterministicId('operator-credit', record.id, betId);
    const settles =
      parsed.type === 'BetsRefunded' ||
      parsed.type === 'RoundSettled' ||
      parsed.type === 'RoundResettled';
    // Play money never reaches the operator's wallet: Croupier holds it (ADR 0030).
    if (settles && isPlayMoney(parsed.data.currency)) {
      await this.playMoney(record);
      return;
    }
    if (parsed.type === 'BetsRefunded') {
      for (const line of parsed.data.lines)
        await this.refundStake(
          {
            playerId: line.playerId,
            roundId: parsed.data.roundId,
            currency: parsed.data.currency,
            betId: line.betId,
            amount: line.amount,
            reason: parsed.data.reason,
          },
          context,
        );
      return;
    }
    if (parsed.type !== 'RoundSettled' && parsed.type !== 'RoundResettled') return;
    const credits =
      parsed.type === 'RoundSettled'
        ? parsed.data.lines.map((line) => ({
            ...line,
            amount: line.payout,
            kind: 'settlement' as const,
            settlementId: parsed.data.settlementId,
          }))
        : parsed.data.adjustments
            // A resettlement that moves no money asks nothing of the wallet.
            .filter((line) => line.delta !== 0)
            .map((line) => ({
              ...line,
              amount: line.delta,
              kind: 'adjustment' as const,
              settlementId: parsed.data.resettlementId,
            }));
    for (const credit of credits) {
      const { events } = await this.run(
        credit.playerId,
        {
          type: 'RequestCredit',
          roundId: parsed.data.roundId,
          betId: credit.betId,
          amount: credit.amount,
          currency: parsed.data.currency,
          key: creditKey(credit.betId),
          kind: credit.kind,
          settlementId: credit.settlementId,
          stake: credit.stake,
        },
        context,
      );
      if (events.length > 0) this.onRequested();
    }
  }

  /** Records that the wallet confirmed a credit or rollback: the outbox stops sending it. */
  async markDelivered(
    playerId: PlayerId,
    key: string,
    call: 'credit' | 'rollback',
    transactionId: string,
    context: CommandContext,
  ): Promise<void> {
    await this.run(playerId, { type: 'MarkDelivered', key, call, transactionId }, context);
  }

  /**
   * Confirms or fails a debit asked for under its key, by its answer or its status, within
   * `budget` if given. Whatever the budget, an unanswered debit's status is asked, and a debit it
   * cannot confirm is given up and rolled back (ADR 0041).
   */
  async resolveDebit(
    playerId: PlayerId,
    betId: string,
    debit: OperatorDebit,
    context: CommandContext,
    budget?: DebitBudget,
  ): Promise<OperatorDebit['status']> {
    const call = {
      key: debit.key,
      playerId,
      roundId: debit.roundId,
      betId,
      amount: debit.amount,
      currency: debit.currency,
    };
    let resolution: OperatorWalletCommand;
    try {
      const answer = await this.operator.debit(call, budget?.debit);
      resolution =
        answer.outcome === 'applied'
          ? {
              type: 'ConfirmDebit',
              betId,
              key: debit.key,
              transactionId: answer.transactionId,
              via: 'answer',
            }
          : { type: 'FailDebit', betId, key: debit.key, outcome: 'refused', code: answer.code };
    } catch {
      // No answer, or a 4xx that is not a refusal: either way the wallet's record of the key
      // decides, in case it applied the debit after all.
      resolution = await this.byStatus(betId, debit.key, budget?.status);
    }
    const { state, events } = await this.run(playerId, resolution, context);
    if (events.some((event) => event.type === 'OperatorRollbackRequested')) this.onRequested();
    return state.debits.get(betId)?.status ?? 'failed';
  }

  /** The answer was lost: the wallet's record of the key decides; without one, it is given up. */
  private async byStatus(
    betId: string,
    key: string,
    budget: CallBudget | undefined,
  ): Promise<OperatorWalletCommand> {
    try {
      const status = await this.operator.status(key, budget);
      if (status.state === 'applied')
        return {
          type: 'ConfirmDebit',
          betId,
          key,
          transactionId: status.transactionId,
          via: 'status',
        };
      if (status.state === 'refused')
        return { type: 'FailDebit', betId, key, outcome: 'refused', code: status.code };
      if (status.state === 'rolled-back')
        return { type: 'FailDebit', betId, key, outcome: 'refused', code: 'ROLLED_BACK' };
    } catch {
      // The wallet does not answer the status either (or rejects it): nothing can be known now.
    }
    // Unknown to the wallet, or no answer: the debit is given up and rolled back by its key, so
    // a debit still in flight is refused when it arrives, or given back if it was applied.
    return { type: 'FailDebit', betId, key, outcome: 'unresolved', code: 'UNAVAILABLE' };
  }
}
