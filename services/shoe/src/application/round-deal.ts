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
 * Where the round service plays in this process (the gateway), the shoe's view of each round is
 * folded as the round service appends (ADR 0046), so a draw reads nothing.
 */
export function followRounds(commands: CommandHandler): void {
  commands.follow(roundDealAggregate, streams.round(''));
}

/**
 * The shoe hands out cards only to a round that committed to its deal in its own stream: a
 * caller with a service token cannot draw for a round never opened, or not yet dealing, and
 * leave the shoe's record naming cards no round holds.
 *
 * Asked of the cached state first: both facts only ever become true (a stream is append-only),
 * so a state that holds them is right however old it is; one that does not is asked again on
 * the round as read, where the refusal, if any, is the real one.
 */
export async function requireDealStarted(
  commands: CommandHandler,
  roundId: RoundId,
): Promise<void> {
  await commands.ask(roundDealAggregate, streams.round(roundId), (state) => {
    if (!state.exists) throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
    if (!state.dealStarted)
      throw new DomainError(
        'ROUND_NOT_DEALING',
        `round "${roundId}" has not started its deal: the shoe draws only for a round that has`,
      );
  });
}
