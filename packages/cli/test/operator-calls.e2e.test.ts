import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';
import { silentLogger } from './support.js';

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
  after: string;
  next: string;
  more: boolean;
  calls: { key: string; call: string; state: string; playerId: string; amount: number }[];
}

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/**
 * `croupier operator-calls` reads the reconciliation API of seamless mode. The command only
 * reads and prints, so the log is given its calls directly: a player's debits, confirmed and
 * refused, and a credit, as the seamless wallet records them.
 */
describe('croupier operator-calls against a running Croupier', () => {
  let dataDir: string;
  let store: MemoryEventStore;
  let system: System;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let url: string;
  let operator: string;
  const keys = { won: randomUUID(), credit: randomUUID(), poor: randomUUID() };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'croupier-cli-'));
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      DATA_DIR: dataDir,
      JWT_SECRET: 'cli-test-jwt-secret-0123456789abcdef01234',
      SHOE_SEED_KEY: 'cli-test-seed-key-0123456789abcdef0123456',
      AUTO_TABLES: '',
      LOG_LEVEL: 'silent',
    });
    store = new MemoryEventStore();
    system = await System.create({ config, logger: silentLogger, store, autoDeal: false });
    await system.start();
    app = await buildApp(system);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    operator = await system.tokens.issue({ id: 'op', role: 'operator' });
    const roundId = 'cli.1.1';
    const [won, poor] = [randomUUID(), randomUUID()];
    const event = (type: string, data: object) => ({
      id: randomUUID(),
      type,
      data: { playerId: 'ana', roundId, ...data },
    });
    await store.append(
      'operator-wallet-ana',
      [
        event('OperatorDebitRequested', {
          betId: won,
          amount: 1_000,
          currency: 'EUR',
          key: keys.won,
          attempt: 1,
        }),
        event('OperatorDebitConfirmed', {
          betId: won,
          amount: 1_000,
          key: keys.won,
          transactionId: 'tx-1',
          via: 'answer',
        }),
        event('OperatorDebitRequested', {
          betId: poor,
          amount: 9_000,
          currency: 'EUR',
          key: keys.poor,
          attempt: 1,
        }),
        event('OperatorDebitFailed', {
          betId: poor,
          amount: 9_000,
          key: keys.poor,
          outcome: 'refused',
          code: 'INSUFFICIENT_FUNDS',
        }),
        event('OperatorCreditRequested', {
          betId: won,
          amount: 2_000,
          currency: 'EUR',
          key: keys.credit,
          kind: 'settlement',
          settlementId: randomUUID(),
          stake: 1_000,
        }),
      ],
      { expectedVersion: 'no-stream' },
    );
  });
  afterAll(async () => {
    await app.close();
    await system.stop();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("lists a player's calls with their state, page after page with --all", async () => {
    const { code, stdout, stderr } = await croupier(
      'operator-calls',
      '--player',
      'ana',
      '--limit',
      '1',
      '--all',
      '--url',
      url,
      '--token',
      operator,
      '--json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const page = JSON.parse(stdout) as Page;
    expect(page.more).toBe(false);
    expect(
      Object.fromEntries(page.calls.map((c) => [c.key, `${c.call}:${c.state}:${c.amount}`])),
    ).toEqual({
      [keys.won]: 'debit:confirmed:1000',
      [keys.poor]: 'debit:refused:9000',
      [keys.credit]: 'credit:sent:2000',
    });

    // As a table, and the cursor to go on from.
    const first = await croupier(
      'operator-calls',
      '--limit',
      '1',
      '--url',
      url,
      '--token',
      operator,
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^requested\s+call\s+state/);
    expect(first.stdout).toContain('1 call(s) after 0; next: ');
    expect(first.stdout).toContain('(more follow: --after ');
    const none = await croupier(
      'operator-calls',
      '--player',
      'nobody',
      '--url',
      url,
      '--token',
      operator,
    );
    expect(none.stdout).toBe('0 call(s) after 0; next: 0 (the end, for now)\n');
  });

  it('refuses a bad option by name, and says what the API refused', async () => {
    const time = await croupier('operator-calls', '--from', 'yesterday', '--url', url);
    expect(time.code).toBe(2);
    expect(time.stderr).toMatch(/--from must be an ISO 8601 time/);
    const cursor = await croupier('operator-calls', '--after', '12', '--url', url);
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toMatch(/--after must be 0 or a page's next/);
    const player = await system.tokens.issue({ id: 'ana', role: 'player' });
    const refused = await croupier('operator-calls', '--url', url, '--token', player);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/403 FORBIDDEN/);
  });
});
