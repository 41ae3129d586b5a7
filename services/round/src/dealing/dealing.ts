import type { Card } from '@croupier/baccarat';
import {
  DomainError,
  streams,
  type CommandContext,
  type DrawnCard,
  type ShoeSummary,
} from '@croupier/contracts';
import {
  nextScannedCard,
  requireCorrectable,
  requireTakesCards,
  waitsForCard,
  type RoundState,
} from '../domain/round.decider.js';
import type { Faults } from '../faults/faults.js';
import { roundAggregate } from '../shared/aggregates.js';
import type { RoundContext } from '../shared/round-context.js';
import { requireMayDeal } from '../shared/session-rules.js';

/**
 * Dealing a round: betting closed, the cards of an rng round drawn by the shoe, a scanner
 * round's cards recorded as the card reader reads them (and corrected by a supervisor), the cut
 * card reported, a scanned result confirmed.
 */
export class Dealing {
  constructor(
    private readonly rounds: RoundContext,
    private readonly faults: Faults,
  ) {}

  async closeBetting(roundId: string, context: CommandContext): Promise<RoundState> {
    requireMayDeal(await this.rounds.tableOfRound(roundId), context);
    return (await this.rounds.round(roundId, { type: 'CloseBetting' }, context)).state;
  }

  /**
   * Deals an rng round: the round commits to the deal, the shoe draws its cards by the rules, the
   * round records them and completes. `closeBetting` closes betting in the deal's first append
   * (the auto-dealer, a player's own deal) when it is still open.
   */
  async deal(
    roundId: string,
    context: CommandContext,
    options: { readonly closeBetting?: boolean } = {},
  ): Promise<RoundState> {
    requireMayDeal(await this.rounds.tableOfRound(roundId), context);
    return this.dealRound(roundId, context, options.closeBetting === true);
  }

  /** The deal itself, whoever asks: closing a session deals its round as the session does. */
  async dealRound(
    roundId: string,
    context: CommandContext,
    closeBetting = false,
  ): Promise<RoundState> {
    // Refused before anything is written; asked of the round as this process last wrote it (a
    // refusal is asked again on the round as read, ADR 0022).
    let round = await this.rounds.commands.ask(
      roundAggregate,
      streams.round(roundId),
      (current) => {
        if (current.status === 'none')
          throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
        if (!(closeBetting && current.status === 'betting')) requireTakesCards(current, 'rng');
        return current;
      },
    );
    if (round.status === 'completed') return round; // dealt already: a retried deal
    // The round commits to the deal in its own stream, with its expected version, before the
    // shoe draws (ADR 0033). Anything can land between the draw and the DealCards append below,
    // a void from this very process included (its command waits on the round's queue, not on
    // this deal): a void decided after DealStarted seals the round at the shoe first and records
    // the cards it drew, so the cards are never out without the round recording them.
    if (!round.dealStarted)
      round = (await this.rounds.round(roundId, { type: 'StartDeal', closeBetting }, context))
        .state;
    if (round.status === 'completed') return round;
    const cards = await this.rounds.shoes.drawRound(
      { shoeId: round.shoeId, roundId, roundNumber: round.number },
      context,
    );
    return (await this.rounds.round(roundId, { type: 'DealCards', cards }, context)).state;
  }

  /**
   * Records a card the dealer's card reader read; the round says which hand it goes to. When the
   * shoe's last card leaves the round still short of one, the round is voided and the shoe
   * closed at once (voidOnExhaustedShoe): no card can ever come.
   */
  async postScannedCard(roundId: string, card: Card, context: CommandContext): Promise<RoundState> {
    let round = await this.syncScannedCards(roundId, context);
    // Refused before the shoe records the card (a voided round, for one, takes no more cards).
    nextScannedCard(round);
    // The first card: the round commits to its deal before the shoe records it (ADR 0033), so a
    // void from then on takes the shoe's cards for the round with it.
    if (!round.dealStarted)
      round = (await this.rounds.round(roundId, { type: 'StartDeal' }, context)).state;
    const { hand, index } = nextScannedCard(round);
    let drawn: DrawnCard;
    try {
      drawn = await this.rounds.shoes.drawScannedCard(
        { shoeId: round.shoeId, roundId, roundNumber: round.number, index, card, hand },
        context,
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SHOE_FINISHED')
        await this.faults.voidOnExhaustedShoe(roundId, context);
      throw error;
    }
    const { state } = await this.rounds.round(
      roundId,
      { type: 'DealCards', cards: [drawn] },
      context,
    );
    if (waitsForCard(state) && (await this.faults.voidOnExhaustedShoe(roundId, context)))
      return this.rounds.getRound(roundId);
    return state;
  }

  /** The dealer saw the cut card come out (scanner shoes). */
  async reportCutCard(roundId: string, context: CommandContext): Promise<ShoeSummary> {
    const round = await this.rounds.getRound(roundId);
    return this.rounds.shoes.reportCutCard(
      { shoeId: round.shoeId, roundId, roundNumber: round.number },
      context,
    );
  }

  /** A supervisor corrects a misread card before the round completes. */
  async correctCard(
    roundId: string,
    input: { shoePosition: number; card: Card; reason: string },
    context: CommandContext,
  ): Promise<RoundState> {
    const round = await this.rounds.getRound(roundId);
    requireCorrectable(round, input); // refused before the shoe records it
    await this.rounds.shoes.correctCard(
      {
        shoeId: round.shoeId,
        roundId,
        position: input.shoePosition,
        card: input.card,
        reason: input.reason,
      },
      context,
    );
    return (await this.rounds.round(roundId, { type: 'CorrectCard', ...input }, context)).state;
  }

  async confirmResult(roundId: string, context: CommandContext): Promise<RoundState> {
    return (await this.rounds.round(roundId, { type: 'ConfirmResult' }, context)).state;
  }

  /** Brings a scanner round level with the cards its shoe has recorded for it (after a crash). */
  private async syncScannedCards(roundId: string, context: CommandContext): Promise<RoundState> {
    const round = await this.rounds.getRound(roundId);
    if (round.cardSource !== 'scanner') return round;
    const recorded: DrawnCard[] = await this.rounds.shoes.roundCards(round.shoeId, roundId);
    const dealt = round.player.length + round.banker.length;
    if (recorded.length <= dealt) return round;
    return (
      await this.rounds.round(roundId, { type: 'DealCards', cards: recorded.slice(dealt) }, context)
    ).state;
  }
}
