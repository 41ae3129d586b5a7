import type { Aggregate, CommandHandler } from '@croupier/application';
import { DomainError, streams, type RoundId } from '@croupier/contracts';

interface RoundDeal {
  readonly exists: boolean;
  readonly dealStarted: boolean;
}

/**
 * Whether a round committed to its deal, as the shoe reads the round's stream through the
 * command handler (cached, then read past the cache to the stream's end). It decides nothing:
 * the round's decider writes `DealStarted`, before it asks the shoe for a card (ADR 0033).
 */
const roundDealAggregate: Aggregate<never, { type: string; data: null }, RoundDeal> = {
  name: 'round-deal',
  writes: [],
  decider: {
    decide: () => [],
    evolve: (state, event) => ({
      exists: true,
      dealStarted: state.dealStarted || event.type === 'DealStarted',
    }),
    initialState: () => ({ exists: false, dealStarted: false }),
  },
  parse: (recorded) => ({ type: recorded.type, data: null }),
};

/**
 * The shoe hands out cards only to a round that committed to its deal in its own stream: a
 * caller with a service token cannot draw for a round never opened, or not yet dealing, and
 * leave the shoe's record naming cards no round holds.
 */
export async function requireDealStarted(
  commands: CommandHandler,
  roundId: RoundId,
): Promise<void> {
  const { state } = await commands.load(roundDealAggregate, streams.round(roundId));
  if (!state.exists) throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
  if (!state.dealStarted)
    throw new DomainError(
      'ROUND_NOT_DEALING',
      `round "${roundId}" has not started its deal: the shoe draws only for a round that has`,
    );
}
