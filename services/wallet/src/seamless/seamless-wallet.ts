import {
  causedBy,
  deterministicId,
  systemContext,
  type Aggregate,
  type CommandHandler,
} from '@croupier/application';
import {
  DomainError,
  eventTypesOf,
  operatorWalletEventSchema,
  streams,
  type CommandContext,
  type OperatorWalletEvent,
  type OperatorWalletPort,
  type PlayerId,
  type SettlementMessage,
  type StakeOf,
  type WalletPort,
} from '@croupier/contracts';
import {
  operatorWalletDecider,
  type OperatorDebit,
  type OperatorWalletCommand,
  type OperatorWalletState,
} from './operator-wallet.decider.js';

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

/** What the wallet's refusal codes mean to a player placing a bet. */
const REFUSALS: Readonly<
  Record<string, 'INSUFFICIENT_FUNDS' | 'CURRENCY_MISMATCH' | 'WALLET_NOT_FOUND'>
> = {
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  CURRENCY_MISMATCH: 'CURRENCY_MISMATCH',
  PLAYER_UNKNOWN: 'WALLET_NOT_FOUND',
};

/**
 * Seamless mode's wallet (ADR 0026): the bet workflow's `WalletPort` over the operator's wallet,
 * which holds the balance. A stake is recorded as asked for (`OperatorDebitRequested`) before
 * the wallet is called, then confirmed or failed by its answer; an answer that never comes is
 * resolved by a status query by its key, or the debit is given up and rolled back, so no bet
 * stands on a debit Croupier is unsure of. Refunds and payouts are recorded as requests and
 * delivered by `OperatorWalletOutbox`, whatever the wallet's state when they are decided.
 */
export class SeamlessWallet implements WalletPort {
  constructor(
    private readonly commands: CommandHandler,
    private readonly operator: OperatorWalletPort,
    private readonly onRequested: () => void = () => undefined,
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
    const { playerId, roundId } = input;
    const { events, state } = await this.run(
      playerId,
      { type: 'RequestDebits', ...input },
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
            ? await this.resolveDebit(playerId, stake.betId, debit, context)
            : debit.status;
        return { stake, debit, status };
      }),
    );
    const debited = outcomes
      .filter((o) => o.status === 'confirmed' && askedNow.has(o.debit.key))
      .map((o) => o.stake);
    const failed = outcomes.filter((o) => o.status !== 'confirmed');
    if (failed.length === 0) return { debited };
    // All or none: what this request did debit goes back before the bets are refused.
    for (const stake of debited)
      await this.refundStake(
        { playerId, roundId, betId: stake.betId, amount: stake.amount, reason: 'bet-rejected' },
        context,
      );
    const { state: after } = await this.commands.load(
      operatorWalletAggregate,
      streams.operatorWallet(playerId),
    );
    throw this.refusalOf(
      failed.map((o) => o.stake),
      after,
    );
  }

  /** Refunds a debited stake by a rollback the outbox delivers; false if none was open. */
  async refundStake(
    input: Parameters<WalletPort['refundStake']>[0],
    context: CommandContext,
  ): ReturnType<WalletPort['refundStake']> {
    const { playerId, ...rollback } = input;
    const { events } = await this.run(playerId, { type: 'RequestRollback', ...rollback }, context);
    if (events.length > 0) this.onRequested();
    return { refunded: events.length > 0 };
  }

  /**
   * Seamless mode's wallet system: each settlement message becomes a call to the operator's
   * wallet, recorded under the message's id before the outbox delivers it, so a message
   * delivered twice asks once. A refund is the rollback of the stake's debit.
   */
  async applySettlementMessage(
    message: SettlementMessage,
    context: CommandContext = systemContext('operator-wallet'),
  ): Promise<void> {
    const caused = causedBy(context, message.eventId);
    if (message.kind === 'refund') {
      await this.refundStake(
        {
          playerId: message.playerId,
          roundId: message.roundId,
          betId: message.betId,
          amount: message.stake,
          reason: message.reason === 'cleared' ? 'cleared' : 'voided',
        },
        caused,
      );
      return;
    }
    const amount = message.kind === 'adjustment' ? message.adjustment!.delta : message.payout;
    // A resettlement that moves no money asks nothing of the wallet.
    if (message.kind === 'adjustment' && amount === 0) return;
    const { events } = await this.run(
      message.playerId,
      {
        type: 'RequestCredit',
        roundId: message.roundId,
        betId: message.betId,
        amount,
        currency: message.currency,
        key: message.messageId,
        kind: message.kind,
        settlementId: message.settlementId,
        stake: message.stake,
      },
      caused,
    );
    if (events.length > 0) this.onRequested();
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

  /** Confirms or fails a debit asked for under its key, by its answer or its status. */
  async resolveDebit(
    playerId: PlayerId,
    betId: string,
    debit: OperatorDebit,
    context: CommandContext,
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
      const answer = await this.operator.debit(call);
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
      resolution = await this.byStatus(betId, debit.key);
    }
    const { state, events } = await this.run(playerId, resolution, context);
    if (events.some((event) => event.type === 'OperatorRollbackRequested')) this.onRequested();
    return state.debits.get(betId)?.status ?? 'failed';
  }

  /** The answer was lost: the wallet's record of the key decides; without one, it is given up. */
  private async byStatus(betId: string, key: string): Promise<OperatorWalletCommand> {
    try {
      const status = await this.operator.status(key);
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
      // The wallet does not answer at all: nothing can be known now.
    }
    // Unknown to the wallet, or no answer: the debit is given up and rolled back by its key, so
    // a debit still in flight is refused when it arrives, or given back if it was applied.
    return { type: 'FailDebit', betId, key, outcome: 'unresolved', code: 'UNAVAILABLE' };
  }

  private refusalOf(stakes: readonly StakeOf[], state: OperatorWalletState): DomainError {
    const betIds = stakes.map((stake) => stake.betId);
    const codes = stakes.map((stake) => state.debits.get(stake.betId)?.failure ?? 'UNAVAILABLE');
    const refusal = codes.map((code) => REFUSALS[code]).find((mapped) => mapped !== undefined);
    if (refusal !== undefined)
      return new DomainError(
        refusal,
        `the operator's wallet refused the stake: ${codes.join(', ')}`,
        {
          betIds,
        },
      );
    return new DomainError(
      'UNAVAILABLE',
      "the operator's wallet did not confirm the stake: the bet is refused and any debit is rolled back; retry",
      { betIds, dependency: 'operator-wallet' },
    );
  }
}
