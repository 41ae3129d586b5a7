import { systemContext, type CommandHandler } from '@croupier/application';
import {
  DomainError,
  streams,
  type CommandContext,
  type RoundId,
  type WalletPort,
} from '@croupier/contracts';
import type { BetRequest, RoundState } from '../domain/round.decider.js';
import { handleRound, roundAggregate } from '../shared/aggregates.js';
import {
  betWorkflow,
  type BetWorkflowInput,
  type BetWorkflowState,
  type BetWorkflowStep,
} from './bet-workflow.js';
import type { PendingDebits } from './pending-debits.js';

/**
 * Runs the bet workflow (bet-workflow.ts, where every step and its reason are): sends each step
 * it decides to the wallet or to the round, and tells it the answer, until it answers the caller.
 */
export class BetWorkflowRunner {
  constructor(
    private readonly commands: CommandHandler,
    private readonly wallets: WalletPort,
  ) {}

  /** Places a player's bets on a round: validate, debit, place, and give back on a refusal. */
  async place(
    input: {
      roundId: RoundId;
      playerId: string;
      bets: readonly BetRequest[];
      rebetOf: RoundId | null;
    },
    context: CommandContext,
  ): Promise<RoundState> {
    // Step 1 on the round as this process last saw it, with no read (a refusal is asked again
    // on the round as read): step 3's append checks the round's version, and if the round moved
    // on and refuses the bets there, step 4 gives the stakes back (ADR 0020, 0022).
    const { requested, steps } = await this.commands.ask(
      roundAggregate,
      streams.round(input.roundId),
      (round) => {
        const requested: BetWorkflowInput = { type: 'BetsRequested', ...input, round };
        return { requested, steps: betWorkflow.decide(requested, betWorkflow.initialState()) };
      },
    );
    const answer = await this.run(requested, context, steps);
    if (answer.type === 'Placed') return answer.round;
    throw answer.type === 'Failed' ? answer.error : new Error(`bet workflow ended ${answer.type}`);
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
      const { state: round } = await this.commands.load(
        roundAggregate,
        streams.round(debit.roundId),
      );
      const answer = await this.run({ type: 'OrphanFound', debit, round }, context);
      if (answer.type === 'Swept') refunded += answer.refunded;
    }
    return refunded;
  }

  /** Tells the workflow `input`, sends what it decides, and so on until it answers. */
  private async run(
    input: BetWorkflowInput,
    context: CommandContext,
    decided: readonly BetWorkflowStep[] = betWorkflow.decide(input, betWorkflow.initialState()),
  ): Promise<Extract<BetWorkflowStep, { type: 'Placed' | 'Failed' | 'Swept' }>> {
    let state: BetWorkflowState = betWorkflow.initialState();
    let told = input;
    for (let steps = decided; ; steps = betWorkflow.decide(told, state)) {
      // The workflow sends one step at a time: each waits for the answer to the one before.
      const step = steps[0]!;
      state = betWorkflow.evolve(betWorkflow.evolve(state, told), step);
      if (step.type === 'Placed' || step.type === 'Failed' || step.type === 'Swept') return step;
      told = await this.send(step, context);
    }
  }

  /** Sends one step to its recipient and answers with what it said. */
  private async send(
    step: Exclude<BetWorkflowStep, { type: 'Placed' | 'Failed' | 'Swept' }>,
    context: CommandContext,
  ): Promise<BetWorkflowInput> {
    switch (step.type) {
      case 'DebitStakes': {
        const { playerId, roundId, currency, stakes, bettingClosesAt } = step;
        try {
          const { debited, refusal } = await this.wallets.debitStakes(
            {
              playerId,
              roundId,
              currency,
              stakes,
              ...(bettingClosesAt === null
                ? {}
                : { bettingClosesAt: new Date(bettingClosesAt).toISOString() }),
            },
            context,
          );
          return { type: 'StakesDebited', debited, refusal };
        } catch (error) {
          return { type: 'DebitFailed', error };
        }
      }
      case 'PlaceBets': {
        const { roundId, playerId, bets, rebetOf } = step;
        const command = { type: 'PlaceBets', playerId, bets, rebetOf } as const;
        try {
          return {
            type: 'BetsPlaced',
            round: (await handleRound(this.commands, roundId, command, context)).state,
          };
        } catch (error) {
          return error instanceof DomainError
            ? { type: 'BetsRefused', error }
            : { type: 'PlacingFailed', error };
        }
      }
      case 'ReleaseStakes': {
        const { roundId, playerId, stakes, reason } = step;
        const command = { type: 'ReleaseStakes', playerId, stakes, reason } as const;
        const { state } = await handleRound(this.commands, roundId, command, context);
        return { type: 'StakesReleased', round: state };
      }
      case 'RefundStakes': {
        let refunded = 0;
        for (const { betId, amount } of step.stakes) {
          const { refunded: done } = await this.wallets.refundStake(
            {
              playerId: step.playerId,
              roundId: step.roundId,
              ...(step.currency === undefined ? {} : { currency: step.currency }),
              betId,
              amount,
              reason: step.reason,
            },
            context,
          );
          if (done) refunded++;
        }
        return { type: 'StakesRefunded', refunded };
      }
    }
  }
}
