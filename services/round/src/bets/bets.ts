import type { CommandContext } from '@croupier/contracts';
import type { RoundCommand, RoundState } from '../domain/round.decider.js';
import type { RoundContext } from '../shared/round-context.js';
import { requireMayPlay } from '../shared/session-rules.js';
import type { Seats } from '../seats/seats.js';
import { betRequestsOf } from './bet-workflow.js';
import type { BetWorkflowRunner } from './bet-workflow-runner.js';
import type { PendingDebits } from './pending-debits.js';

/** A bet as a client sends it; `betId` makes a retried request idempotent. */
export interface BetInput {
  readonly type: string;
  readonly amount: unknown;
  readonly bankerMode?: string | undefined;
  readonly seat?: number | null | undefined;
  readonly betId?: string | undefined;
}

/** Bets: placed (the bet workflow moves the money), cleared before betting closes, swept. */
export class Bets {
  constructor(
    private readonly rounds: RoundContext,
    private readonly workflow: BetWorkflowRunner,
    private readonly seats: Seats,
  ) {}

  /**
   * Places a player's bets: validated, debited, recorded on the round, and refunded at once if
   * the round refuses them after the debit (see bet-workflow.ts, where every step of it lives).
   */
  async placeBets(
    roundId: string,
    playerId: string,
    bets: readonly BetInput[],
    context: CommandContext,
    rebetOf: string | null = null,
  ): Promise<RoundState> {
    const table = await this.rounds.tableOfRound(roundId);
    requireMayPlay(table, playerId);
    const seated =
      table?.config?.seats == null ? bets : await this.seats.fromSeat(roundId, playerId, bets);
    return this.workflow.place(
      { roundId, playerId, bets: betRequestsOf(seated), rebetOf },
      context,
    );
  }

  /** Takes the player's bets off the round (all, or the ones named); clearing refunds them. */
  async clearBets(
    roundId: string,
    playerId: string,
    context: CommandContext,
    betIds?: readonly string[],
  ): Promise<RoundState> {
    requireMayPlay(await this.rounds.tableOfRound(roundId), playerId);
    const command: RoundCommand =
      betIds === undefined
        ? { type: 'ClearBets', playerId }
        : { type: 'ClearBets', playerId, betIds };
    return (await this.rounds.round(roundId, command, context)).state;
  }

  /** Refunds stakes whose bets never reached their round (the bet workflow's sweep). */
  sweepOrphanedDebits(pending: PendingDebits, graceMs: number): Promise<number> {
    return this.workflow.sweep(pending, graceMs);
  }
}
