import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckpointVerification, RoundAudit, ShoeReplay, Verdict } from '@croupier/audit';
import { DomainError, presetConfig, type CommandContext, type Role } from '@croupier/contracts';
import { chainHash, createEventStore, GENESIS_HASH, type EventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { isolatedPostgres, withClient, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';
import { silentLogger } from './support.js';

/**
 * What docs/audit.md says the audit commands name, held against what they print: a store on a
 * real PostgreSQL schema, played by a System, a checkpoint taken, then rows changed with SQL as
 * an insider would. Each claim is checked straight from the store and, where the API offers the
 * same, through a running gateway (--url).
 */
const SECRETS = {
  JWT_SECRET: 'cli-claims-jwt-secret-0123456789abcdef0123',
  SHOE_SEED_KEY: 'cli-claims-seed-key-0123456789abcdef012345',
};

let postgres: IsolatedPostgres;
let store: EventStore;
let system: System;
let app: Awaited<ReturnType<typeof buildApp>>;
let url: string;
let dataDir: string;
let checkpointFile: string;
let keyId: string;

function as(id: string, role: Role): CommandContext {
  return {
    actor: { id, role },
    correlationId: randomUUID(),
    causationId: null,
    now: () => new Date(),
  };
}

async function casino(argv: string[]) {
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

/** The findings of a JSON report, as `check/CODE stream@revision`. */
const named = (verdict: Verdict): string[] =>
  verdict.findings.map((f) => `${f.check}/${f.code} ${f.stream ?? '-'}@${f.revision ?? '-'}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two single-deck rounds, each its own shoe (solo.1, solo.2), closed by the next shuffle. */
async function play(): Promise<void> {
  await system.rounds.openTable(
    {
      tableId: 'solo',
      config: presetConfig('single-deck'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  await system.wallets.deposit(
    { playerId: 'alice', amount: 1_000_000, currency: 'EUR', reference: 'claims-1' },
    as('olga', 'operator'),
  );
  for (let number = 1; number <= 3; number++) {
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
    if (number === 3) break;
    await system.rounds.placeBets(
      round.roundId,
      'alice',
      [{ type: 'banker', amount: 1_000, bankerMode: 'commission' }],
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

/** Runs SQL on the isolated schema; `EVENTS` and `STREAMS` name its tables. */
function sql<R extends object = Record<string, unknown>>(text: string, params: unknown[] = []) {
  return withClient(postgres.connectionString, async (client) => {
    const result = await client.query<R>(
      text
        .replaceAll('EVENTS', `"${postgres.schema}".events`)
        .replaceAll('STREAMS', `"${postgres.schema}".streams`),
      params,
    );
    return result.rows;
  });
}

interface EventRow {
  xid: string;
  seq: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const rowsOf = (stream: string) =>
  sql<EventRow>(
    `SELECT transaction_id::text AS xid, sequence::text AS seq, event_type, data, metadata
       FROM EVENTS WHERE stream_name = $1 ORDER BY stream_revision`,
    [stream],
  );

/**
 * Writes an event at the next revision of a stream, chained to the one before it as the store
 * would (sha256 has no key), at `position` when given (a place in the past), else at the end.
 */
async function forge(
  stream: string,
  type: string,
  data: Record<string, unknown>,
  metadata: Record<string, unknown>,
  position?: { xid: string; seq: string },
): Promise<number> {
  const rows = await rowsOf(stream);
  const prevHash = rows.length === 0 ? GENESIS_HASH : String(rows.at(-1)!.metadata['hash']);
  const { prevHash: _prev, hash: _hash, ...content } = metadata;
  const hash = chainHash(prevHash, { type, data, metadata: content });
  const values = [
    randomUUID(),
    stream,
    rows.length,
    type,
    JSON.stringify(data),
    JSON.stringify({ ...content, prevHash, hash }),
  ];
  await sql(
    position === undefined
      ? `INSERT INTO EVENTS (event_id, stream_name, stream_revision, event_type, data, metadata)
           VALUES ($1, $2, $3, $4, $5, $6)`
      : `INSERT INTO EVENTS (event_id, stream_name, stream_revision, event_type, data, metadata,
                             transaction_id, sequence)
           VALUES ($1, $2, $3, $4, $5, $6, $7::xid8, $8)`,
    position === undefined ? values : [...values, position.xid, position.seq],
  );
  await sql(`UPDATE STREAMS SET revision = $2, last_hash = $3 WHERE stream_name = $1`, [
    stream,
    rows.length,
    hash,
  ]);
  return rows.length;
}

beforeAll(async () => {
  postgres = await isolatedPostgres('cliclaims');
  dataDir = await mkdtemp(join(tmpdir(), 'casino-claims-'));
  const env = {
    EVENTSTORE: 'postgres',
    DATABASE_URL: postgres.connectionString,
    DATABASE_SCHEMA: postgres.schema,
    DATA_DIR: dataDir,
    ...SECRETS,
    AUTO_TABLES: '',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '9',
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
  });
  system = await System.create({
    config: loadConfig(env),
    logger: silentLogger,
    store,
    autoDeal: false,
    sweepIntervalMs: 3_600_000,
  });
  await system.start();
  await play();
  await system.notary.checkpoint();
  checkpointFile = join(dataDir, 'checkpoint.json');
  expect((await casino(['checkpoint', 'latest', '--out', checkpointFile])).code).toBe(0);
  const verified = await casino(['verify', '--checkpoint', checkpointFile, '--json']);
  keyId = (JSON.parse(verified.stdout) as CheckpointVerification).checkpoint.signer.keyId;
  expect(verified.code).toBe(0);
  app = await buildApp(system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 120_000);

afterAll(async () => {
  await app.close();
  await system.stop();
  await store.close();
  vi.unstubAllEnvs();
  await postgres.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a payout naming a shoe that was never shuffled', () => {
  it('is shown by replay shoe and audit round, from the store and through the gateway', async () => {
    const [payout] = (await rowsOf('wallet-alice')).filter(
      (r) => r.event_type === 'PayoutCredited',
    );
    const revision = await forge(
      'wallet-alice',
      'PayoutCredited',
      { ...payout!.data, roundId: 'ghost.1.1', betId: randomUUID(), amount: 50_000 },
      payout!.metadata,
    );
    const unmatched = `debits/DEBIT_UNMATCHED wallet-alice@${revision}`;
    for (const via of [[], ['--url', url]]) {
      const replayed = await casino(['replay', 'shoe', 'ghost.1', '--json', ...via]);
      expect(replayed.stderr).toBe('');
      expect(replayed.code).toBe(1);
      expect(named((JSON.parse(replayed.stdout) as ShoeReplay).verdict)).toContain(unmatched);
      const audited = await casino(['audit', 'round', 'ghost.1.1', '--json', ...via]);
      expect(audited.code).toBe(1);
      expect(named((JSON.parse(audited.stdout) as RoundAudit).verdict)).toContain(unmatched);
    }
    // A shoe nothing names is still not found.
    const none = await casino(['replay', 'shoe', 'nowhere.1']);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no shoe "nowhere.1" in the event store');
  });
});

describe('against the published checkpoint', () => {
  it('names a raw delete at the revision that is gone, in verify and in the round audit', async () => {
    await sql(`DELETE FROM EVENTS WHERE stream_name = 'round-solo.1.1' AND stream_revision = 5`);
    const missing = 'hash-chain/EVENT_MISSING round-solo.1.1@5';
    for (const via of [[], ['--url', url]]) {
      const verified = await casino([
        'verify',
        '--checkpoint',
        checkpointFile,
        '--key-id',
        keyId,
        '--json',
        ...via,
      ]);
      expect(verified.code).toBe(1);
      const found = named((JSON.parse(verified.stdout) as CheckpointVerification).verdict);
      expect(found).toContain(missing);
      expect(found).not.toContain('hash-chain/EVENT_MISSING round-solo.1.1@6');
      const audited = await casino(['audit', 'round', 'solo.1.1', '--json', ...via]);
      expect(named((JSON.parse(audited.stdout) as RoundAudit).verdict)).toContain(missing);
    }
  });

  it('names a movement written into the past in audit round and replay shoe, as verify does', async () => {
    const placed = (await rowsOf('round-solo.2.1')).find((r) => r.event_type === 'BetPlaced')!;
    const debit = (await rowsOf('wallet-alice')).find(
      (r) => r.event_type === 'StakeDebited' && r.data['roundId'] === 'solo.2.1',
    )!;
    // A stake from a new wallet for a bet that never reached the round, placed among the round's
    // own rows: from the record alone, only an unrefunded debit.
    await forge(
      'wallet-trudy',
      'StakeDebited',
      { ...debit.data, playerId: 'trudy', betId: randomUUID() },
      debit.metadata,
      { xid: placed.xid, seq: String(BigInt(placed.seq) * 1_000n) },
    );
    const forged = 'anchored/ANCHOR_MISMATCH wallet-trudy@0';
    const anchor = ['--checkpoint', checkpointFile, '--key-id', keyId];
    for (const argv of [
      ['audit', 'round', 'solo.2.1'],
      ['replay', 'shoe', 'solo.2'],
    ]) {
      expect((await casino([...argv, '--json'])).code).toBe(0);
      const anchored = await casino([...argv, '--json', ...anchor]);
      expect(anchored.code).toBe(1);
      expect(named((JSON.parse(anchored.stdout) as RoundAudit | ShoeReplay).verdict)).toEqual([
        forged,
      ]);
    }
    for (const argv of [
      ['verify', ...anchor],
      ['verify', ...anchor, '--url', url],
      ['audit', 'wallet', 'trudy', ...anchor],
    ]) {
      const checked = await casino([...argv, '--json']);
      expect(checked.code).toBe(1);
      expect(named((JSON.parse(checked.stdout) as { verdict: Verdict }).verdict)).toContain(forged);
    }
  });
});
