import { randomUUID } from 'node:crypto';
import {
  DomainError,
  PRESETS,
  presetConfig,
  streams,
  walletEventSchema,
  type CommandContext,
  type Role,
  type SettlementMessage,
} from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import type { SettlementBus, SettlementConsumer, SettlementHandler } from '@croupier/messaging';
import { OUTBOX_EVENTS, settlementMessagesOf } from '@croupier/settlement';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { pino } from 'pino';
import { vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { System } from '../../src/system.js';

export const TEST_SECRETS = {
  JWT_SECRET: 'bus-test-jwt-secret-0123456789abcdef0123456789',
  SHOE_SEED_KEY: 'bus-test-seed-key-0123456789abcdef0123456789',
};

export function context(role: Role, id = `${role}-1`): CommandContext {
  return {
    actor: { id, role },
    correlationId: randomUUID(),
    causationId: null,
    now: () => new Date(),
  };
}

/**
 * A bus that records what passes through the real one it wraps: every message published, and
 * every delivery to a consumer. Not a mock: publishing and delivery are the wrapped bus's.
 */
export class RecordingBus implements SettlementBus {
  readonly published: SettlementMessage[] = [];
  readonly deliveries = new Map<string, number>();

  constructor(readonly inner: SettlementBus) {}

  get kind() {
    return this.inner.kind;
  }

  async publish(messages: readonly SettlementMessage[]): Promise<void> {
    await this.inner.publish(messages);
    this.published.push(...messages);
  }

  consume(
    handler: SettlementHandler,
    options?: { concurrency?: number },
  ): Promise<SettlementConsumer> {
    return this.inner.consume(async (message) => {
      await handler(message);
      this.deliveries.set(message.messageId, (this.deliveries.get(message.messageId) ?? 0) + 1);
    }, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A System on PostgreSQL (a schema of its own) with the given bus; auto-dealing off. */
export async function startSystem(
  bus: SettlementBus,
  env: Record<string, string> = {},
): Promise<{ system: System; store: EventStore; close(): Promise<void> }> {
  const postgres: IsolatedPostgres = await isolatedPostgres('bus');
  const store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  const config = loadConfig({
    EVENTSTORE: 'postgres',
    DATABASE_URL: postgres.connectionString,
    DATABASE_SCHEMA: postgres.schema,
    ...TEST_SECRETS,
    LOG_LEVEL: 'silent',
    AUTO_TABLES: '',
    WALLET_CONSUMER_CONCURRENCY: '4',
    ...env,
  });
  const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
  const system = await System.create({
    config,
    logger,
    store,
    bus,
    autoDeal: false,
    sweepIntervalMs: 3_600_000,
  });
  await system.start();
  return {
    system,
    store,
    async close() {
      await system.stop();
      await store.close();
      await postgres.drop();
    },
  };
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing run can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIDE_BETS = Object.entries(PRESETS.live.bets).filter(
  ([type]) => !['player', 'banker', 'tie'].includes(type),
);

export interface ShoeOptions {
  readonly tableId: string;
  readonly players: readonly string[];
  readonly seed: number;
  /** Called after each round is dealt (or voided), with its number in the shoe. */
  readonly afterRound?: (roundNumber: number) => Promise<void>;
}

/**
 * Plays one live shoe to the cut card through the services: each round every player bets (a
 * main bet and sometimes side bets); now and then a player clears and bets again, and one round
 * is voided, so refunds travel the bus too. Returns the round ids.
 */
export async function playShoe(system: System, options: ShoeOptions): Promise<string[]> {
  const { tableId, players } = options;
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const dealer = context('dealer');
  await system.rounds.openTable(
    { tableId, config: presetConfig('live'), dealing: { mode: 'manual', bettingWindowMs: 0 } },
    context('operator'),
  );
  const roundIds: string[] = [];
  let shoeId: string | null = null;
  for (;;) {
    const round = await openRound(system, tableId);
    if (shoeId !== null && round.shoeId !== shoeId) {
      // The previous round was the shoe's last: this one opened the next shoe. Leave it empty.
      await system.rounds.closeBetting(round.roundId, dealer);
      await system.rounds.void(round.roundId, 'end of test', context('supervisor'));
      roundIds.push(round.roundId);
      return roundIds;
    }
    shoeId = round.shoeId;
    roundIds.push(round.roundId);
    for (const player of players) {
      const main = pick(['player', 'banker', 'banker', 'tie'] as const);
      const bets: { type: string; amount: number; bankerMode?: string }[] = [
        {
          type: main,
          amount: 100 * (1 + Math.floor(random() * 20)),
          ...(main === 'banker' ? { bankerMode: pick(['commission', 'no_commission']) } : {}),
        },
      ];
      for (const [type, limit] of SIDE_BETS) {
        const offered = limit.maxRound === null || round.number <= limit.maxRound;
        if (offered && random() < 0.1)
          bets.push({ type, amount: 100 * (1 + Math.floor(random() * 5)) });
      }
      await system.rounds.placeBets(round.roundId, player, bets, context('player', player));
      if (random() < 0.05) {
        // Changed their mind: cleared bets are refunded, and the player bets again.
        await system.rounds.clearBets(round.roundId, player, context('player', player));
        await system.rounds.placeBets(
          round.roundId,
          player,
          [{ type: 'player', amount: 500 }],
          context('player', player),
        );
      }
    }
    await system.rounds.closeBetting(round.roundId, dealer);
    if (round.number === 3) {
      await system.rounds.void(round.roundId, 'dealer misdeal', context('supervisor'));
    } else {
      await system.rounds.deal(round.roundId, dealer);
    }
    await options.afterRound?.(round.number);
  }
}

/** Opens the table's next round; the shoe's last round must be settled first, so wait for it. */
async function openRound(system: System, tableId: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await system.rounds.openRound(tableId, context('dealer'));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS') || attempt > 400)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Every settlement message the store's settlement records make (what the outbox must send). */
export async function expectedMessages(store: EventStore): Promise<SettlementMessage[]> {
  const events = await store.readAll({
    filter: { streamPrefix: streams.round(''), eventTypes: OUTBOX_EVENTS },
  });
  return events.flatMap((event) => settlementMessagesOf(event));
}

/** Per bet id, how many credits (payouts or refunds) a player's wallet stream holds. */
export async function walletCredits(
  store: EventStore,
  playerId: string,
): Promise<{ credits: Map<string, number>; debits: Set<string> }> {
  const credits = new Map<string, number>();
  const debits = new Set<string>();
  for (const recorded of await store.readStream(streams.wallet(playerId))) {
    const event = walletEventSchema.parse({ type: recorded.type, data: recorded.data });
    if (event.type === 'StakeDebited') debits.add(event.data.betId);
    if (event.type === 'PayoutCredited' || event.type === 'StakeRefunded')
      credits.set(event.data.betId, (credits.get(event.data.betId) ?? 0) + 1);
  }
  return { credits, debits };
}

/**
 * What must hold once everything settled: every message the store's records make was delivered
 * to the wallet, the queue holds one job per message, each bet was credited exactly once, and
 * every balance equals deposit - stakes + payouts summed from the messages.
 */
export async function checkSettledThroughBus(
  system: System,
  recording: RecordingBus,
  players: readonly string[],
  deposit: number,
): Promise<{ messages: SettlementMessage[] }> {
  const messages = await expectedMessages(system.store);
  const problems: string[] = [];
  for (const message of messages) {
    if (!recording.deliveries.has(message.messageId))
      problems.push(`message ${message.messageId} (${message.kind}) never delivered`);
  }
  const expectedIds = new Set(messages.map((m) => m.messageId));
  for (const id of recording.deliveries.keys())
    if (!expectedIds.has(id)) problems.push(`delivered unknown message ${id}`);
  for (const player of players) {
    const mine = messages.filter((m) => m.playerId === player);
    const expected = mine.reduce((sum, m) => sum - m.stake + m.payout, deposit);
    const wallet = await system.wallets.getWallet(player);
    if (wallet.balance !== expected)
      problems.push(`${player}: balance ${wallet.balance}, settlement lines say ${expected}`);
    if (wallet.openStakes !== 0) problems.push(`${player}: ${wallet.openStakes} stakes open`);
    const { credits, debits } = await walletCredits(system.store, player);
    for (const betId of debits) {
      const count = credits.get(betId) ?? 0;
      if (count !== 1) problems.push(`${player}: bet ${betId} credited ${count} times`);
    }
    if (mine.length !== debits.size)
      problems.push(`${player}: ${debits.size} debits but ${mine.length} messages`);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return { messages };
}

/** `vi.waitFor` with room for a loaded CI machine: 20 s unless a test says otherwise. */
export function eventually<T>(
  check: () => T | Promise<T>,
  options: { timeout?: number; interval?: number } = {},
): Promise<T> {
  return vi.waitFor(check, { timeout: 20_000, interval: 50, ...options });
}
