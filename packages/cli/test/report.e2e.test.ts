import { presetConfig, type CommandContext, type Role } from '@croupier/contracts';
import { MemoryEventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';
import { silentLogger } from './support.js';

const SECRETS = {
  JWT_SECRET: 'cli-test-jwt-secret-0123456789abcdef01234',
  SHOE_SEED_KEY: 'cli-test-seed-key-0123456789abcdef0123456',
};

const as = (role: Role, id: string = role): CommandContext => ({
  actor: { id, role },
  correlationId: `${role}-${Math.random()}`,
  causationId: null,
  now: () => new Date(),
});

async function croupier(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    interactive: false,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe('croupier report against a running Croupier', () => {
  let system: System;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let url: string;
  let regulator: string;
  const day = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      DATA_DIR: 'memory://',
      ...SECRETS,
      AUTO_TABLES: '',
      LOG_LEVEL: 'silent',
    });
    // report talks to the API only: the System's store can be the memory one.
    system = await System.create({
      config,
      logger: silentLogger,
      store: new MemoryEventStore(),
      autoDeal: false,
    });
    await system.start();
    app = await buildApp(system);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    regulator = await system.tokens.issue({ id: 'reg', role: 'regulator' });
    await system.rounds.openTable(
      {
        tableId: 'cli-floor',
        config: presetConfig('generic'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('operator'),
    );
    await system.wallets.deposit(
      { playerId: 'ana', amount: 100_000, currency: 'EUR', reference: 'd-ana' },
      as('operator'),
    );
    const round = await system.rounds.openRound('cli-floor', as('dealer'));
    await system.rounds.placeBets(
      round.roundId,
      'ana',
      [{ type: 'player', amount: 1_000 }],
      as('player', 'ana'),
    );
    await system.rounds.closeBetting(round.roundId, as('dealer'));
    await system.rounds.deal(round.roundId, as('dealer'));
    await vi.waitFor(
      async () => {
        await system.sync();
        const rows = (await system.floorFigures.tables()).filter((t) => t.round === null);
        if (rows.length === 0) throw new Error('not settled yet');
      },
      { timeout: 20_000, interval: 50 },
    );
  });
  afterAll(async () => {
    await app.close();
    await system.stop();
  });

  it('prints the daily report as a table, as JSON and as the API’s CSV', async () => {
    const base = ['--from', day, '--to', day, '--url', url, '--token', regulator];
    const table = await croupier('report', 'daily', ...base);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/date\s+table\/game\s+cur\s+rounds\s+turnover\s+ggr\s+hold/);
    expect(table.stdout).toMatch(new RegExp(`${day}\\s+table cli-floor\\s+EUR\\s+1\\s+10\\.00\\s`));
    const json = await croupier('report', 'daily', ...base, '--json');
    const rows = (JSON.parse(json.stdout) as { rows: { id: string; turnover: number }[] }).rows;
    expect(rows).toContainEqual(expect.objectContaining({ id: 'cli-floor', turnover: 1_000 }));
    const csv = await croupier('report', 'daily', ...base, '--csv');
    expect(csv.stdout.split('\r\n')[0]).toBe(
      'date,scope,id,currency,rounds,turnover,returned,accrued_commission,ggr,hold_percent,active_players,turnover_text,returned_text,accrued_commission_text,ggr_text',
    );
    expect(csv.stdout).toContain(`${day},table,cli-floor,EUR,1,1000,`);
    // The same amounts as a person reads them, in the row's currency.
    expect(csv.stdout).toMatch(new RegExp(`${day},table,cli-floor,EUR,1,1000,.*,10\\.00 EUR,`));
  });

  it('prints observed RTP per bet type beside the exact one', async () => {
    const rtp = await croupier(
      'report',
      'rtp',
      '--from',
      day,
      '--to',
      day,
      '--url',
      url,
      '--token',
      regulator,
    );
    expect(rtp.code).toBe(0);
    // Player's exact RTP on 8 decks: 98.7648%.
    expect(rtp.stdout).toMatch(/table cli-floor\s+EUR\s+player\s+1\s+\S+%\s+-\s+98\.76\d\d%/);
  });

  it('refuses a report it cannot ask for, and reports what the API refuses', async () => {
    const none = await croupier('report', 'weekly', '--from', day, '--to', day);
    expect(none.code).not.toBe(0);
    const badDate = await croupier('report', 'daily', '--from', '2026-1-1', '--to', day);
    expect(badDate.stderr).toContain('--from');
    const refused = await croupier(
      'report',
      'daily',
      '--from',
      day,
      '--to',
      '2000-01-01',
      '--url',
      url,
      '--token',
      regulator,
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('VALIDATION_ERROR');
  });
});
