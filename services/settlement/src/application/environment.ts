import { z } from 'zod';
import { DEFAULT_CONCURRENT_ROUNDS } from './settlement-reactor.js';

/** Settings of every process that settles rounds (the settlement service, the gateway). */
export const settlementEnvironmentShape = {
  /**
   * Rounds the settlement reactor settles at once, and whose records the outbox forwards at
   * once, out of one page of the log (ADR 0022). Bounded: each is a command in flight, and past
   * what one group commit holds more only queue.
   */
  SETTLEMENT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_CONCURRENT_ROUNDS),
} as const;
