import type { Snapshot, SnapshotStorage } from './snapshot-storage.js';

/** A snapshot as jsonb would give it back: a fresh copy, JSON values only. */
const stored = (snapshot: Snapshot): Snapshot => ({
  ...snapshot,
  state: JSON.parse(JSON.stringify(snapshot.state)) as unknown,
});

const keyOf = (stream: string, aggregate: string) => `${aggregate}\u0000${stream}`;

/** Snapshots in this process's memory, beside the memory store's log; not durable. */
export class MemorySnapshotStorage implements SnapshotStorage {
  readonly #snapshots = new Map<string, Snapshot>();

  latest(stream: string, aggregate: string): Promise<Snapshot | undefined> {
    const snapshot = this.#snapshots.get(keyOf(stream, aggregate));
    return Promise.resolve(snapshot === undefined ? undefined : stored(snapshot));
  }

  save(snapshots: readonly Snapshot[]): Promise<void> {
    for (const snapshot of snapshots) {
      const key = keyOf(snapshot.stream, snapshot.aggregate);
      const current = this.#snapshots.get(key);
      if (current === undefined || current.revision <= snapshot.revision)
        this.#snapshots.set(key, stored(snapshot));
    }
    return Promise.resolve();
  }

  /** Replaces a stored snapshot as it is, digest unchecked: for tests that tamper with one. */
  overwrite(snapshot: Snapshot): void {
    this.#snapshots.set(keyOf(snapshot.stream, snapshot.aggregate), stored(snapshot));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
