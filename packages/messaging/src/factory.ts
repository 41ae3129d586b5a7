import type { SettlementBus } from './bus.js';
import { BullMqSettlementBus, type BullMqSettlementBusOptions } from './bullmq-bus.js';
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
