import { randomUUID } from 'node:crypto';
import { presetConfig } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type HistoryRecord } from '../src/index.js';
import { as, openRoundWhenFree, startCasino, type Casino } from './support/casino.js';

/**
 * The game history as a durable read model (docs/adr/0023): a client reads its own writes, and a
 * long history is read a page at a time, newest first.
 */
describe('the game history read model', () => {
  let casino: Casino;
  let app: HttpApp;
  let player: string;
  beforeAll(async () => {
    casino = await startCasino();
    app = await buildApp(casino.system);
    player = await casino.system.tokens.issue({ id: 'rita', role: 'player' });
    await casino.system.rounds.openTable(
      {
        tableId: 'ryw',
        config: presetConfig('generic'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('olga', 'operator'),
    );
    await casino.system.wallets.deposit(
      { playerId: 'rita', amount: 50_000, currency: 'EUR', reference: 'first' },
      as('olga', 'operator'),
    );
  });
  afterAll(async () => {
    await app.close();
    await casino.close();
  });

  it('shows a bet in the history the moment it is placed (read-your-writes)', async () => {
    const { roundId } = await openRoundWhenFree(casino.system, 'ryw');
    const betId = randomUUID();
    const placed = await app.inject({
      method: 'POST',
      url: `/v1/rounds/${roundId}/bets`,
      headers: { authorization: `Bearer ${player}` },
      payload: { bets: [{ type: 'banker', amount: 1_500, betId }] },
    });
    expect(placed.statusCode).toBe(201);
    // No wait, no retry: the GET itself waits for the read model to pass the bet.
    const response = await app.inject({
      method: 'GET',
      url: '/v1/players/rita/history',
      headers: { authorization: `Bearer ${player}` },
    });
    expect(response.statusCode).toBe(200);
    const [latest] = response.json<HistoryRecord[]>();
    expect(latest).toMatchObject({
      roundId,
      tableId: 'ryw',
      status: 'in-progress',
      stakes: 1_500,
      balanceBefore: 50_000,
      balanceAfter: 48_500,
      finishedAt: null,
    });
    expect(latest!.bets).toEqual([
      expect.objectContaining({ betId, type: 'banker', amount: 1_500, result: null }),
    ]);
    expect(await casino.system.history.balanceOf('rita')).toBe(48_500);
  });

  it('keeps one document per round played, listed newest first by an indexed query', async () => {
    const { storage } = casino.system.readModels;
    const records = await storage.list('player-history', { partition: 'records/rita' });
    const history = await casino.system.history.history('rita', 100);
    expect(records.map((row) => row.key)).toEqual(
      [...history].reverse().map((record) => `record/rita/${record.roundId}`),
    );
    expect(records.map((row) => row.sort)).toEqual(records.map((_, i) => BigInt(i + 1)));
    // The player's own document holds the balance, not the records: it does not grow with them.
    const own = (await storage.get('player-history', 'player/rita')) as Record<string, unknown>;
    expect(Object.keys(own).sort()).toEqual(['records', 'wallet']);
    expect(own['records']).toBe(records.length);
  });
});
