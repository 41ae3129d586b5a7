import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RoundAudit, ShoeReplay, WalletAudit } from '@croupier/audit';
import {
  DomainError,
  formatMoney,
  presetConfig,
  type CommandContext,
  type Role,
} from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';
import { silentLogger } from './support.js';

/**
 * `casino audit/replay/export/verify/rebuild` against a real embedded store: a System plays on
 * a file-backed PGlite, stops, and the commands open the same directory through the gateway's
 * configuration (EVENTSTORE, DATA_DIR, JWT_SECRET from the environment).
 */
const SECRETS = {
  JWT_SECRET: 'cli-audit-jwt-secret-0123456789abcdef0123',
  SHOE_SEED_KEY: 'cli-audit-seed-key-0123456789abcdef012345',
};

function as(id: string, role: Role): CommandContext {
  return {
    actor: { id, role },
    correlationId: randomUUID(),
    causationId: null,
    now: () => new Date(),
  };
}

async function casino(argv: string[], interactive = false) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    interactive,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

let dataDir: string;
let storeDir: string;
let env: Record<string, string>;
const balances: Record<string, number> = {};

async function startSystem(store: EventStore): Promise<System> {
  const system = await System.create({
    config: loadConfig(env),
    logger: silentLogger,
    store,
    autoDeal: false,
    sweepIntervalMs: 3_600_000,
  });
  await system.start();
  return system;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Plays `rounds` rounds at a single-deck table: each round is a shoe, closed by the next. */
async function play(system: System, rounds: number): Promise<void> {
  await system.rounds.openTable(
    {
      tableId: 'solo',
      config: presetConfig('single-deck'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  await system.wallets.deposit(
    { playerId: 'alice', amount: 1_000_000, currency: 'EUR', reference: 'cli-1' },
    as('olga', 'operator'),
  );
  for (let number = 1; number <= rounds + 1; number++) {
    let round;
    for (let attempt = 0; ; attempt++) {
      try {
        round = await system.rounds.openRound('solo', as('dan', 'dealer'));
        break;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS') || attempt > 500)
          throw error;
        await sleep(10);
      }
    }
    if (number > rounds) break;
    await system.rounds.placeBets(
      round.roundId,
      'alice',
      [
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
        { type: 'tie', amount: 100 },
      ],
      as('alice', 'player'),
    );
    await system.rounds.closeBetting(round.roundId, as('dan', 'dealer'));
    await system.rounds.deal(round.roundId, as('dan', 'dealer'));
  }
  for (let attempt = 0; (await system.wallets.getWallet('alice')).openStakes > 0; attempt++) {
    if (attempt > 500) throw new Error('stakes were not settled in time');
    await sleep(10);
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'casino-audit-'));
  storeDir = join(dataDir, 'eventstore');
  env = {
    EVENTSTORE: 'pglite',
    DATA_DIR: dataDir,
    ...SECRETS,
    AUTO_TABLES: '',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '9',
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const store = await createEventStore({ kind: 'pglite', dataDir: storeDir });
  const system = await startSystem(store);
  await play(system, 2);
  balances['alice'] = (await system.wallets.getWallet('alice')).balance;
  await system.notary.checkpoint();
  await system.stop();
  await store.close();
}, 120_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dataDir, { recursive: true, force: true });
});

describe('casino audit round', () => {
  it('prints the audit and exits 0 when the round verifies', async () => {
    const { code, stdout } = await casino(['audit', 'round', 'solo.1.1']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Round solo\.1\.1 \(table solo, shoe solo\.1, rng\)/);
    expect(stdout).toMatch(/Player \d: [A2-9TJQK][CDHS]@\d+ [A2-9TJQK][CDHS]@\d+/);
    expect(stdout).toMatch(
      /alice \(player\)\s+round-solo\.1\.1@\d+ BetPlaced\s+alice bet 10\.00 EUR on banker/,
    );
    // Verified, but never "every check passed" while a checkpoint could still tell more.
    expect(stdout).toContain(
      'VERIFIED, except what only published values can show: anchored (no published checkpoint was given (--checkpoint FILE)',
    );
    expect(stdout).not.toContain('every check passed');
  });

  it('prints the report as JSON with --json', async () => {
    const { code, stdout } = await casino(['audit', 'round', 'solo.2.1', '--json']);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as RoundAudit;
    expect(audit.roundId).toBe('solo.2.1');
    expect(audit.verdict.ok).toBe(true);
    expect(audit.bets.map((b) => b.type).sort()).toEqual(['banker', 'tie']);
  });

  it('names a round that does not exist and a bad id', async () => {
    const missing = await casino(['audit', 'round', 'solo.9.1']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no round "solo.9.1"');
    const bad = await casino(['audit', 'round', 'solo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"solo" is not a round id/);
  });
});

describe('casino audit wallet', () => {
  it("prints every movement of a player's wallet with what justifies it, and exits 0", async () => {
    const { code, stdout } = await casino(['audit', 'wallet', 'alice']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Wallet alice \(wallet-alice\): \d+ movement\(s\) over 2 round\(s\)/);
    // Money as a person reads it, in the wallet's currency (the JSON keeps the integers).
    expect(stdout).toMatch(/; balance [\d,]+\.\d\d EUR, commission owed 0\.00 EUR$/m);
    expect(stdout).toMatch(
      /FundsDeposited\s+\+10,000\.00 EUR\s+-\s+-\s+operator olga, reference cli-1/,
    );
    expect(stdout).toMatch(/PayoutCredited .* round-solo\.1\.1@\d+ RoundSettled\s+justified/);
    expect(stdout).toMatch(/^VERIFIED, except what only published values can show: anchored/m);
  });

  it('answers JSON whose movements add up to the balance, and names a wallet that does not exist', async () => {
    const { code, stdout } = await casino(['audit', 'wallet', 'alice', '--json']);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as WalletAudit;
    expect(audit.balance).toBe(balances['alice']);
    expect(audit.movements.reduce((sum, m) => sum + m.effect, 0)).toBe(balances['alice']);
    expect(audit.currency).toBe('EUR');
    expect(audit.balanceText).toBe(formatMoney(balances['alice']!, 'EUR'));
    expect(audit.movements[0]).toMatchObject({ effect: 1_000_000, effectText: '+10,000.00 EUR' });
    const missing = await casino(['audit', 'wallet', 'nobody']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no wallet "nobody"');
    const bad = await casino(['audit', 'wallet', 'no body']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"no body" is not a player id/);
  });
});

describe('casino replay shoe', () => {
  it('replays a closed shoe, drawing progress on a terminal', async () => {
    const { code, stdout, stderr } = await casino(['replay', 'shoe', 'solo.1'], true);
    expect(code).toBe(0);
    expect(stderr).toMatch(/\[#+\] 100% .* streams replayed/);
    expect(stdout).toMatch(/^Shoe solo\.1 \(closed\): 1 deck\(s\), rng, every-round/);
    expect(stdout).toMatch(
      /^VERIFIED, except what only published values can show: published \(.*\); anchored/m,
    );
  });

  it('prints a JSON report for machines, without progress off a terminal', async () => {
    const { code, stdout, stderr } = await casino(['replay', 'shoe', 'solo.2', '--json']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const replay = JSON.parse(stdout) as ShoeReplay;
    expect(replay.verdict.checks.find((c) => c.check === 'commitment')?.status).toBe('pass');
  });
});

describe('casino export and verify', () => {
  it('exports a shoe that verifies offline; an edited file fails, naming the event', async () => {
    const file = join(dataDir, 'solo-1.json');
    const exported = await casino(['export', 'shoe', 'solo.1', '--out', file]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`verify it with: casino verify ${file}`);
    const verified = await casino(['verify', file]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^VERIFIED, except what only published values can show/m);

    const content = JSON.parse(await readFile(file, 'utf8')) as {
      rounds: {
        roundId: string;
        events: {
          type: string;
          revision: string;
          data: { payout?: number; lines?: { payout: number }[] };
        }[];
      }[];
    };
    const settled = content.rounds[0]!.events.find((e) => e.type === 'RoundSettled')!;
    settled.data.lines![0]!.payout += 1_000;
    const tampered = join(dataDir, 'tampered.json');
    await writeFile(tampered, JSON.stringify(content));
    const failed = await casino(['verify', tampered, '--json']);
    expect(failed.code).toBe(1);
    const replay = JSON.parse(failed.stdout) as ShoeReplay;
    expect(replay.verdict.findings.map((f) => `${f.code} ${f.stream}@${f.revision}`)).toEqual(
      expect.arrayContaining([
        `EVENT_EDITED round-solo.1.1@${settled.revision}`,
        `PAYOUT_MISMATCH round-solo.1.1@${settled.revision}`,
      ]),
    );
    // Read by a person, the report leads with the edited event.
    const text = await casino(['verify', tampered]);
    expect(text.stdout).toContain(
      `Likely tampered: [hash-chain] EVENT_EDITED round-solo.1.1@${settled.revision} (RoundSettled)`,
    );
  });

  it('compares a file and the store with the commitment and digest the operator published', async () => {
    const file = join(dataDir, 'solo-2.json');
    expect((await casino(['export', 'shoe', 'solo.2', '--out', file])).code).toBe(0);
    const content = JSON.parse(await readFile(file, 'utf8')) as {
      shoe: { type: string; data: { commitment?: string; digest?: { value: string } } }[];
      nextShoe: { type: string } | null;
    };
    expect(content.nextShoe?.type).toBe('ShoeShuffled');
    const commitment = content.shoe[0]!.data.commitment!;
    const digest = content.shoe.find((e) => e.type === 'ShoeClosed')!.data.digest!.value;
    const published = ['--commitment', commitment, '--digest', digest];

    const verified = await casino(['verify', file, ...published, '--json']);
    expect(verified.code).toBe(0);
    const checks = (JSON.parse(verified.stdout) as ShoeReplay).verdict.checks;
    expect(checks.find((c) => c.check === 'published')?.status).toBe('pass');
    expect((await casino(['replay', 'shoe', 'solo.2', ...published])).code).toBe(0);

    // Cut before its close: the next shoe's ShoeShuffled in the file says it was closed.
    content.shoe = content.shoe.filter((e) => e.type !== 'ShoeClosed');
    const cut = join(dataDir, 'cut.json');
    await writeFile(cut, JSON.stringify(content));
    expect((await casino(['verify', cut])).code).toBe(1);
    // Without it too, the file is a valid prefix: only the published digest tells.
    content.nextShoe = null;
    await writeFile(cut, JSON.stringify(content));
    expect((await casino(['verify', cut])).code).toBe(0);
    const named = await casino(['verify', cut, ...published, '--json']);
    expect(named.code).toBe(1);
    expect(
      (JSON.parse(named.stdout) as ShoeReplay).verdict.findings.map(
        (f) => `${f.check}/${f.code} ${f.stream}`,
      ),
    ).toEqual(['published/EVENT_MISSING shoe-solo.2']);
    // Another shoe's digest does not match this one's.
    const other = await casino(['replay', 'shoe', 'solo.1', '--digest', digest]);
    expect(other.code).toBe(1);
    expect(other.stdout).toContain('DIGEST_MISMATCH');

    expect((await casino(['verify', file, '--digest', 'abc'])).code).toBe(2);
  });

  it('refuses a file that is not an export', async () => {
    const file = join(dataDir, 'not-an-export.json');
    await writeFile(file, '{"hello": "world"}');
    const { code, stderr } = await casino(['verify', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a Croupier shoe export/);
    expect((await casino(['verify', join(dataDir, 'missing.json')])).code).toBe(2);
  });
});

describe('casino checkpoint and verify --checkpoint', () => {
  it('writes the signed checkpoint to publish, and checks the store and an audit against it', async () => {
    const file = join(dataDir, 'checkpoint-1.json');
    const printed = await casino(['checkpoint', 'latest', '--out', file]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^Checkpoint 1 at .*: covers the log up to position \d+/);
    const published = JSON.parse(await readFile(file, 'utf8')) as { signer: { keyId: string } };
    const keyId = published.signer.keyId;
    expect(printed.stdout).toContain(`signed by  key ${keyId}`);

    const verified = await casino(['verify', '--checkpoint', file, '--key-id', keyId]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/stream head\(s\) checked/);
    expect(verified.stdout).toContain('VERIFIED: every check passed');
    const audited = await casino(['audit', 'round', 'solo.1.1', '--checkpoint', file]);
    expect(audited.code).toBe(0);
    expect(audited.stdout).not.toContain('except');
    expect(audited.stdout).toMatch(/✓ anchored/);

    const otherKey = await casino(['verify', '--checkpoint', file, '--key-id', '0123456789abcdef']);
    expect(otherKey.code).toBe(1);
    expect(otherKey.stdout).toContain(
      `signed by key ${keyId}, not the operator's key 0123456789abcdef`,
    );
  });

  it('names a checkpoint file that is not one, a bad key id and a checkpoint not recorded', async () => {
    const file = join(dataDir, 'not-a-checkpoint.json');
    await writeFile(file, JSON.stringify({ format: 'croupier-checkpoint/1', sequence: 1 }));
    const bad = await casino(['verify', '--checkpoint', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a published checkpoint: position/);
    const key = await casino(['verify', '--checkpoint', file, '--key-id', 'XYZ']);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('--key-id must be 16 lowercase hex digits');
    const missing = await casino(['checkpoint', '7']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no checkpoint 7');
  });
});

describe('casino rebuild', () => {
  it('rebuilds the read models from the log and prints what they hold', async () => {
    const { code, stdout } = await casino(['rebuild', '--json']);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout) as {
      events: number;
      projections: {
        'table-board': { tableId: string; roundsCompleted: number }[];
        'wallet-balances': { wallets: { playerId: string; balance: number }[] };
        'player-history': { players: number; records: number };
      };
      failures: unknown[];
    };
    expect(summary.failures).toEqual([]);
    expect(summary.events).toBeGreaterThan(20);
    expect(summary.projections['table-board']).toMatchObject([
      { tableId: 'solo', roundsCompleted: 2 },
    ]);
    expect(summary.projections['wallet-balances'].wallets).toEqual([
      expect.objectContaining({ playerId: 'alice', balance: balances['alice'] }),
    ]);
    expect(summary.projections['player-history']).toEqual({ players: 1, records: 2 });
  });

  it('rebuilds only the projections asked for, and names an unknown one', async () => {
    const { code, stdout } = await casino(['rebuild', '--projection', 'wallet-balances']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/wallet-balances: 1 wallet\(s\), [\d,]+\.\d\d EUR in all/);
    expect(stdout).toMatch(
      /alice: balance [\d,]+\.\d\d EUR, open stakes 0, commission owed 0\.00 EUR/,
    );
    expect(stdout).not.toMatch(/table-board/);
    const bad = await casino(['rebuild', '--projection', 'everything']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--projection must be one of table-board, player-history, wallet-balances/,
    );
  });
});

describe('while a gateway holds the embedded store', () => {
  it('refuses to open it, says so, and works through the API with --url', async () => {
    const store = await createEventStore({ kind: 'pglite', dataDir: storeDir });
    const system = await startSystem(store);
    const app = await buildApp(system);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    vi.stubEnv('PORT', String(port));
    const url = `http://127.0.0.1:${port}`;
    try {
      const direct = await casino(['audit', 'round', 'solo.1.1']);
      expect(direct.code).toBe(3);
      expect(direct.stderr).toContain(`The embedded event store ${storeDir} is in use`);
      expect(direct.stderr).toContain(`a gateway answers on ${url}`);
      expect(direct.stderr).toContain(`--url ${url}`);

      const audited = await casino(['audit', 'round', 'solo.1.1', '--json', '--url', url]);
      expect(audited.code).toBe(0);
      expect((JSON.parse(audited.stdout) as RoundAudit).verdict.ok).toBe(true);
      const wallet = await casino(['audit', 'wallet', 'alice', '--json', '--url', url]);
      expect(wallet.code).toBe(0);
      expect((JSON.parse(wallet.stdout) as WalletAudit).balance).toBe(balances['alice']);
      const replayed = await casino(['replay', 'shoe', 'solo.2', '--url', url]);
      expect(replayed.code).toBe(0);
      // Published values are compared over the API too: a wrong digest fails the replay.
      const wrongDigest = await casino([
        'replay',
        'shoe',
        'solo.2',
        '--url',
        url,
        '--digest',
        'a'.repeat(64),
        '--json',
      ]);
      expect(wrongDigest.code).toBe(1);
      expect((JSON.parse(wrongDigest.stdout) as ShoeReplay).verdict.findings[0]?.code).toBe(
        'DIGEST_MISMATCH',
      );
      const checkpointFile = join(dataDir, 'via-api-checkpoint.json');
      expect((await casino(['checkpoint', '--url', url, '--out', checkpointFile])).code).toBe(0);
      const anchored = await casino(['verify', '--checkpoint', checkpointFile, '--url', url]);
      expect(anchored.code).toBe(0);
      expect(anchored.stdout).toContain('VERIFIED: every check passed');
      const file = join(dataDir, 'via-api.json');
      expect((await casino(['export', 'shoe', 'solo.2', '--out', file, '--url', url])).code).toBe(
        0,
      );
      expect((await casino(['verify', file])).code).toBe(0);
      const rebuilt = await casino(['rebuild', '--url', url]);
      expect(rebuilt.code).toBe(0);
      expect(rebuilt.stdout).toContain('"table-board"');
      const refused = await casino([
        'audit',
        'round',
        'solo.1.1',
        '--url',
        url,
        '--token',
        'nonsense',
      ]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/answered 401 UNAUTHENTICATED/);
    } finally {
      await app.close();
      await system.stop();
      await store.close();
      vi.stubEnv('PORT', '9');
    }
    expect((await casino(['audit', 'round', 'solo.1.1'])).code).toBe(0);
  });
});
