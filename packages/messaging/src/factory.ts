import type { SettlementBus, WalletMessageBus } from './bus.js';
import {
  BullMqSettlementBus,
  BullMqWalletMessageBus,
  type BullMqSettlementBusOptions,
} from './bullmq-bus.js';
import { InProcessSettlementBus } from './in-process-bus.js';

export interface SettlementBusConfig extends Omit<BullMqSettlementBusOptions, 'redisUrl'> {
  /** Redis for BullMQ; without it the bus is in-process (one process, no Redis). */
  readonly redisUrl?: string | undefined;
}

/** The bus a deployment is configured for: BullMQ when a Redis URL is given, in-process otherwise. */
export function createSettlementBus(config: SettlementBusConfig): SettlementBus {
  const { redisUrl, ...options } = config;
  if (redisUrl === undefined || redisUrl === '') return new InProcessSettlementBus();
  return new BullMqSettlementBus({ ...options, redisUrl });
}

/**
 * The public bus of a deployment with Redis; none without: in one process with no Redis there is
 * nobody downstream to tell, and reconciliation (`GET /v1/settlements`) serves the same messages.
 */
export function createWalletMessageBus(config: SettlementBusConfig): WalletMessageBus | null {
  const { redisUrl, ...options } = config;
  if (redisUrl === undefined || redisUrl === '') return null;
  return new BullMqWalletMessageBus({ ...options, redisUrl });
}
