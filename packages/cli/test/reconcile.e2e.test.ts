import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext, Role, WalletMessage } from '@croupier/contracts';
import { MemoryEventStore, type EventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { presetConfig } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';
import { silentLogger } from './support.js';

const SECRETS = {
  JWT_SECRET: 'cli-test-jwt-secret-0123456789abcdef01234',
  SHOE_SEED_KEY: 'cli-test-seed-key-0123456789abcdef0123456',
};

function as(role: Role, id: string = role): CommandContext {
  return {
    actor: { id, role },
    correlationId: `${role}-${Math.random()}`,
    causationId: null,
    now: () => new Date(),
  };
}

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

interface Page {
  from: string;
  next: string;
  more: boolean;
  messages: WalletMessage[];
}

// Whole systems on a shared CI machine: allow for a slow minute.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe('croupier reconcile against a running Croupier', () => {
  let dataDir: string;
  let store: EventStore;
  let system: System;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let url: string;
  let operator: string;
  const betIds: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'croupier-cli-'));
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      DATA_DIR: dataDir,
      ...SECRETS,
      AUTO_TABLES: '',
      LOG_LEVEL: 'silent',
    });
    // reconcile talks to the API, never to a store: the System's store can be the memory one.
    store = new MemoryEventStore();
    system = await System.create({ config, logger: silentLogger, store, autoDeal: false });
    await system.start();
    app = await buildApp(system);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    operator = await system.tokens.issue({ id: 'op', role: 'operator' });

    // Two rounds: two players with a bet each, then one player with two bets.
    await system.rounds.openTable(
      {
        tableId: 'cli',
        config: presetConfig('generic'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('operator'),
    );
    for (const player of ['ana', 'ben'])
      await system.wallets.deposit(
        { playerId: player, amount: 100_000, currency: 'EUR', reference: `d-${player}` },
        as('operator'),
      );
    const plays: Record<string, { type: string; amount: number; bankerMode?: string }[]>[] = [
      { ana: [{ type: 'player', amount: 1_000 }], ben: [{ type: 'tie', amount: 500 }] },
      {
        ana: [
          { type: 'banker', amount: 2_000, bankerMode: 'commission' },
          { type: 'player', amount: 100 },
        ],
      },
    ];
    for (const bets of plays) {
      const round = await system.rounds.openRound('cli', as('dealer'));
      for (const [player, playerBets] of Object.entries(bets)) {
        const placed = await system.rounds.placeBets(
          round.roundId,
          player,
          playerBets,
          as('player', player),
        );
        for (const bet of placed.bets.values())
          if (!betIds.includes(bet.betId)) betIds.push(bet.betId);
      }
      await system.rounds.closeBetting(round.roundId, as('dealer'));
      await system.rounds.deal(round.roundId, as('dealer'));
    }
  });
  afterAll(async () => {
    await app.close();
    await system.stop();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists every settlement message from a position, with the cursor to go on from', async () => {
    let page: Page | undefined;
    await eventually(async () => {
      const { code, stdout, stderr } = await croupier(
        'reconcile',
        '--from',
        '0',
        '--url',
        url,
        '--token',
        operator,
        '--json',
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      page = JSON.parse(stdout) as Page;
      // 2 deposits; 4 bets, each a debit and a payout.
      expect(page.messages).toHaveLength(10);
    });
    const debits = page!.messages.filter((m) => m.kind === 'debit');
    expect(debits.map((m) => m.betId).sort()).toEqual([...betIds].sort());
    expect(page!.messages.filter((m) => m.kind === 'payout')).toHaveLength(4);
    expect(page!.more).toBe(false);
    const positions = page!.messages.map((m) => BigInt(m.position));
    expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(page!.next).toBe(page!.messages.at(-1)!.position);

    // From the cursor on: nothing new yet.
    const after = await croupier(
      'reconcile',
      '--from',
      page!.next,
      '--url',
      url,
      '--token',
      operator,
      '--json',
    );
    expect(after.stderr).toBe('');
    expect((JSON.parse(after.stdout) as Page).messages).toEqual([]);
    expect((JSON.parse(after.stdout) as Page).next).toBe(page!.next);
  });

  it('pages by the limit, and --all follows the pages', async () => {
    const first = JSON.parse(
      (
        await croupier(
          'reconcile',
          '--from',
          '0',
          '--limit',
          '1',
          '--url',
          url,
          '--token',
          operator,
          '--json',
        )
      ).stdout,
    ) as Page;
    expect(first.messages).toHaveLength(1);
    expect(first.messages[0]).toMatchObject({ kind: 'deposit', sequence: 1 });
    expect(first.more).toBe(true);
    const all = JSON.parse(
      (
        await croupier(
          'reconcile',
          '--from',
          '0',
          '--limit',
          '1',
          '--all',
          '--url',
          url,
          '--token',
          operator,
          '--json',
        )
      ).stdout,
    ) as Page;
    expect(all.messages).toHaveLength(10);
    expect(all.more).toBe(false);
  });

  it('prints a readable table', async () => {
    const { code, stdout } = await croupier(
      'reconcile',
      '--from',
      '0',
      '--url',
      url,
      '--token',
      operator,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^position\s+kind\s+player\s+seq\s+round/);
    for (const betId of betIds) expect(stdout).toContain(betId);
    expect(stdout).toMatch(/10 message\(s\) after position 0; next: \d+ \(the end, for now\)/);
  });

  it('refuses bad options, and reports the API refusing the caller', async () => {
    const bad = await croupier('reconcile', '--from', '12x', '--url', url, '--token', operator);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from must be a decimal position/);
    const player = await system.tokens.issue({ id: 'ana', role: 'player' });
    const refused = await croupier('reconcile', '--from', '0', '--url', url, '--token', player);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/403 FORBIDDEN/);
    const nobody = await croupier(
      'reconcile',
      '--from',
      '0',
      '--url',
      'http://127.0.0.1:1',
      '--token',
      operator,
    );
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/cannot reach/);
  });
});

/** `vi.waitFor` with room for a loaded CI machine: 20 s unless a test says otherwise. */
function eventually<T>(
  check: () => T | Promise<T>,
  options: { timeout?: number; interval?: number } = {},
): Promise<T> {
  return vi.waitFor(check, { timeout: 20_000, interval: 50, ...options });
}
