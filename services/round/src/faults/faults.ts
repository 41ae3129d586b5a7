import { DomainError, type CommandContext, type DrawnCard } from '@croupier/contracts';
import {
  dealUnderWay,
  type RoundCommand,
  type RoundState,
  type StallObservation,
} from '../domain/round.decider.js';
import type { RoundContext } from '../shared/round-context.js';

/** A void meets a deal starting at most this many times before it gives up (DEAL_IN_PROGRESS). */
const VOID_ATTEMPTS = 3;

/**
 * Faults at the table (the seed's policy, 000: pause, notify, resume or void): a round paused by
 * its dealer or the watchdog, resumed or voided by a supervisor, voided when its shoe can never
 * give it the card it waits for. Every void of the service goes through here.
 */
export class Faults {
  constructor(private readonly rounds: RoundContext) {}

  async pause(roundId: string, reason: string, context: CommandContext): Promise<RoundState> {
    return (await this.rounds.round(roundId, { type: 'PauseRound', reason }, context)).state;
  }

  async resume(roundId: string, context: CommandContext): Promise<RoundState> {
    return (await this.rounds.round(roundId, { type: 'ResumeRound' }, context)).state;
  }

  async void(roundId: string, reason: string, context: CommandContext): Promise<RoundState> {
    return (await this.voidRound(roundId, { reason }, context)).state;
  }

  /**
   * The watchdog pauses a round that waited too long for a card, if it still waits as seen: the
   * decider refuses nothing and appends nothing when a card, a resume or another process's pause
   * came first. True when this call paused it.
   */
  async pauseStalled(
    roundId: string,
    seen: StallObservation,
    reason: string,
    context: CommandContext,
  ): Promise<boolean> {
    const { events } = await this.rounds.round(
      roundId,
      { type: 'PauseRound', reason, stalled: seen },
      context,
    );
    return events.length > 0;
  }

  /** The watchdog voids a round still in the pause it saw (refunds follow). True when voided. */
  async voidPaused(
    roundId: string,
    pauses: number,
    reason: string,
    context: CommandContext,
  ): Promise<boolean> {
    return (await this.voidRound(roundId, { reason, pausedAs: { pauses } }, context)).voided;
  }

  /**
   * A scanner round waiting for a card from a shoe with none left (its cut card was never
   * reported) can never finish: it is voided (its bets refunded) and the shoe closed as
   * `exhausted`, each event saying why. False when the round or its shoe is not in that state.
   */
  async voidOnExhaustedShoe(roundId: string, context: CommandContext): Promise<boolean> {
    const round = await this.rounds.getRound(roundId);
    if (round.cardSource !== 'scanner') return false;
    if (round.status !== 'closed' && round.status !== 'dealing') return false;
    const shoe = await this.rounds.shoes.getShoe(round.shoeId);
    if (shoe === null || shoe.cardsLeft > 0) return false;
    await this.void(
      roundId,
      `shoe ${shoe.shoeId} ran out of cards with round ${roundId} still waiting for one: its cut card was never reported`,
      context,
    );
    if (shoe.status !== 'closed')
      await this.rounds.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'exhausted' }, context);
    return true;
  }

  /**
   * Every void goes through here. A round whose deal is under way may hold cards the shoe drew
   * and the round has not recorded yet: the shoe seals the round first (it draws no more for it)
   * and the void records the cards it sealed, in the round's own append (ADR 0033). A deal that
   * starts between the read and the void's append makes the decider refuse DEAL_IN_PROGRESS:
   * read again, seal, void.
   */
  private async voidRound(
    roundId: string,
    order: { readonly reason: string; readonly pausedAs?: { readonly pauses: number } },
    context: CommandContext,
  ): Promise<{ state: RoundState; voided: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const round = await this.rounds.getRound(roundId);
      let sealed: DrawnCard[] | undefined;
      if (dealUnderWay(round)) {
        // The watchdog voids only the pause it saw; once sealed, the round can only be voided.
        const { pausedAs } = order;
        if (pausedAs !== undefined && !(round.paused && round.pauses === pausedAs.pauses))
          return { state: round, voided: false };
        sealed = await this.rounds.shoes.sealRound({ shoeId: round.shoeId, roundId }, context);
      }
      const command: RoundCommand = {
        type: 'VoidRound',
        ...order,
        ...(sealed === undefined ? {} : { sealed }),
      };
      try {
        const { state, events } = await this.rounds.round(roundId, command, context);
        return { state, voided: events.length > 0 };
      } catch (error) {
        const dealing = error instanceof DomainError && error.code === 'DEAL_IN_PROGRESS';
        if (!dealing || attempt >= VOID_ATTEMPTS) throw error;
      }
    }
  }
}
