import type { AppendResult } from '@croupier/eventstore';
import { metadataOf, type CommandContext } from '../context.js';
import { randomId } from '../ids.js';
import {
  checkDecided,
  type Aggregate,
  type DomainEvent,
  type Handled,
  type HandleOptions,
} from './aggregate.js';
import type { Appending } from './decide-and-append.js';

/** The most commands one append takes. */
export const MAX_BATCH = 64;

/** A command waiting for its stream, as `handle` received it. */
export interface Queued {
  readonly aggregate: Aggregate<unknown, DomainEvent, unknown>;
  readonly command: unknown;
  readonly context: CommandContext;
  readonly options: HandleOptions<DomainEvent>;
  readonly resolve: (handled: Handled<DomainEvent, unknown>) => void;
  readonly reject: (error: unknown) => void;
}

/** Runs one command alone, answering it: decided, appended and retried as it needs. */
export type RunAlone = (stream: string, queued: Queued) => Promise<void>;

/**
 * Commands that queued up while the stream was busy are decided together, each on the state the
 * ones before it leave, and appended as one batch (ADR 0022): seven players betting into a
 * round at once cost two appends, not seven. Only what the batch can confirm by its append is
 * taken in it; a command refused or deciding nothing there, and every command of a batch whose
 * append fails, is run again alone, as if it had never been batched (a failed append wrote
 * nothing).
 */
export async function runBatch(
  { store, states }: Pick<Appending, 'store' | 'states'>,
  stream: string,
  batch: readonly Queued[],
  runAlone: RunAlone,
): Promise<void> {
  const aggregate = batch[0]!.aggregate;
  const cached =
    states.cached<unknown>(aggregate, stream) ??
    (batch[0]!.options.expectNew === true
      ? { state: aggregate.decider.initialState(), revision: null, snapshotAt: -1n }
      : undefined);
  if (cached === undefined) {
    // Nothing seen of the stream: the first command reads it, the rest batch after it.
    await runAlone(stream, batch[0]!);
    const rest = batch.slice(1);
    if (rest.length === 0) return;
    if (rest.length === 1) return runAlone(stream, rest[0]!);
    return runBatch({ store, states }, stream, rest, runAlone);
  }
  // Decide each on the state the ones before it leave; keep only what an append confirms.
  let state = cached.state;
  const taken: { queued: Queued; events: readonly DomainEvent[]; state: unknown }[] = [];
  const alone: Queued[] = [];
  for (const queued of batch) {
    let events: readonly DomainEvent[];
    try {
      const command =
        typeof queued.command === 'function'
          ? (queued.command as (state: unknown) => unknown)(state)
          : queued.command;
      events = aggregate.decider.decide(command, state);
      checkDecided(aggregate, events);
    } catch {
      alone.push(queued); // refused here: judged again alone, on the stream as read
      continue;
    }
    if (events.length === 0) {
      alone.push(queued); // nothing to do, as far as the cache knows: alone, it reads
      continue;
    }
    for (const event of events) state = aggregate.decider.evolve(state, event);
    taken.push({ queued, events, state });
  }
  if (taken.length > 0) {
    const total = taken.reduce((sum, t) => sum + t.events.length, 0);
    const records = taken.flatMap(({ queued, events }) => {
      const ids = queued.options.eventIds?.(events) ?? events.map(() => randomId());
      const metadata = metadataOf(queued.context);
      return events.map((event, index) => ({
        id: ids[index]!,
        type: event.type,
        data: event.data,
        metadata,
      }));
    });
    let result: AppendResult | null;
    try {
      result = await store.append(stream, records, {
        expectedVersion: cached.revision ?? 'no-stream',
      });
    } catch {
      result = null; // a conflict, an id stored already, the store away: each alone
    }
    if (result === null || result.idempotent) {
      alone.unshift(...taken.map((t) => t.queued));
    } else {
      states.keep(aggregate, stream, {
        state,
        revision: result.revision,
        snapshotAt: cached.snapshotAt,
      });
      states.appended(
        aggregate,
        stream,
        cached.revision,
        taken.flatMap((t) => t.events),
        result.revision,
      );
      let appended = 0;
      for (const { queued, events, state: after } of taken) {
        appended += events.length;
        queued.resolve({
          events,
          state: after,
          revision: result.revision - BigInt(total - appended),
          position: result.position,
        });
      }
    }
  }
  for (const queued of alone) await runAlone(stream, queued);
}
