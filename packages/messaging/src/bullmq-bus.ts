import {
  settlementMessageSchema,
  walletMessageSchema,
  type SettlementMessage,
  type WalletMessage,
} from '@croupier/contracts';
import { backoffs } from '@croupier/eventstore';
import { Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';
import type { BusMessage, MessageBus, MessageHandler, SettlementConsumer } from './bus.js';

/**
 * The public queue (under each deployment's key prefix): version 2 settlement messages, one per
 * movement of a player's money, for downstream systems. Croupier itself never consumes it, so no
 * reader of it can keep Croupier's wallet from its credits.
 */
export const SETTLEMENT_QUEUE = 'settlement-events';

/**
 * Croupier's own queue: version 1 messages from the settlement service to Croupier's wallet
 * (payouts, refunds, adjustments to apply). Not a public contract; only Croupier's wallet reads it.
 */
export const WALLET_LEDGER_QUEUE = 'wallet-ledger';

/** How long finished jobs stay in Redis: completed ones make a re-send a no-op while kept. */
export interface JobRetention {
  /** Seconds after finishing. */
  readonly ageSeconds: number;
  /** At most this many (the newest). */
  readonly count: number;
}

export interface BullMqSettlementBusOptions {
  readonly redisUrl: string;
  /** BullMQ key prefix: one deployment's (or test's) queues apart from another's. */
  readonly prefix: string;
  /** Default: the bus's own (`wallet-ledger` for settlements, `settlement-events` for the public one). */
  readonly queueName?: string;
  /** Deliveries of one message before it is moved to the failed set. Default 10. */
  readonly attempts?: number;
  /** First retry delay; each next one doubles (BullMQ exponential backoff). Default 1 s. */
  readonly backoffMs?: number;
  /** Default: a day, at most 100,000 jobs. */
  readonly keepCompleted?: JobRetention;
  /** Default: kept until replayed or removed by an operator. */
  readonly keepFailed?: JobRetention | 'forever';
  /** `publish` rejects when Redis has not accepted every job by then. Default 5 s. */
  readonly publishTimeoutMs?: number;
  /** A job whose worker stops renewing its lock for this long is taken over. Default 30 s. */
  readonly lockDurationMs?: number;
  /** How often workers look for such stalled jobs. Default 30 s (BullMQ's). */
  readonly stalledIntervalMs?: number;
  /** Stalls (e.g. a consumer killed mid-job) before a job is failed rather than retried. Default 5. */
  readonly maxStalledCount?: number;
  /** Longest wait between reconnection attempts to Redis. Default 2 s. */
  readonly reconnectMaxDelayMs?: number;
  /** Connection losses, failed deliveries and other trouble the bus works through by itself. */
  readonly onError?: (error: unknown, context: BusErrorContext) => void;
}

export interface BusErrorContext {
  readonly source: 'producer' | 'consumer' | 'job';
  readonly jobId?: string;
}

/** A message that used up its attempts (or was not a valid message), as kept in Redis. */
export interface FailedSettlement {
  readonly jobId: string;
  /** The job's data: a settlement message unless it failed validation. */
  readonly data: unknown;
  readonly failedReason: string;
  readonly attemptsMade: number;
  readonly failedAt: Date | null;
}

export type JobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'prioritized';

const JOB_STATES: readonly JobState[] = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'completed',
  'failed',
];

/** A job kept in Redis: its id, its state and its data (a settlement message unless invalid). */
export interface KeptJob {
  readonly jobId: string;
  readonly state: JobState;
  readonly data: unknown;
}

/**
 * Rejected `publish`: Redis did not confirm every job in time, or refused. Publish again (job ids
 * make that safe): a job whose confirmation was lost may still be stored, never half of one.
 */
export class PublishError extends Error {
  readonly code = 'PUBLISH_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PublishError';
  }
}

/** Strips trailing ':' so a testkit prefix like `t_ab12:` gives keys `t_ab12:settlement-events:…`. */
function bullPrefix(prefix: string): string {
  const trimmed = prefix.replace(/:+$/, '');
  if (trimmed.length === 0) throw new RangeError('the BullMQ prefix must not be empty');
  return trimmed;
}

function keepOption(keep: JobRetention | 'forever'): NonNullable<JobsOptions['removeOnComplete']> {
  return keep === 'forever' ? false : { age: keep.ageSeconds, count: keep.count };
}

function deadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new PublishError(`${what}: Redis did not answer within ${ms} ms`));
    }, ms);
  });
  // A late answer after the deadline is harmless (job ids make a re-send a no-op); a late
  // failure must not surface as an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

/**
 * A bus on BullMQ: one queue, job id = message id, so publishing a
 * message again while its job is kept is a no-op. Consumers get each message at least once,
 * validated against the public schema; a handler that throws is retried with exponential
 * backoff, and a message that used up its attempts (or is not a valid message) is kept in the
 * failed set for inspection and `replayFailed`.
 *
 * The producer's connection has no offline queue and `publish` has a deadline: while Redis is
 * unreachable `publish` rejects instead of buffering in memory or hanging, so the outbox keeps
 * its checkpoint and retries. Worker connections reconnect on their own
 * (`maxRetriesPerRequest: null`, as BullMQ requires).
 */
export class BullMqBus<M extends BusMessage> implements MessageBus<M> {
  readonly kind = 'bullmq';
  readonly queueName: string;
  readonly prefix: string;
  private readonly producer: Redis;
  private queue: Queue;
  private readonly jobOptions: JobsOptions;
  private readonly consumers = new Set<SettlementConsumer>();
  private closed = false;

  constructor(
    private readonly options: BullMqSettlementBusOptions,
    private readonly contract: { readonly schema: z.ZodType<M>; readonly queueName: string },
  ) {
    this.queueName = options.queueName ?? contract.queueName;
    this.prefix = bullPrefix(options.prefix);
    this.jobOptions = {
      attempts: options.attempts ?? 10,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 1_000 },
      removeOnComplete: keepOption(options.keepCompleted ?? { ageSeconds: 86_400, count: 100_000 }),
      removeOnFail: keepOption(options.keepFailed ?? 'forever'),
    };
    this.producer = this.connect('producer', {
      // Fail at once while disconnected instead of queueing in memory: a publish either
      // reached Redis or rejects.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    this.queue = this.createQueue();
  }

  /** Resolves once Redis stored every job (one MULTI); rejects when it did not in time. */
  async publish(messages: readonly M[]): Promise<void> {
    if (this.closed) throw new PublishError('the settlement bus is closed');
    if (messages.length === 0) return;
    const jobs = messages.map((message) => {
      const valid = this.contract.schema.parse(message);
      return {
        name: valid.kind,
        data: valid,
        opts: { ...this.jobOptions, jobId: valid.messageId },
      };
    });
    const what = `publish of ${jobs.length} message(s)`;
    const timeoutMs = this.options.publishTimeoutMs ?? 5_000;
    const startedAt = Date.now();
    try {
      // Wait for the connection here, not inside BullMQ: a job handed to BullMQ before the first
      // connection would be sent whenever Redis comes back, long after this call gave up.
      await this.producerReady(timeoutMs, what);
      const queue = await this.readyQueue(timeoutMs - (Date.now() - startedAt), what);
      await deadline(queue.addBulk(jobs), Math.max(1, timeoutMs - (Date.now() - startedAt)), what);
    } catch (error) {
      if (error instanceof PublishError) throw error;
      throw new PublishError(
        `publish of ${jobs.length} message(s) failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Starts a worker: `handler` gets each valid message; a throw means "not applied" and the
   * message comes again after a backoff. Resolves at once, even while Redis is down (the worker
   * connects when it can).
   */
  consume(
    handler: MessageHandler<M>,
    options: { concurrency?: number } = {},
  ): Promise<SettlementConsumer> {
    if (this.closed) return Promise.reject(new Error('the settlement bus is closed'));
    const connection = this.connect('consumer', { maxRetriesPerRequest: null });
    const worker = new Worker(
      this.queueName,
      async (job: Job) => {
        const parsed = this.contract.schema.safeParse(job.data);
        if (!parsed.success) {
          // Retrying cannot make it valid: straight to the failed set, never applied.
          throw new UnrecoverableError(`not a valid message: ${z.prettifyError(parsed.error)}`);
        }
        if (parsed.data.messageId !== job.id) {
          throw new UnrecoverableError(
            `job ${job.id ?? '?'} carries message ${parsed.data.messageId}: job ids must be message ids`,
          );
        }
        await handler(parsed.data);
      },
      {
        connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: this.options.lockDurationMs ?? 30_000,
        stalledInterval: this.options.stalledIntervalMs ?? 30_000,
        maxStalledCount: this.options.maxStalledCount ?? 5,
      },
    );
    worker.on('error', (error) => {
      this.report(error, { source: 'consumer' });
    });
    worker.on('failed', (job, error) => {
      this.report(error, { source: 'job', ...(job?.id === undefined ? {} : { jobId: job.id }) });
    });
    let closing: Promise<void> | null = null;
    const consumer: SettlementConsumer = {
      close: () => {
        closing ??= (async () => {
          this.consumers.delete(consumer);
          try {
            await worker.close(); // waits for the jobs in flight
          } finally {
            connection.disconnect();
          }
        })();
        return closing;
      },
    };
    this.consumers.add(consumer);
    return Promise.resolve(consumer);
  }

  /** Messages that used up their attempts (or failed validation), newest first. */
  async failed(limit = 100): Promise<FailedSettlement[]> {
    const jobs = await this.queue.getFailed(0, Math.max(0, limit - 1));
    return jobs.map((job) => ({
      jobId: job.id ?? '',
      data: job.data as unknown,
      failedReason: job.failedReason,
      attemptsMade: job.attemptsMade,
      failedAt: job.finishedOn === undefined ? null : new Date(job.finishedOn),
    }));
  }

  /**
   * Moves failed jobs (all, or those named) back to the queue with a fresh budget of attempts.
   * Returns the ids replayed.
   */
  async replayFailed(jobIds?: readonly string[]): Promise<string[]> {
    const jobs =
      jobIds === undefined
        ? await this.queue.getFailed(0, -1)
        : (await Promise.all(jobIds.map((id) => this.queue.getJob(id)))).filter(
            (job) => job !== undefined,
          );
    const replayed: string[] = [];
    for (const job of jobs) {
      if (!(await job.isFailed())) continue;
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      replayed.push(job.id ?? '');
    }
    return replayed;
  }

  /** How many jobs are in each state (completed and failed: those still kept). */
  async jobCounts(): Promise<Record<JobState, number>> {
    const counts = await this.queue.getJobCounts(
      'waiting',
      'active',
      'delayed',
      'completed',
      'failed',
      'prioritized',
    );
    return {
      waiting: counts['waiting'] ?? 0,
      active: counts['active'] ?? 0,
      delayed: counts['delayed'] ?? 0,
      completed: counts['completed'] ?? 0,
      failed: counts['failed'] ?? 0,
      prioritized: counts['prioritized'] ?? 0,
    };
  }

  /**
   * Every job kept in Redis, in every state, read a page at a time: for an audit that each
   * message reached the bus once. Completed and failed jobs are there while `keepCompleted` and
   * `keepFailed` keep them. A job that moves between states during the read may be seen twice or
   * missed: read a queue at rest.
   */
  async keptJobs(pageSize = 1_000): Promise<KeptJob[]> {
    const kept: KeptJob[] = [];
    for (const state of JOB_STATES) {
      for (let start = 0; ; start += pageSize) {
        const page = await this.queue.getJobs(state, start, start + pageSize - 1, true);
        for (const job of page)
          kept.push({ jobId: job.id ?? '', state, data: job.data as unknown });
        if (page.length < pageSize) break;
      }
    }
    return kept;
  }

  /** Whether Redis answers the producer right now. */
  async ready(): Promise<boolean> {
    try {
      // A connection still being made (a bus just created, Redis just back) is given a moment.
      if (this.producer.status !== 'ready') {
        await deadline(
          new Promise<void>((resolve) =>
            this.producer.once('ready', () => {
              resolve();
            }),
          ),
          1_000,
          'connect',
        );
      }
      await deadline(this.producer.ping(), 1_000, 'ping');
      return true;
    } catch {
      return false;
    }
  }

  /** Graceful: consumers finish their jobs in flight, then the queue and connections close. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.consumers].map((consumer) => consumer.close()));
    try {
      await deadline(this.queue.close(), 5_000, 'queue close');
    } catch (error) {
      this.report(error, { source: 'producer' });
    } finally {
      this.producer.disconnect();
    }
  }

  private createQueue(): Queue {
    const queue = new Queue(this.queueName, {
      connection: this.producer,
      prefix: this.prefix,
      defaultJobOptions: this.jobOptions,
    });
    queue.on('error', (error) => {
      this.report(error, { source: 'producer' });
    });
    return queue;
  }

  /** Resolves when the producer connection is up, rejects when it is not within `ms`. */
  private producerReady(ms: number, what: string): Promise<void> {
    const producer = this.producer;
    if (producer.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        producer.off('ready', onReady);
      };
      const onReady = () => {
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new PublishError(`${what}: Redis is not reachable (${producer.status})`));
      }, ms);
      producer.once('ready', onReady);
    });
  }

  /**
   * The queue once its own start-up (a version check) is done. That start-up fails for good if
   * the connection drops in the middle of it; the queue is then replaced, so publishing
   * recovers when Redis does.
   */
  private async readyQueue(ms: number, what: string): Promise<Queue> {
    const queue = this.queue;
    try {
      await deadline(queue.waitUntilReady(), Math.max(1, ms), what);
      return queue;
    } catch (error) {
      if (!(error instanceof PublishError) && this.queue === queue) {
        this.queue = this.createQueue();
        void queue.close().catch(() => undefined);
      }
      throw error;
    }
  }

  private connect(source: BusErrorContext['source'], options: RedisOptions): Redis {
    const reconnect = backoffs.exponential({
      baseMs: 100,
      capMs: this.options.reconnectMaxDelayMs ?? 2_000,
    });
    const redis = new Redis(this.options.redisUrl, {
      retryStrategy: reconnect,
      ...options,
    });
    redis.on('error', (error) => {
      this.report(error, { source });
    });
    return redis;
  }

  private report(error: unknown, context: BusErrorContext): void {
    this.options.onError?.(error, context);
  }
}

/**
 * The settlement bus on BullMQ: version 1 messages on `wallet-ledger`, from the settlement
 * service's outbox to Croupier's own wallet.
 */
export class BullMqSettlementBus extends BullMqBus<SettlementMessage> {
  constructor(options: BullMqSettlementBusOptions) {
    super(options, { schema: settlementMessageSchema, queueName: WALLET_LEDGER_QUEUE });
  }
}

/**
 * The public bus on BullMQ: version 2 messages on `settlement-events`, from the wallet's outbox
 * to downstream systems (a mirror, CRM, reporting).
 */
export class BullMqWalletMessageBus extends BullMqBus<WalletMessage> {
  constructor(options: BullMqSettlementBusOptions) {
    super(options, { schema: walletMessageSchema, queueName: SETTLEMENT_QUEUE });
  }
}
