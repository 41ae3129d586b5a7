import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Books } from './books.js';
import type { MessageValidator } from './message.js';

export interface ConsumerOptions {
  readonly redisUrl: string;
  /** Croupier's REDIS_PREFIX (default `croupier`): the queue's keys are `<prefix>:settlement-events:*`. */
  readonly prefix: string;
  readonly books: Books;
  readonly validate: MessageValidator;
  readonly concurrency?: number;
  readonly onApplied?: (messageId: string, applied: boolean) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * Consumes Croupier's public `settlement-events` queue (Croupier's own wallet reads a queue of its
 * own, so this consumer takes nothing from it, however slow or many its workers). A message that fails the schema is failed at
 * once (kept by BullMQ for inspection, never applied); a failure to apply throws, so BullMQ
 * retries it with backoff. Applying is idempotent, so a redelivery changes nothing.
 */
export function startConsumer(options: ConsumerOptions): { close(): Promise<void> } {
  // Workers block on Redis and must survive its restarts: BullMQ requires this setting.
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error) => options.onError?.(error));
  const worker = new Worker(
    'settlement-events',
    async (job: Job) => {
      const checked = options.validate(job.data);
      if (!checked.ok) throw new UnrecoverableError(`not a settlement message: ${checked.problem}`);
      const applied = await options.books.apply(checked.message, 'queue');
      options.onApplied?.(checked.message.messageId, applied);
    },
    { connection, prefix: options.prefix, concurrency: options.concurrency ?? 4 },
  );
  worker.on('error', (error) => options.onError?.(error));
  return {
    async close() {
      await worker.close(); // lets the jobs in flight finish
      connection.disconnect();
    },
  };
}
