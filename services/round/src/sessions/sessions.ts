import {
  DomainError,
  type CommandContext,
  type TableConfig,
  type TableSession,
} from '@croupier/contracts';
import { activeBets, type RoundState } from '../domain/round.decider.js';
import type { TableState } from '../domain/table.decider.js';
import type { Dealing } from '../dealing/dealing.js';
import type { Faults } from '../faults/faults.js';
import type { Rebets } from '../rebet/rebet.js';
import type { RoundContext } from '../shared/round-context.js';
import { requireMayDeal } from '../shared/session-rules.js';
import { isFinished, isSettled } from '../tables/shoe-lifecycle.js';
import type { Tables } from '../tables/tables.js';

/** Sessions (003, 004): one player against the house, on a table of their own that they deal. */
export class Sessions {
  constructor(
    private readonly rounds: RoundContext,
    private readonly slices: {
      readonly tables: Tables;
      readonly rebets: Rebets;
      readonly dealing: Dealing;
      readonly faults: Faults;
    },
  ) {}

  /** Opens a player's own table from a single-player preset. */
  async openSession(
    input: { sessionId: string; config: TableConfig; session: TableSession },
    context: CommandContext,
  ): Promise<TableState> {
    return this.slices.tables.openTable(
      {
        tableId: input.sessionId,
        config: input.config,
        dealing: { mode: 'manual', bettingWindowMs: 0 },
        session: input.session,
      },
      context,
    );
  }

  /**
   * The session's round taking bets: the open one, or the next, opened now. The next opens once
   * the last is settled (its shoe is closed first, sealing the round's money): this waits for the
   * settlement of a round just dealt, up to `settleWaitMs`.
   */
  async sessionRound(
    sessionId: string,
    context: CommandContext,
    settleWaitMs = 10_000,
  ): Promise<{ round: RoundState; opened: boolean }> {
    requireMayDeal(await this.rounds.cachedTable(sessionId), context);
    const deadline = Date.now() + settleWaitMs;
    for (;;) {
      const current = await this.rounds.currentRound(sessionId);
      if (current !== null && !isFinished(current)) return { round: current, opened: false };
      try {
        return { round: await this.slices.tables.openRound(sessionId, context), opened: true };
      } catch (error) {
        const settling =
          error instanceof DomainError &&
          error.code === 'ROUND_IN_PROGRESS' &&
          current !== null &&
          isFinished(current);
        if (!settling || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /**
   * The owner deals their round (003's Deal, Rebet, Rebet x2): the previous spots repeated if
   * asked, betting closed, the cards drawn. A round dealt already is answered as it is, so the
   * request can be retried; a repeated rebet finds its bets placed (their ids derive from the
   * round and the spots) and places nothing twice. A rebet with other bets down is refused
   * (BETS_ALREADY_PLACED), before anything moves.
   */
  async dealAsPlayer(
    roundId: string,
    playerId: string,
    rebet: 0 | 1 | 2,
    context: CommandContext,
  ): Promise<RoundState> {
    requireMayDeal(await this.rounds.tableOfRound(roundId), context);
    let round = await this.rounds.getRound(roundId);
    if (isFinished(round) || round.status === 'dealt') return round;
    if (round.status === 'betting' && rebet !== 0) {
      try {
        round = (await this.slices.rebets.rebet(roundId, playerId, rebet, context)).round;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'DUPLICATE_BET')) throw error;
      }
    }
    if (round.status === 'betting') {
      if (activeBets(round, playerId).length === 0)
        throw new DomainError(
          'NO_BETS_TO_DEAL',
          `${playerId} has no bets on round ${roundId}: bet, or rebet, before dealing`,
        );
    }
    return this.slices.dealing.deal(roundId, context, { closeBetting: true });
  }

  /**
   * One step of closing a session (its owner leaving, or idle past its timeout): the unfinished
   * round is finished by the rules (a round still taking bets is voided and its bets refunded,
   * one whose betting closed is dealt and settled), its shoe closed once its money is recorded,
   * then the table. Each step is idempotent; answers whether the session is closed, or is
   * waiting for settlement (call again).
   */
  async closeSessionStep(
    sessionId: string,
    reason: string,
    context: CommandContext,
  ): Promise<'closed' | 'settling'> {
    const table = await this.rounds.getTable(sessionId);
    if (table.session === null)
      throw new DomainError('TABLE_NOT_FOUND', `table ${sessionId} is not a session`);
    if (table.status === 'closed') return 'closed';
    let round = await this.rounds.currentRound(sessionId);
    if (round !== null && !isFinished(round)) {
      if (round.status === 'betting' || round.paused)
        round = await this.slices.faults.void(round.roundId, reason, context);
      else round = await this.slices.dealing.dealRound(round.roundId, context);
    }
    if (round !== null && !isSettled(round)) return 'settling';
    const shoe = await this.rounds.currentShoe(sessionId);
    if (shoe !== null && shoe.status !== 'closed')
      await this.rounds.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'completed' }, context);
    await this.slices.tables.closeTable(sessionId, reason, context);
    return 'closed';
  }
}
