import type { EventStore } from '@croupier/eventstore';
import {
  snapshotDigest,
  SnapshotWriter,
  type SnapshotPolicy,
  type SnapshotRefusal,
} from '../snapshots.js';
import type { Aggregate, DomainEvent, Held } from './aggregate.js';

/**
 * The handler's side of snapshots (docs/adr/0025): where a load starts when its stream is not
 * cached, and when a stream has moved far enough past its last snapshot to take another. What
 * it used, refused and failed to read is counted for the handler's stats.
 */
export class StreamSnapshots {
  readonly writer: SnapshotWriter;
  used = 0;
  readFailures = 0;
  readonly refused: Record<SnapshotRefusal['reason'], number> = {
    'schema-version': 0,
    digest: 0,
    chain: 0,
    decode: 0,
  };

  constructor(
    private readonly store: EventStore,
    private readonly policy: SnapshotPolicy,
  ) {
    this.writer = new SnapshotWriter(store, policy);
  }

  /**
   * The stream's last snapshot, if the aggregate takes them and it agrees with the stream: the
   * event at its revision must still be stored with the hash it recorded, its digest must match
   * (an HMAC under the policy's key) and its version the aggregate's. Otherwise it is reported
   * and the stream is read whole. Costs one query, and the read of the events after it starts
   * at the snapshot's own event, which it checks.
   */
  async latest<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Held<State> | undefined> {
    const policy = this.policy;
    const encoding = aggregate.snapshot;
    if (encoding === undefined) return undefined;
    let snapshot;
    try {
      snapshot = await policy.storage.latest(stream, aggregate.name);
    } catch (error) {
      this.readFailures++;
      policy.onError?.(error);
      return undefined;
    }
    if (snapshot === undefined) return undefined;
    let refusal: [SnapshotRefusal['reason'], string] | null = null;
    let state: State | undefined;
    if (snapshot.schemaVersion !== encoding.version)
      refusal = [
        'schema-version',
        `taken by version ${snapshot.schemaVersion} of the ${aggregate.name} snapshot, not ${encoding.version}`,
      ];
    else if (snapshotDigest(policy.key, snapshot) !== snapshot.digest)
      refusal = ['digest', 'the digest does not match the snapshot: it was changed'];
    else {
      const [event] = await this.store.readStream(stream, { from: snapshot.revision, limit: 1 });
      if (event?.revision !== snapshot.revision)
        refusal = ['chain', `the stream holds no event at revision ${snapshot.revision}`];
      else if (event.metadata['hash'] !== snapshot.eventHash)
        refusal = [
          'chain',
          `the event at revision ${snapshot.revision} has another hash than the snapshot recorded`,
        ];
      else {
        try {
          state = encoding.decode(snapshot.state);
        } catch (error) {
          refusal = ['decode', error instanceof Error ? error.message : String(error)];
        }
      }
    }
    if (refusal !== null || state === undefined) {
      const [reason, detail] = refusal ?? ['decode', 'decode answered no state'];
      this.refused[reason]++;
      policy.onRefused?.({
        stream,
        aggregate: aggregate.name,
        revision: snapshot.revision,
        reason,
        detail,
      });
      return undefined;
    }
    this.used++;
    return { state, revision: snapshot.revision, snapshotAt: snapshot.revision };
  }

  /**
   * Queues a snapshot of the stream when it has moved `every` events past its last one (the
   * write happens off the command path); answers the revision of the last snapshot now known.
   */
  maybeTake<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    held: Held<State>,
    eventHash?: unknown,
  ): bigint {
    const encoding = aggregate.snapshot;
    if (
      encoding === undefined ||
      held.revision === null ||
      held.revision - held.snapshotAt < BigInt(this.policy.every)
    )
      return held.snapshotAt;
    this.writer.queue({
      stream,
      aggregate: aggregate.name,
      schemaVersion: encoding.version,
      revision: held.revision,
      state: encoding.encode(held.state),
      eventHash: typeof eventHash === 'string' ? eventHash : undefined,
    });
    return held.revision;
  }
}
