import { randomUUID } from 'node:crypto';
import type { Card } from '@croupier/baccarat';
import {
  DomainError,
  presetConfig,
  type CommandContext,
  type Role,
  type TableConfig,
} from '@croupier/contracts';
import { MemoryEventStore, type EventStore } from '@croupier/eventstore';
import type { RoundState } from '@croupier/round';
import { pino } from 'pino';
import { loadConfig, System, type GatewayConfig } from '../../src/index.js';

export const TEST_SECRETS = {
  JWT_SECRET: 'audit-test-jwt-secret-0123456789abcdef0123',
  SHOE_SEED_KEY: 'audit-test-seed-key-0123456789abcdef01234',
};

/** A command context for a person with a role. */
export function as(id: string, role: Role): CommandContext {
  return {
    actor: { id, role },
    correlationId: randomUUID(),
    causationId: null,
    now: () => new Date(),
  };
}

export interface Casino {
  readonly system: System;
  readonly store: EventStore;
  readonly config: GatewayConfig;
  close(): Promise<void>;
}

/**
 * A whole Croupier (the gateway's System) on the given store: a test about storage passes a
 * PostgreSQL store of its own (the `*.int` files); any other test passes nothing and gets a fresh
 * in-memory store, which passes the same contract suite and needs no database to boot.
 */
export async function startCasino(
  store?: EventStore,
  env: Record<string, string> = {},
): Promise<Casino> {
  const owned = store === undefined;
  const eventStore = store ?? new MemoryEventStore();
  const config = loadConfig({
    // The store is the one above; the setting only has to name one that needs no URL.
    EVENTSTORE: 'pglite',
    ...TEST_SECRETS,
    AUTO_TABLES: '',
    LOG_LEVEL: 'silent',
    ORPHAN_GRACE_MS: '0',
    ...env,
  });
  const system = await System.create({
    config,
    logger: pino({ level: 'silent' }),
    store: eventStore,
    autoDeal: false,
    sweepIntervalMs: 3_600_000,
  });
  await system.start();
  return {
    system,
    store: eventStore,
    config,
    async close() {
      await system.stop();
      if (owned) await eventStore.close();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `step` while it is refused because the previous round is still being settled. */
async function whenSettled<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const busy = error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS';
      if (!busy || attempt > 500) throw error;
      await sleep(10);
    }
  }
}

export interface PlayedShoe {
  readonly tableId: string;
  readonly shoeId: string;
  readonly roundIds: readonly string[];
  /** The first round of the next shoe, opened (which closed this one). */
  readonly nextRoundId: string;
}

export interface PlayOptions {
  readonly config?: TableConfig;
  /** Round numbers to void (after bets are placed) instead of dealing. */
  readonly voidRounds?: readonly number[];
  /** Round numbers where bob clears his bets and places new ones. */
  readonly clearRounds?: readonly number[];
}

/**
 * Opens a table and plays its first shoe to the end through the services, as the API would:
 * alice and bob bet every round (side bets while they are offered), betting closes, the round
 * is dealt, settlement runs; the round after the shoe's last opens the next shoe, closing this one.
 */
export async function playShoe(
  system: System,
  tableId: string,
  options: PlayOptions = {},
): Promise<PlayedShoe> {
  const operator = as('olga', 'operator');
  const dealer = as('dan', 'dealer');
  const config = options.config ?? presetConfig('live');
  await system.rounds.openTable(
    { tableId, config, dealing: { mode: 'manual', bettingWindowMs: 0 } },
    operator,
  );
  for (const playerId of ['alice', 'bob']) {
    await system.wallets.deposit(
      {
        playerId,
        amount: 50_000_000,
        currency: config.currency,
        reference: `${tableId}-${playerId}`,
      },
      operator,
    );
  }
  const roundIds: string[] = [];
  let shoeId: string | null = null;
  for (;;) {
    const round = await whenSettled(() => system.rounds.openRound(tableId, dealer));
    shoeId ??= round.shoeId;
    if (round.shoeId !== shoeId) {
      await waitForWallets(system, ['alice', 'bob']);
      return { tableId, shoeId, roundIds, nextRoundId: round.roundId };
    }
    roundIds.push(round.roundId);
    const early = round.number <= 50;
    await system.rounds.placeBets(
      round.roundId,
      'alice',
      [
        { type: 'banker', amount: 1_000 + round.number, bankerMode: 'commission' },
        ...(early && config.bets.player_pair ? [{ type: 'player_pair', amount: 100 }] : []),
        ...(config.bets.banker_bonus ? [{ type: 'banker_bonus', amount: 200 }] : []),
      ],
      as('alice', 'player'),
    );
    await system.rounds.placeBets(
      round.roundId,
      'bob',
      [
        { type: 'player', amount: 700 },
        { type: 'tie', amount: 100 },
        ...(config.bankerModes.includes('no_commission')
          ? [{ type: 'banker', amount: 300, bankerMode: 'no_commission' }]
          : []),
        ...(early && config.bets.lucky_six ? [{ type: 'lucky_six', amount: 100 }] : []),
      ],
      as('bob', 'player'),
    );
    if (options.clearRounds?.includes(round.number)) {
      await system.rounds.clearBets(round.roundId, 'bob', as('bob', 'player'));
      await system.rounds.placeBets(
        round.roundId,
        'bob',
        [{ type: 'player', amount: 500 }],
        as('bob', 'player'),
      );
    }
    if (options.voidRounds?.includes(round.number)) {
      await system.rounds.pause(round.roundId, 'table camera offline', as('sue', 'supervisor'));
      await system.rounds.void(round.roundId, 'camera not restored', as('sue', 'supervisor'));
      continue;
    }
    await system.rounds.closeBetting(round.roundId, dealer);
    await system.rounds.deal(round.roundId, dealer);
  }
}

/** Waits until every stake of these players is paid or refunded. */
export async function waitForWallets(system: System, playerIds: readonly string[]): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const wallets = await Promise.all(playerIds.map((id) => system.wallets.getWallet(id)));
    if (wallets.every((wallet) => wallet.openStakes === 0)) return;
    await sleep(10);
  }
  throw new Error('stakes were not settled in time');
}

/**
 * Opens the table's next round, retrying while the previous one is still being settled
 * (ROUND_IN_PROGRESS): every `intervalMs`, at most `attempts` times.
 */
export async function openRoundWhenFree(
  system: System,
  tableId: string,
  { attempts = 400, intervalMs = 25 }: { attempts?: number; intervalMs?: number } = {},
): Promise<RoundState> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await system.rounds.openRound(tableId, as('dan', 'dealer'));
    } catch (error) {
      const busy = error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS';
      if (!busy || attempt > attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/** A player's bets, Banker bets in commission mode. */
export async function placeBetsAs(
  system: System,
  roundId: string,
  playerId: string,
  bets: readonly { type: string; amount: number; seat?: number }[],
): Promise<void> {
  await system.rounds.placeBets(
    roundId,
    playerId,
    bets.map((b) => (b.type === 'banker' ? { ...b, bankerMode: 'commission' } : b)),
    as(playerId, 'player'),
  );
}

/** A scanner round: bets, the dealer's reader posts the cards (P, B, P, B), settled and paid. */
export async function playScannedRound(
  system: System,
  tableId: string,
  playerId: string,
  bets: readonly { type: string; amount: number; seat?: number }[],
  cards: readonly Card[],
): Promise<string> {
  const dealer = as('dan', 'dealer');
  const { roundId } = await openRoundWhenFree(system, tableId);
  await placeBetsAs(system, roundId, playerId, bets);
  await system.rounds.closeBetting(roundId, dealer);
  for (const card of cards) await system.rounds.postScannedCard(roundId, card, dealer);
  await system.rounds.confirmResult(roundId, dealer);
  await waitForWallets(system, [playerId]);
  return roundId;
}
