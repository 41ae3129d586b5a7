/* global process, URL, setTimeout */
/**
 * Capacity measurement (docs/capacity.md): plays real rounds through the gateway's System (all
 * services in one process, the HTTP API through fastify's inject) on PostgreSQL, with the
 * BullMQ settlement bus when REDIS_URL is set, then reads the events table and reports:
 *
 *   - events per completed round, by type and by stream category, for each scenario
 *     (players x bets per player), shoe events amortized over the rounds of the shoe;
 *   - bytes per event: pg_total_relation_size of the events table (heap, TOAST and its three
 *     indexes) divided by its rows, and the jsonb sizes of data and metadata per event type;
 *   - appends (transactions) per round: the store's writes;
 *   - how fast a fresh gateway System rebuilds its durable read models from the first event
 *     (docs/adr/0023: what `casino rebuild` costs; a start reads their tables instead);
 *   - with Redis: bytes kept per completed settlement message (BullMQ job hash).
 *
 * Everything it creates lives in a fresh schema (DATABASE_SCHEMA, default capacity_<time>) and
 * under a fresh Redis prefix; both are dropped at the end unless KEEP=1.
 *
 *   node --conditions=@croupier/source --import tsx infra/capacity/measure-events.js
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), REDIS_URL (optional),
 * DATABASE_SCHEMA and REDIS_PREFIX (default capacity_<time>, capacity-<time>),
 * SCENARIOS (default "0x0,1x1,7x1,7x2": players x bets each), ROUNDS per scenario (default 160,
 * about two 8-deck shoes), PRESET (default live). Prints one JSON document on stdout.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { buildApp, loadConfig, System } from '../../services/gateway/src/index.ts';

const requireFrom = (pkg) => createRequire(new URL(`../../${pkg}/package.json`, import.meta.url));
const pg = requireFrom('packages/eventstore')('pg');
const { pino } = requireFrom('services/gateway')('pino');

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL;
const ROUNDS = Number(process.env.ROUNDS ?? 160);
const PRESET = process.env.PRESET ?? 'live';
const SCENARIOS = (process.env.SCENARIOS ?? '0x0,1x1,7x1,7x2').split(',').map((text) => {
  const [players, bets] = text.split('x').map(Number);
  return { players, bets, tableId: `cap-p${players}b${bets}` };
});
const stamp = Date.now().toString(36);
const SCHEMA = process.env.DATABASE_SCHEMA ?? `capacity_${stamp}`;
const PREFIX = process.env.REDIS_PREFIX ?? `capacity-${stamp}`;
/** Bet types cycled through by each player: main bets first, then side bets. */
const BET_TYPES = ['banker', 'player', 'tie', 'player_pair', 'banker_pair', 'either_pair'];
/** Side bets are offered up to a round of the shoe (the live preset: 50 for the pair bets). */
const MAIN_BETS = ['banker', 'player', 'tie'];

const log = (message) => process.stderr.write(`measure-events: ${message}\n`);

const config = loadConfig({
  EVENTSTORE: 'postgres',
  DATABASE_URL,
  DATABASE_SCHEMA: SCHEMA,
  ...(REDIS_URL === undefined ? {} : { REDIS_URL, REDIS_PREFIX: PREFIX }),
  JWT_SECRET: 'capacity-measurement-secret-0123456789abcdef',
  SHOE_SEED_KEY: 'capacity-measurement-seed-key-0123456789abc',
  AUTO_TABLES: '',
  LOG_LEVEL: 'silent',
});
const system = await System.create({ config, logger: pino({ level: 'silent' }), autoDeal: false });
await system.start();
const app = await buildApp(system, { level: 'silent' });

const tokens = new Map();
async function token(role, id) {
  const key = `${role}/${id}`;
  if (!tokens.has(key)) tokens.set(key, await system.tokens.issue({ id, role }));
  return tokens.get(key);
}
async function call(role, id, method, url, payload) {
  const response = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${await token(role, id)}` },
    ...(payload === undefined ? {} : { payload }),
  });
  if (response.statusCode >= 400)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

const client = new pg.Client({ connectionString: DATABASE_URL });
await client.connect();
const events = `"${SCHEMA}".events`;
const count = async (type) =>
  Number(
    (await client.query(`SELECT count(*) AS n FROM ${events} WHERE event_type = $1`, [type]))
      .rows[0].n,
  );

const timings = {};
for (const scenario of SCENARIOS) {
  const { players, bets, tableId } = scenario;
  await call('operator', 'op', 'POST', '/v1/tables', { tableId, preset: PRESET });
  const seats = Array.from({ length: players }, (_, i) => `${tableId}-p${i}`);
  for (const playerId of seats) {
    await call('operator', 'op', 'POST', `/v1/wallets/${playerId}/deposits`, {
      amount: 1_000_000_000,
      currency: 'EUR',
      reference: 'capacity',
    });
  }
  const started = performance.now();
  let played = 0;
  while (played < ROUNDS) {
    let round;
    try {
      round = await call('dealer', 'dealer', 'POST', `/v1/tables/${tableId}/rounds`);
    } catch (error) {
      // The previous round settles (or its shoe closes) before the next opens.
      if (!String(error).includes('ROUND_IN_PROGRESS')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    await Promise.all(
      seats.map((playerId, p) =>
        bets === 0
          ? null
          : call('player', playerId, 'POST', `/v1/rounds/${round.roundId}/bets`, {
              bets: Array.from({ length: bets }, (_, b) => ({
                type:
                  round.number <= 40
                    ? BET_TYPES[(p + b) % BET_TYPES.length]
                    : MAIN_BETS[(p + b) % MAIN_BETS.length],
                amount: 1_000,
                // Every bet names itself (README: the client makes the id).
                betId: randomUUID(),
              })),
            }),
      ),
    );
    await call('dealer', 'dealer', 'POST', `/v1/rounds/${round.roundId}/close-betting`);
    await call('dealer', 'dealer', 'POST', `/v1/rounds/${round.roundId}/deal`);
    played++;
  }
  timings[tableId] = Number(((performance.now() - started) / 1000).toFixed(1));
  log(`${tableId}: ${played} rounds in ${timings[tableId]} s`);
}

// Settlement and the wallet's payouts arrive asynchronously: wait until every completed round is
// settled and the log has stopped growing.
for (let last = -1, stable = 0; stable < 3;) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const total = Number((await client.query(`SELECT count(*) AS n FROM ${events}`)).rows[0].n);
  const settled = (await count('RoundSettled')) >= (await count('RoundCompleted'));
  stable = settled && total === last ? stable + 1 : 0;
  last = total;
}

const category = (stream) => stream.slice(0, stream.indexOf('-'));
const rows = (
  await client.query(
    `SELECT stream_name, event_type, count(*)::int AS n,
            array_agg(DISTINCT transaction_id::text) AS transactions
       FROM ${events} GROUP BY 1, 2 ORDER BY 1, 2`,
  )
).rows;
const scenarios = SCENARIOS.map(({ players, bets, tableId }) => {
  const mine = rows.filter(
    (row) =>
      row.stream_name.endsWith(`-${tableId}`) ||
      row.stream_name.includes(`-${tableId}.`) ||
      row.stream_name.startsWith(`wallet-${tableId}-`),
  );
  const completed = mine
    .filter((row) => row.event_type === 'RoundCompleted')
    .reduce((sum, row) => sum + row.n, 0);
  const byType = {};
  const byCategory = {};
  // Each append is one transaction (one call of append_events): the store's writes.
  const transactions = new Set();
  let perRound = 0;
  for (const row of mine) {
    // Deposits and the table's opening are set-up, not per-round work.
    if (row.event_type === 'FundsDeposited' || row.event_type === 'TableOpened') continue;
    row.transactions.forEach((id) => transactions.add(id));
    byType[row.event_type] = (byType[row.event_type] ?? 0) + row.n;
    byCategory[category(row.stream_name)] = (byCategory[category(row.stream_name)] ?? 0) + row.n;
    perRound += row.n;
  }
  const per = (n) => Number((n / completed).toFixed(3));
  return {
    tableId,
    players,
    betsPerPlayer: bets,
    betsPerRound: players * bets,
    completedRounds: completed,
    shoes: byType.ShoeShuffled ?? 0,
    seconds: timings[tableId],
    eventsPerRound: per(perRound),
    appendsPerRound: per(transactions.size),
    perRoundByType: Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, per(v)])),
    perRoundByStream: Object.fromEntries(Object.entries(byCategory).map(([k, v]) => [k, per(v)])),
  };
});

// Cost of rebuilding the read models (docs/adr/0023): a second System on the same schema
// rebuilds each of its durable models from the first event into a new generation and swaps it in
// (one read of the whole log per model). A start no longer replays: it reads their tables.
const replay = await System.create({
  config: { ...config, REDIS_URL: undefined },
  logger: pino({ level: 'silent' }),
  autoDeal: false,
});
const replayStarted = performance.now();
for (const { name } of replay.readModels.status()) await replay.readModels.rebuild(name);
const replaySeconds = (performance.now() - replayStarted) / 1000;
await replay.stop();

await client.query(`VACUUM ANALYZE ${events}`);
const [size] = (
  await client.query(
    `SELECT count(*)::bigint AS rows,
            pg_total_relation_size('${events}') AS total,
            pg_relation_size('${events}') AS heap,
            pg_indexes_size('${events}') AS indexes,
            pg_total_relation_size('${events}') - pg_relation_size('${events}')
              - pg_indexes_size('${events}') AS toast_and_maps,
            pg_total_relation_size('"${SCHEMA}".streams') AS streams_total,
            (SELECT count(*) FROM "${SCHEMA}".streams) AS streams
       FROM ${events}`,
  )
).rows;
const indexes = (
  await client.query(
    `SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid) AS bytes
       FROM pg_index WHERE indrelid = '${events}'::regclass ORDER BY 1`,
  )
).rows;
const byTypeSize = (
  await client.query(
    `SELECT event_type, count(*)::int AS n,
            round(avg(pg_column_size(data)))::int AS data_jsonb,
            round(avg(pg_column_size(metadata)))::int AS metadata_jsonb,
            round(avg(octet_length(data::text) + octet_length(metadata::text)))::int AS json_text,
            round(avg(pg_column_size(e.*)))::int AS row_bytes
       FROM ${events} e GROUP BY 1 ORDER BY 2 DESC`,
  )
).rows;
const rowsN = Number(size.rows);
const storage = {
  rows: rowsN,
  totalBytes: Number(size.total),
  heapBytes: Number(size.heap),
  indexBytes: Number(size.indexes),
  toastAndMapsBytes: Number(size.toast_and_maps),
  bytesPerEvent: Math.round(Number(size.total) / rowsN),
  heapBytesPerEvent: Math.round(Number(size.heap) / rowsN),
  indexBytesPerEvent: Math.round(Number(size.indexes) / rowsN),
  indexes: indexes.map((i) => ({
    name: i.name,
    bytesPerEvent: Math.round(Number(i.bytes) / rowsN),
  })),
  streams: Number(size.streams),
  streamsTableBytesPerStream: Math.round(Number(size.streams_total) / Number(size.streams)),
  byType: byTypeSize,
};

let redis = null;
if (REDIS_URL !== undefined) {
  const Redis = requireFrom('packages/messaging')('ioredis').default;
  const connection = new Redis(REDIS_URL);
  const keys = [];
  let cursor = '0';
  do {
    const [next, found] = await connection.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  let jobs = 0;
  let jobBytes = 0;
  let otherBytes = 0;
  for (const key of keys) {
    const bytes = Number(await connection.memory('USAGE', key));
    // Job hashes are <prefix>:<queue>:<job id>; the rest are the queue's lists, sets and streams.
    if ((await connection.type(key)) === 'hash' && /:[0-9a-f-]{36}$/.test(key)) {
      jobs++;
      jobBytes += bytes;
    } else otherBytes += bytes;
  }
  redis = {
    prefix: PREFIX,
    keys: keys.length,
    jobsKept: jobs,
    bytesPerKeptJob: jobs === 0 ? null : Math.round(jobBytes / jobs),
    otherKeysBytes: otherBytes,
  };
  if (process.env.KEEP !== '1' && keys.length > 0) await connection.del(...keys);
  connection.disconnect();
}

process.stdout.write(
  `${JSON.stringify(
    {
      measuredAt: new Date().toISOString(),
      postgres: (await client.query('SHOW server_version')).rows[0].server_version,
      preset: PRESET,
      bus: system.bus.kind,
      schema: SCHEMA,
      scenarios,
      replay: {
        events: rowsN,
        seconds: Number(replaySeconds.toFixed(2)),
        eventsPerSecond: Math.round(rowsN / replaySeconds),
      },
      storage,
      redis,
    },
    null,
    2,
  )}\n`,
);

await app.close();
await system.stop();
if (process.env.KEEP !== '1') await client.query(`DROP SCHEMA "${SCHEMA}" CASCADE`);
await client.end();
