import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  deleteByPrefix,
  findPostgres,
  findRedis,
  uniqueSchemaName,
  withClient,
} from '@croupier/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = 'infra/capacity/measure-events.js';
const ROUNDS = 2;

interface Scenario {
  readonly tableId: string;
  readonly betsPerRound: number;
  readonly completedRounds: number;
  readonly perRoundByType: Record<string, number>;
}
interface Measurement {
  readonly bus: string;
  readonly schema: string;
  readonly scenarios: readonly Scenario[];
  readonly replay: { readonly events: number };
  readonly storage: { readonly rows: number; readonly bytesPerEvent: number };
  readonly redis: { readonly keys: number } | null;
}

/**
 * docs/capacity.md tells people to run infra/capacity/measure-events.js; it broke once unnoticed
 * (bets gained a required betId). Run it here in a short form, on this file's own schema and
 * Redis prefix, so CI notices the next time it cannot play a round.
 */
describe(`${SCRIPT}, as docs/capacity.md runs it, with ${ROUNDS} rounds`, () => {
  const schema = uniqueSchemaName('capacity');
  const prefix = schema.replaceAll('_', '-');
  let cleanup: () => Promise<void> = () => Promise.resolve();
  afterAll(() => cleanup());

  it('plays every scenario, counts three events per bet and reports storage and Redis', async () => {
    const postgres = await findPostgres();
    const redis = await findRedis();
    cleanup = async () => {
      // The script drops both itself; this is for a run that failed half-way.
      await withClient(postgres.connectionString, (client) =>
        client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`),
      );
      await deleteByPrefix(redis.url, `${prefix}:`);
    };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@croupier/source', '--import', 'tsx', SCRIPT],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: postgres.connectionString,
          DATABASE_SCHEMA: schema,
          REDIS_URL: redis.url,
          REDIS_PREFIX: prefix,
          ROUNDS: String(ROUNDS),
          SCENARIOS: '0x0,2x2',
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const measured = JSON.parse(stdout) as Measurement;

    expect(measured).toMatchObject({ bus: 'bullmq', schema });
    const [idle, betting] = measured.scenarios;
    expect(idle).toMatchObject({ betsPerRound: 0, completedRounds: ROUNDS });
    expect(idle!.perRoundByType['BetPlaced']).toBeUndefined();
    expect(betting).toMatchObject({ betsPerRound: 4, completedRounds: ROUNDS });
    // Per bet: the stake debited, the bet placed, the payout credited (docs/capacity.md).
    for (const type of ['StakeDebited', 'BetPlaced', 'PayoutCredited'])
      expect(betting!.perRoundByType[type], type).toBe(4);
    expect(measured.replay.events).toBe(measured.storage.rows);
    expect(measured.storage.bytesPerEvent).toBeGreaterThan(0);
    expect(measured.redis?.keys).toBeGreaterThan(0);
    // Nothing left behind: the script dropped its schema.
    const left = await withClient(postgres.connectionString, (client) =>
      client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]),
    );
    expect(left.rowCount).toBe(0);
  });
});
