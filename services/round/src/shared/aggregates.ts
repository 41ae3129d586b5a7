import {
  deterministicId,
  randomId,
  type Aggregate,
  type CommandHandler,
  type Handled,
} from '@croupier/application';
import {
  eventTypesOf,
  roundEventSchema,
  streams,
  type CommandContext,
  tableEventSchema,
  type RoundEvent,
  type TableEvent,
} from '@croupier/contracts';
import { roundDecider, type RoundCommand, type RoundState } from '../domain/round.decider.js';
import { tableDecider, type TableCommand, type TableState } from '../domain/table.decider.js';

export const roundAggregate: Aggregate<RoundCommand, RoundEvent, RoundState> = {
  name: 'round',
  /** The game. The round stream's money records are settlement's (ADR 0014). */
  writes: [
    'RoundOpened',
    'BetPlaced',
    'BetsCleared',
    'StakeReleased',
    'BettingClosed',
    'DealStarted',
    'CardDealt',
    'CardCorrected',
    'RoundPaused',
    'RoundResumed',
    'RoundCompleted',
    'RoundResultCorrected',
    'RoundVoided',
  ],
  decider: roundDecider,
  parse: (recorded) => roundEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

export const tableAggregate: Aggregate<TableCommand, TableEvent, TableState> = {
  name: 'table',
  writes: eventTypesOf(tableEventSchema),
  decider: tableDecider,
  parse: (recorded) => tableEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

/** Event ids derived from what each event records, so a retried step cannot record it twice. */
function roundEventId(event: RoundEvent): string {
  switch (event.type) {
    case 'BetPlaced':
      return deterministicId(event.type, event.data.betId);
    case 'StakeReleased':
      return deterministicId(event.type, event.data.roundId, event.data.betId, event.data.playerId);
    case 'CardDealt':
      return deterministicId(event.type, event.data.roundId, String(event.data.shoePosition));
    case 'RoundOpened':
    case 'BettingClosed':
    case 'DealStarted':
    case 'RoundCompleted':
      return deterministicId(event.type, event.data.roundId);
    default:
      return randomId();
  }
}

/** Runs a command on a round's stream: the one way the round service writes a round. */
export function handleRound(
  commands: CommandHandler,
  roundId: string,
  command: RoundCommand,
  context: CommandContext,
): Promise<Handled<RoundEvent, RoundState>> {
  return commands.handle(roundAggregate, streams.round(roundId), command, context, {
    eventIds: (events) => events.map(roundEventId),
    // A round is opened under the next number of its shoe: its stream is new (ADR 0022).
    expectNew: command.type === 'OpenRound',
  });
}
