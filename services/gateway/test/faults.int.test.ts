import { presetConfig, streams } from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { System } from '../src/index.js';
import { as, placeBetsAs, startCasino, waitForWallets, type Casino } from './support/casino.js';

/**
 * The fault watchdog where it matters, on a real PostgreSQL: two processes watching one round
 * pause and void it once, and a deadline that passed while no process ran is kept by the next,
 * because it is derived from the events' recorded times.
 */
const dealer = as('dan', 'dealer');

describe('the fault watchdog across processes', () => {
  let postgres: IsolatedPostgres;
  const stores: EventStore[] = [];
  const casinos: Casino[] = [];
  const open = async () => {
    const store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    stores.push(store);
    return store;
  };
  const start = async (env: Record<string, string>) => {
    const casino = await startCasino(await open(), env);
    casinos.push(casino);
    return casino;
  };
  beforeAll(async () => {
    postgres = await isolatedPostgres('faults');
  });
  afterAll(async () => {
    for (const casino of casinos.splice(0)) await casino.close().catch(() => undefined);
    await Promise.all(stores.map((store) => store.close()));
    await postgres.drop();
  });

  async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 600; attempt++) {
      if (await probe()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${what} did not happen`);
  }

  const typesOf = async (system: System, roundId: string) =>
    (await system.store.readStream(streams.round(roundId))).map((event) => event.type);

  async function waitingRound(system: System, tableId: string, playerId: string) {
    await system.rounds.openTable(
      {
        tableId,
        config: presetConfig('generic', { cardSource: 'scanner', decks: 1, cutCard: 14 }),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('olga', 'operator'),
    );
    await system.rounds.openRound(tableId, dealer).catch(() => undefined);
    await system.shoes.burnScannedCard({ shoeId: `${tableId}.1`, shownCard: '2D' }, dealer);
    await system.wallets.deposit(
      { playerId, amount: 10_000, currency: 'EUR', reference: `${playerId}-funds` },
      as('olga', 'operator'),
    );
    const { roundId } = await system.rounds.openRound(tableId, dealer);
    await placeBetsAs(system, roundId, playerId, [{ type: 'banker', amount: 1_000 }]);
    await system.rounds.closeBetting(roundId, dealer);
    await system.rounds.postScannedCard(roundId, '4C', dealer);
    return roundId;
  }

  it('pauses and voids a round once when two processes watch it', async () => {
    const env = { DEALING_STALL_MS: '200', VOID_AFTER_PAUSE_MS: '400' };
    const [a, b] = [await start(env), await start(env)];
    const roundId = await waitingRound(a.system, 'twin', 'erin');
    // Both sweep together, again and again, beside their own timers, until the void.
    await until('the void', async () => {
      await Promise.all([a.system.watchFaults(), b.system.watchFaults()]);
      return (await typesOf(a.system, roundId)).includes('RoundVoided');
    });
    await Promise.all([a.system.watchFaults(), b.system.watchFaults()]);
    await waitForWallets(a.system, ['erin']);
    const types = await typesOf(b.system, roundId);
    expect(types.filter((type) => type === 'RoundPaused')).toHaveLength(1);
    expect(types.filter((type) => type === 'RoundVoided')).toHaveLength(1);
    expect(types.filter((type) => type === 'BetsRefunded')).toHaveLength(1);
    expect((await a.system.wallets.getWallet('erin')).balance).toBe(10_000);
    for (const casino of casinos.splice(0)) await casino.close();
  });

  it('keeps a deadline that passed while no process ran', async () => {
    // The first process watches nothing (limits off), then stops with the round waiting.
    const first = await start({ DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '0' });
    const roundId = await waitingRound(first.system, 'restart', 'fay');
    await first.close();
    casinos.splice(casinos.indexOf(first), 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The next one, with a limit the wait already passed, pauses at its first sweep.
    const second = await start({ DEALING_STALL_MS: '200', VOID_AFTER_PAUSE_MS: '0' });
    await second.system.watchFaults();
    expect(await typesOf(second.system, roundId)).toContain('RoundPaused');
    await second.close();
    casinos.splice(casinos.indexOf(second), 1);
    // And the pause's deadline too: a process started after it voids the round.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await start({ DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '200' });
    await third.system.watchFaults();
    expect(await typesOf(third.system, roundId)).toContain('RoundVoided');
    await waitForWallets(third.system, ['fay']);
    expect((await third.system.wallets.getWallet('fay')).balance).toBe(10_000);
  });
});
