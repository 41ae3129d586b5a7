import {
  causedBy,
  deterministicId,
  subscribeParking,
  systemContext,
  type Parking,
  type Aggregate,
  type CommandHandler,
} from '@croupier/application';
import { roundEventSchema, streams, type RoundEvent } from '@croupier/contracts';
import type { RecordedEvent, Subscription } from '@croupier/eventstore';
import {
  settlementDecider,
  type SettlementCommand,
  type SettlementState,
} from '../domain/settlement.decider.js';

export const settlementAggregate: Aggregate<SettlementCommand, RoundEvent, SettlementState> = {
  name: 'settlement',
  /** The round's money records, in the round's own stream (ADR 0014). */
  writes: ['RoundSettled', 'BetsRefunded', 'RoundResettled'],
  decider: settlementDecider,
  parse: (recorded) => roundEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

/** The ids of settlement records are derived from the round, so each is recorded exactly once. */
const settlementIdOf = (roundId: string) => deterministicId('settlement', roundId);
const voidRefundIdOf = (roundId: string) => deterministicId('refund', roundId, 'voided');
const clearRefundIdOf = (clearEventId: string) => deterministicId('refund', clearEventId);

function recordIds(events: readonly RoundEvent[]): string[] {
  return events.map((event) => {
    if (event.type === 'RoundSettled') return deterministicId(event.type, event.data.settlementId);
    if (event.type === 'BetsRefunded') return deterministicId(event.type, event.data.refundId);
    if (event.type === 'RoundResettled')
      return deterministicId(event.type, event.data.resettlementId);
    throw new Error(`settlement does not record ${event.type}`);
  });
}

/** What settlement does for one round event; exported for tests and for the sweep. */
export async function settle(commands: CommandHandler, event: RecordedEvent): Promise<void> {
  const round = roundEventSchema.parse({ type: event.type, data: event.data });
  const stream = streams.round(round.data.roundId);
  const context = causedBy(systemContext('settlement'), event.id);
  let command: SettlementCommand;
  switch (round.type) {
    case 'RoundCompleted':
      command = { type: 'SettleRound', settlementId: settlementIdOf(round.data.roundId) };
      break;
    case 'RoundVoided': {
      // Voided before settlement: refund the stakes. After: resettle every bet to its stake.
      const { roundId, reason } = round.data;
      await commands.handle(
        settlementAggregate,
        stream,
        (state): SettlementCommand =>
          state.settlementId === null
            ? { type: 'RefundVoidedRound', refundId: voidRefundIdOf(roundId) }
            : {
                type: 'ResettleRound',
                resettlementId: deterministicId('resettlement', event.id),
                kind: 'void',
                reason,
              },
        context,
        { eventIds: recordIds },
      );
      return;
    }
    case 'RoundResultCorrected':
      command = {
        type: 'ResettleRound',
        resettlementId: deterministicId('resettlement', event.id),
        kind: 'correction',
        reason: round.data.reason,
      };
      break;
    case 'BetsCleared':
      command = {
        type: 'RefundClearedBets',
        refundId: clearRefundIdOf(event.id),
        betIds: round.data.betIds,
      };
      break;
    default:
      return;
  }
  await commands.handle(settlementAggregate, stream, command, context, { eventIds: recordIds });
}

export const SETTLEMENT_TRIGGERS = [
  'RoundCompleted',
  'RoundVoided',
  'BetsCleared',
  'RoundResultCorrected',
] as const;

/** How the settlement reactor and the outbox run, set where the process is composed. */
export interface SettlementReactorOptions {
  /**
   * Round streams of a page handled at once (`SETTLEMENT_CONCURRENCY`, default 8). Each round's
   * events stay in order; the page's checkpoint moves when every round of it is done.
   */
  readonly concurrentRounds?: number;
}

export const DEFAULT_CONCURRENT_ROUNDS = 8;

/**
 * Settles completed rounds, refunds voided rounds and cleared bets: one checkpointed
 * subscription, one active instance across processes. Records are appended with the round's
 * expected version and ids derived from the round, so a redelivered event settles nothing twice.
 * With `parking`, a round whose settlement is refused for good (or fails again and again) is
 * parked as `settlement` (ADR 0035): the rounds after it are settled meanwhile.
 */
export function startSettlementReactor(
  commands: CommandHandler,
  onError: (error: unknown) => void,
  { concurrentRounds = DEFAULT_CONCURRENT_ROUNDS }: SettlementReactorOptions = {},
  parking?: Parking,
): Subscription {
  // Where this process also plays the rounds (the gateway), settlement's state of each round is
  // folded as the round service appends, so settling it reads nothing (ADR 0046).
  commands.follow(settlementAggregate, streams.round(''));
  return subscribeParking(commands.store, parking, 'settlement', {
    name: 'settlement',
    from: 'start',
    filter: { streamPrefix: streams.round(''), eventTypes: SETTLEMENT_TRIGGERS },
    // Records carry ids derived from the round and are appended with its expected version: a
    // page delivered again records nothing twice, so one checkpoint per page (ADR 0022).
    checkpoints: 'per-page',
    // One task per round stream (ADR 0022): a round's settlement reads and appends only its own
    // stream, with that stream's expected version and ids derived from the round, so rounds
    // settled at once cannot touch each other, and their appends share a group commit. Each
    // round's events (a completion, then a correction or a void) are still handled in order.
    concurrentStreams: concurrentRounds,
    onError,
    handler: (event) => settle(commands, event),
  });
}
