import { presetConfig } from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { System } from '../src/index.js';
import { playShoe, startCasino } from './support/casino.js';

/**
 * The durable read models across a restart, on a real PostgreSQL (ADR 0023): a new process starts
 * from their tables and checkpoints, reads none of the log they already applied, and answers
 * as the process before it did.
 */
describe('a restarted gateway', () => {
  let postgres: IsolatedPostgres;
  const stores: EventStore[] = [];
  const open = async () => {
    const store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    postgres = await isolatedPostgres('restart');
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await postgres.drop();
  });

  /** What the durable models answer, through their own reads. */
  const answers = async (system: System) => ({
    tables: await system.board.list(),
    roads: await system.board.roads('solo'),
    pending: await system.pending.stale(0),
    owing: await system.commissionLedger.playersOwing('solo', 'none'),
    histories: {
      alice: await system.history.history('alice', 100),
      bob: await system.history.history('bob', 100),
    },
    balances: [await system.history.balanceOf('alice'), await system.history.balanceOf('bob')],
    documents: await Promise.all(
      system.readModels.status().map(({ name }) => system.readModels.storage.list(name)),
    ),
  });

  it('starts from the tables, reads nothing it applied, and serves the same answers', async () => {
    const first = await startCasino(await open());
    await playShoe(first.system, 'solo', { config: presetConfig('single-deck') });
    await first.system.sync();
    const before = await answers(first.system);
    expect(before.tables[0]!.roundsCompleted).toBeGreaterThan(0);
    expect(before.histories.alice.length).toBeGreaterThan(0);
    const checkpoints = first.system.readModels.status().map(({ name, position }) => ({
      name,
      position,
    }));
    await first.close();
    const store = await open();
    const log = await store.readAll({ limit: 1_000_000 });
    const appendedSince = log.filter((event) => event.position > checkpoints[0]!.position).length;

    const second = await startCasino(store);
    const registry = new Registry();
    second.system.projectionMetrics.registerOn(registry);
    const read = await registry.getSingleMetric('croupier_projection_events_total')!.get();
    // Only what came after the checkpoints (nothing, or the little appended at stop and start).
    expect(read.values[0]?.value ?? 0).toBe(appendedSince);
    expect(log.length).toBeGreaterThan(20);
    await second.system.sync();
    expect(await answers(second.system)).toEqual(before);
    await second.close();
  });
});
