import { EventEmitter } from 'node:events';
import type {
  ConsumerSession,
  SessionSignals,
  SubscriptionTuning,
} from '../checkpointed-subscription.js';
import type { MemoryLog } from './memory-log.js';

/**
 * Appends wake the consumers, so the poll is only a safety net; a standby looks at an in-process
 * set, which costs nothing, so it looks often and takes over soon after the active one stops.
 */
export const MEMORY_SUBSCRIPTION_TUNING: SubscriptionTuning = {
  pollIntervalMs: 1_000,
  lockRetryMs: 50,
  maxBackoffMs: 5_000,
  pageSize: 500,
};

/**
 * The subscriptions' side of the memory store: a checkpoint and a lease per subscription name,
 * and the wake-up that appends send to every session. Checkpoints outlive the consumers (a
 * consumer that stops and comes back resumes) but not the store.
 */
export class MemoryConsumers {
  readonly #log: MemoryLog;
  readonly #checkpoints = new Map<string, bigint>();
  readonly #leases = new Set<string>();
  readonly #appended = new EventEmitter().setMaxListeners(0);

  constructor(log: MemoryLog) {
    this.#log = log;
  }

  /** Tells every session that new events are in the log. */
  appended(): void {
    this.#appended.emit('appended');
  }

  /** A session for one consumer of `name`. It cannot break: nothing in it is remote. */
  openSession(name: string, signals: SessionSignals): Promise<ConsumerSession> {
    const log = this.#log;
    const checkpoints = this.#checkpoints;
    const leases = this.#leases;
    const appended = this.#appended;
    let held = false;
    appended.on('appended', signals.wake);
    return Promise.resolve({
      tryAcquire: () => {
        if (!held && !leases.has(name)) {
          leases.add(name);
          held = true;
        }
        return Promise.resolve(held);
      },
      loadCheckpoint: () => Promise.resolve(checkpoints.get(name) ?? null),
      createCheckpoint: (position) => {
        if (!checkpoints.has(name)) checkpoints.set(name, position);
        return Promise.resolve(checkpoints.get(name) ?? position);
      },
      storeCheckpoint: (from, to) => {
        if (checkpoints.get(name) !== from) return Promise.resolve(false);
        checkpoints.set(name, to);
        return Promise.resolve(true);
      },
      head: () => Promise.resolve(log.head()),
      // One synchronous step: the page and its head come from the same state of the log.
      readPage: (after, filter, limit) =>
        Promise.resolve({ events: log.readAll(after, filter, limit), head: log.head() }),
      close: () => {
        appended.off('appended', signals.wake);
        if (held) leases.delete(name);
        held = false;
        return Promise.resolve();
      },
    });
  }
}
