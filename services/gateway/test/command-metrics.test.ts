import { buildApp } from '../src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '@croupier/http';
import { as, startCasino, type Casino } from './support/casino.js';

describe('the command handler bounded and measured (STATE_CACHE_SIZE, SNAPSHOT_EVERY)', () => {
  let casino: Casino;
  let app: HttpApp;
  beforeAll(async () => {
    casino = await startCasino(undefined, { STATE_CACHE_SIZE: '2', SNAPSHOT_EVERY: '5' });
    app = await buildApp(casino.system);
  });
  afterAll(async () => {
    await app.close();
    await casino.close();
  });

  it('holds at most STATE_CACHE_SIZE streams, snapshots wallets every SNAPSHOT_EVERY events and serves both as metrics', async () => {
    const { system } = casino;
    const operator = as('olga', 'operator');
    for (const player of ['p-1', 'p-2', 'p-3'])
      for (let i = 0; i < 6; i++)
        await system.wallets.deposit(
          { playerId: player, amount: 10, currency: 'EUR', reference: `${player}-${i}` },
          operator,
        );
    await system.commands.flushSnapshots();
    const token = await system.tokens.issue({ id: 'olga', role: 'operator' });
    const response = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    const metrics = response.body;
    expect(metrics).toMatch(/^croupier_state_cache_size 2$/m);
    expect(metrics).toMatch(/^croupier_state_cache_capacity 2$/m);
    expect(metrics).toMatch(/^croupier_state_cache_evictions_total 1$/m);
    expect(metrics).toMatch(/^croupier_snapshots_written_total 3$/m);
    expect(metrics).toMatch(/^croupier_snapshots_refused_total\{reason="digest"\} 0$/m);
  });
});
