import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext, Role } from '@croupier/contracts';
import { presetConfig } from '@croupier/contracts';
import { MemoryEventStore, type EventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
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

interface Listed {
  messages: { id: string; status: string; code: string }[];
}

// A whole system on a shared CI machine: allow for a slow minute.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/**
 * `croupier bus parked` and `croupier bus retry-parked` against a running gateway (ADR 0035): a
 * round's settlement parked (as the reactor parks one it cannot settle) is listed, retried, and
 * resolved by the reactor's retries once it settles.
 */
describe('croupier bus parked / retry-parked against a running Croupier', () => {
  let dataDir: string;
  let store: EventStore;
  let system: System;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let url: string;
  let operator: string;
  let parkedId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'croupier-cli-'));
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      DATA_DIR: dataDir,
      ...SECRETS,
      AUTO_TABLES: '',
      LOG_LEVEL: 'silent',
    });
    store = new MemoryEventStore();
    system = await System.create({ config, logger: silentLogger, store, autoDeal: false });
    await system.start();
    app = await buildApp(system);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    operator = await system.tokens.issue({ id: 'op', role: 'operator' });

    await system.rounds.openTable(
      {
        tableId: 'cli',
        config: presetConfig('generic'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('operator'),
    );
    await system.wallets.deposit(
      { playerId: 'ana', amount: 100_000, currency: 'EUR', reference: 'd-ana' },
      as('operator'),
    );
    const round = await system.rounds.openRound('cli', as('dealer'));
    await system.rounds.placeBets(
      round.roundId,
      'ana',
      [{ type: 'player', amount: 1_000 }],
      as('player', 'ana'),
    );
    await system.rounds.closeBetting(round.roundId, as('dealer'));
    await system.rounds.deal(round.roundId, as('dealer'));
    const completed = (await store.readStream(`round-${round.roundId}`)).find(
      (event) => event.type === 'RoundCompleted',
    )!;
    await system.parking.park({
      consumer: 'settlement',
      messageId: completed.id,
      playerId: null,
      message: { stream: completed.stream, revision: completed.revision.toString() },
      code: 'INTERNAL_ERROR',
      detail: 'the store refused the settlement five times',
      attempts: 5,
    });
    parkedId = `settlement.${completed.id}`;
  });
  afterAll(async () => {
    await app.close();
    await system.stop();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists the open parked messages, readable and as JSON', async () => {
    const text = await croupier('bus', 'parked', '--url', url, '--token', operator);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('1 parked message(s), oldest first:');
    expect(text.stdout).toContain(`${parkedId}  parked`);
    expect(text.stdout).toContain('INTERNAL_ERROR: the store refused the settlement five times');
    const json = await croupier('bus', 'parked', '--url', url, '--token', operator, '--json');
    expect((JSON.parse(json.stdout) as Listed).messages.map((m) => m.id)).toEqual([parkedId]);
  });

  it('retries one: its consumer applies it and it is resolved', async () => {
    const retried = await croupier(
      'bus',
      'retry-parked',
      parkedId,
      '--url',
      url,
      '--token',
      operator,
    );
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`Retry of ${parkedId} recorded`);
    let listed: Listed = { messages: [] };
    for (let attempt = 0; attempt < 2_000; attempt++) {
      const json = await croupier(
        'bus',
        'parked',
        '--status',
        'all',
        '--url',
        url,
        '--token',
        operator,
        '--json',
      );
      listed = JSON.parse(json.stdout) as Listed;
      if (listed.messages[0]?.status === 'resolved') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(listed.messages).toMatchObject([{ id: parkedId, status: 'resolved' }]);
    expect((await croupier('bus', 'parked', '--url', url, '--token', operator)).stdout).toBe(
      'No open parked message.\n',
    );
  });

  it('reports what the gateway refuses, and bad usage', async () => {
    const again = await croupier(
      'bus',
      'retry-parked',
      parkedId,
      '--url',
      url,
      '--token',
      operator,
    );
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/answered 409 NOT_PARKED/);
    const player = await system.tokens.issue({ id: 'ana', role: 'player' });
    const forbidden = await croupier('bus', 'parked', '--url', url, '--token', player);
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toMatch(/answered 403/);
    expect((await croupier('bus', 'retry-parked', '--url', url)).code).toBe(2);
    expect((await croupier('bus', 'parked', '--status', 'some', '--url', url)).code).toBe(2);
  });
});
