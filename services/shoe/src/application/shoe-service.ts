import { randomBytes } from 'node:crypto';
import { type Aggregate, type CommandHandler } from '@croupier/application';
import {
  digestValueOf,
  DomainError,
  parseShoeId,
  roundIdOf,
  shoeEventSchema,
  eventTypesOf,
  shoeIdOf,
  streams,
  type CommandContext,
  type CutCardState,
  type DigestEntry,
  type DrawnCard,
  type ShoeEvent,
  type ShoePort,
  type ShoeSummary,
} from '@croupier/contracts';
import { shoeDecider, type ShoeCommand, type ShoeState } from '../domain/shoe.decider.js';
import { followRounds, requireDealStarted } from './round-deal.js';
import type { SeedVault } from './seed-vault.js';

export const shoeAggregate: Aggregate<ShoeCommand, ShoeEvent, ShoeState> = {
  name: 'shoe',
  writes: eventTypesOf(shoeEventSchema),
  decider: shoeDecider,
  parse: (recorded) => shoeEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

export function summarize(state: ShoeState): ShoeSummary {
  const { tableId, shoeNumber } = parseShoeId(state.shoeId);
  return {
    shoeId: state.shoeId,
    tableId,
    number: shoeNumber,
    status: state.status === 'none' ? 'dealing' : state.status,
    decks: state.decks,
    cardSource: state.cardSource,
    shufflePolicy: state.shufflePolicy,
    position: state.position,
    cardsLeft: state.decks * 52 - state.position,
    roundsDrawn: state.lastRoundDrawn,
    lastRoundNumber: state.lastRoundNumber,
    cutCard: cutCardOf(state),
    commitment: state.commitment,
  };
}

function cutCardOf(state: ShoeState): CutCardState | null {
  const reached = state.cutCardReached;
  const position = reached?.position ?? state.cutCardIndex;
  if (position === null) return null;
  return {
    position,
    cardsFromEnd: state.decks * 52 - position,
    reached: reached !== null,
    reachedInRound: reached?.roundNumber ?? null,
  };
}

/** The shoe service's command side: every shoe operation, each one event-sourced. */
export class ShoeService implements ShoePort {
  constructor(
    private readonly commands: CommandHandler,
    private readonly vault: SeedVault,
  ) {
    followRounds(commands);
  }

  async getShoe(shoeId: string): Promise<ShoeSummary | null> {
    const { state } = await this.commands.load(shoeAggregate, streams.shoe(shoeId));
    return state.status === 'none' ? null : summarize(state);
  }

  async startShoe(
    input: Parameters<ShoePort['startShoe']>[0],
    context: CommandContext,
  ): Promise<ShoeSummary> {
    const shoeId = shoeIdOf(input.tableId, input.number);
    const { config } = input;
    const rng = config.cardSource === 'rng';
    const seed = rng ? randomBytes(32).toString('hex') : null;
    try {
      const { state } = await this.run(
        shoeId,
        {
          type: 'ShuffleShoe',
          shoeId,
          tableId: input.tableId,
          number: input.number,
          decks: config.decks,
          cardSource: config.cardSource,
          shufflePolicy: config.shufflePolicy,
          burn: config.burn,
          cutCard: config.cutCard,
          rng: seed === null ? null : { seed, sealedSeed: this.vault.seal(seed, shoeId) },
        },
        context,
      );
      return summarize(state);
    } catch (error) {
      // Another process started this shoe first: it is the shoe.
      if (error instanceof DomainError && error.code === 'ALREADY_EXISTS') {
        return (await this.getShoe(shoeId))!;
      }
      throw error;
    }
  }

  async drawRound(
    input: Parameters<ShoePort['drawRound']>[0],
    context: CommandContext,
  ): Promise<DrawnCard[]> {
    await requireDealStarted(this.commands, input.roundId);
    const { state } = await this.run(
      input.shoeId,
      (current) => ({
        type: 'DrawRound',
        roundId: input.roundId,
        roundNumber: input.roundNumber,
        seed: this.seedOf(current),
      }),
      context,
    );
    return [...(state.rounds.get(input.roundId)?.cards ?? [])];
  }

  async drawScannedCard(
    input: Parameters<ShoePort['drawScannedCard']>[0],
    context: CommandContext,
  ): Promise<DrawnCard> {
    await requireDealStarted(this.commands, input.roundId);
    const { state } = await this.run(input.shoeId, { type: 'DrawScannedCard', ...input }, context);
    return state.rounds.get(input.roundId)!.cards[input.index]!;
  }

  async sealRound(
    input: Parameters<ShoePort['sealRound']>[0],
    context: CommandContext,
  ): Promise<DrawnCard[]> {
    const { state } = await this.run(
      input.shoeId,
      { type: 'SealRound', roundId: input.roundId },
      context,
    );
    return [...(state.rounds.get(input.roundId)?.cards ?? [])];
  }

  async roundCards(shoeId: string, roundId: string): Promise<DrawnCard[]> {
    const { state } = await this.commands.load(shoeAggregate, streams.shoe(shoeId));
    return [...(state.rounds.get(roundId)?.cards ?? [])];
  }

  async correctCard(
    input: Parameters<ShoePort['correctCard']>[0],
    context: CommandContext,
  ): Promise<void> {
    await this.run(input.shoeId, { type: 'CorrectCard', ...input }, context);
  }

  async reportCutCard(
    input: Parameters<ShoePort['reportCutCard']>[0],
    context: CommandContext,
  ): Promise<ShoeSummary> {
    const { state } = await this.run(
      input.shoeId,
      { type: 'ReportCutCard', roundId: input.roundId, roundNumber: input.roundNumber },
      context,
    );
    return summarize(state);
  }

  async burnScannedCard(
    input: Parameters<ShoePort['burnScannedCard']>[0],
    context: CommandContext,
  ): Promise<ShoeSummary> {
    const { state } = await this.run(
      input.shoeId,
      { type: 'BurnScannedCard', shownCard: input.shownCard },
      context,
    );
    return summarize(state);
  }

  async closeShoe(
    input: Parameters<ShoePort['closeShoe']>[0],
    context: CommandContext,
  ): Promise<ShoeSummary> {
    const digest = await this.digestOf(input.shoeId);
    const { state } = await this.run(
      input.shoeId,
      (current) => ({
        type: 'CloseShoe',
        reason: input.reason,
        seed:
          current.sealedSeed === null
            ? null
            : this.vault.unseal(current.sealedSeed, current.shoeId),
        digest,
      }),
      context,
    );
    return summarize(state);
  }

  /**
   * The last revision and hash of the shoe's stream and of every round stream of the shoe
   * (rounds are numbered from 1 without gaps), and sha256 of their canonical JSON.
   */
  async digestOf(shoeId: string): Promise<{ streams: DigestEntry[]; value: string }> {
    const entries: DigestEntry[] = [];
    const head = async (stream: string): Promise<boolean> => {
      const [last] = await this.commands.store.readStream(stream, {
        direction: 'backwards',
        limit: 1,
      });
      if (last === undefined) return false;
      entries.push({
        stream,
        revision: last.revision.toString(),
        hash: String(last.metadata.hash),
      });
      return true;
    };
    await head(streams.shoe(shoeId));
    for (let round = 1; await head(streams.round(roundIdOf(shoeId, round))); round++);
    return {
      streams: entries,
      value: digestValueOf(entries),
    };
  }

  private seedOf(state: ShoeState): string {
    if (state.status === 'none')
      throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
    if (state.sealedSeed === null)
      throw new DomainError('WRONG_CARD_SOURCE', `shoe ${state.shoeId} has no seed`);
    return this.vault.unseal(state.sealedSeed, state.shoeId);
  }

  private async run(
    shoeId: string,
    command: ShoeCommand | ((state: ShoeState) => ShoeCommand),
    context: CommandContext,
  ) {
    return this.commands.handle(shoeAggregate, streams.shoe(shoeId), command, context);
  }
}
