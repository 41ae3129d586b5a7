import { randomUUID } from 'node:crypto';
/**
 * End-to-end benchmark (issue 4): TABLES tables dealing continuously, 7 bots each betting through
 * the HTTP API (real sockets) on PostgreSQL. Prints JSON lines: settled rounds/s, bet latency
 * p50/p99, settlement lag (RoundCompleted -> PayoutCredited) p50/p99, events/s.
 * Env: TABLES (default 4), DURATION_S (default 30), DATABASE_URL.
 */
import { cpus } from 'node:os';
import { createEventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System } from '@croupier/gateway';
import { isolatedPostgres } from '@croupier/testkit';
import { pino } from 'pino';
import { allEvents } from '../support/invariants.js';

const TABLES = Number(process.env.TABLES ?? 4);
const DURATION_MS = Number(process.env.DURATION_S ?? 30) * 1000;
const BOTS = 7;

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2),
  );
};
const emit = (record: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);

const postgres = await isolatedPostgres('bench');
const store = await createEventStore({
  kind: 'postgres',
  connectionString: postgres.connectionString,
  schema: postgres.schema,
  maxConnections: 20,
  subscriptions: { pollIntervalMs: 50 },
});
const config = loadConfig({
  EVENTSTORE: 'postgres',
  DATABASE_URL: postgres.connectionString,
  JWT_SECRET: 'bench-secret-0123456789abcdef0123456789ab',
  SHOE_SEED_KEY: 'bench-seed-key-0123456789abcdef012345678',
  AUTO_TABLES: '',
  LOG_LEVEL: 'silent',
});
const system = await System.create({
  config,
  logger: pino({ level: 'silent' }),
  store,
  autoDeal: false,
});
await system.start();
const app = await buildApp(system);
const address = await app.listen({ host: '127.0.0.1', port: 0 });

const tokenFor = (role: 'operator' | 'dealer' | 'player', id: string) =>
  system.tokens.issue({ id, role });
const operator = await tokenFor('operator', 'op');
const dealer = await tokenFor('dealer', 'dealer');
async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${address}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const betLatencies: number[] = [];
let errors = 0;
const tables = Array.from({ length: TABLES }, (_, i) => `bench-${i + 1}`);
for (const tableId of tables) {
  await call(operator, 'POST', '/v1/tables', { tableId, preset: 'live' });
  for (let b = 0; b < BOTS; b++) {
    await call(operator, 'POST', `/v1/wallets/${tableId}-bot${b}/deposits`, {
      amount: 1_000_000_000,
      currency: 'EUR',
      reference: 'bench',
    });
  }
}
const bots = await Promise.all(
  tables.flatMap((tableId) =>
    Array.from({ length: BOTS }, async (_, b) => ({
      tableId,
      id: `${tableId}-bot${b}`,
      token: await tokenFor('player', `${tableId}-bot${b}`),
    })),
  ),
);

const started = Date.now();
const startPosition = (await store.readAll({ limit: 1_000_000 })).at(-1)?.position;
async function dealTable(tableId: string) {
  while (Date.now() - started < DURATION_MS) {
    try {
      const round = (await call(dealer, 'POST', `/v1/tables/${tableId}/rounds`)) as {
        roundId: string;
        number: number;
      };
      // Pair bets are offered up to round 60 of a shoe (rules.md section 4).
      const pairOffered = round.number <= 60;
      await Promise.all(
        bots
          .filter((bot) => bot.tableId === tableId)
          .map(async (bot, index) => {
            const t0 = performance.now();
            await call(bot.token, 'POST', `/v1/rounds/${round.roundId}/bets`, {
              bets: [
                { type: index % 3 === 0 ? 'player' : 'banker', amount: 1_000, betId: randomUUID() },
                ...(index % 2 === 0 && pairOffered
                  ? [{ type: 'player_pair', amount: 100, betId: randomUUID() }]
                  : []),
              ],
            });
            betLatencies.push(performance.now() - t0);
          }),
      );
      await call(dealer, 'POST', `/v1/rounds/${round.roundId}/close-betting`);
      await call(dealer, 'POST', `/v1/rounds/${round.roundId}/deal`);
    } catch (error) {
      // ROUND_IN_PROGRESS while the previous round settles, before a new shoe: try again.
      if (!String(error).includes('ROUND_IN_PROGRESS')) {
        errors++;
        if (errors < 5) process.stderr.write(`${String(error)}\n`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
await Promise.all(tables.map(dealTable));
const elapsed = (Date.now() - started) / 1000;

// Let settlement finish, then measure from the events.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const events = (await allEvents(store)).filter(
  (e) => startPosition === undefined || e.position > startPosition,
);
const completedAt = new Map<string, number>();
const lastCreditAt = new Map<string, number>();
let settledRounds = 0;
for (const event of events) {
  const data = event.data as { roundId?: string };
  if (event.type === 'RoundCompleted' && data.roundId)
    completedAt.set(data.roundId, event.recordedAt.getTime());
  if (event.type === 'RoundSettled') settledRounds++;
  if (event.type === 'PayoutCredited' && data.roundId)
    lastCreditAt.set(
      data.roundId,
      Math.max(lastCreditAt.get(data.roundId) ?? 0, event.recordedAt.getTime()),
    );
}
const lags = [...lastCreditAt]
  .filter(([roundId]) => completedAt.has(roundId))
  .map(([roundId, at]) => at - completedAt.get(roundId)!);
emit({
  bench: 'e2e',
  store: 'postgres',
  transport: 'http',
  tables: TABLES,
  botsPerTable: BOTS,
  seconds: Number(elapsed.toFixed(1)),
  settledRounds,
  settledRoundsPerSecond: Number((settledRounds / elapsed).toFixed(2)),
  bets: betLatencies.length,
  betsPerSecond: Number((betLatencies.length / elapsed).toFixed(1)),
  betLatencyMs: { p50: percentile(betLatencies, 50), p99: percentile(betLatencies, 99) },
  settlementLagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99) },
  events: events.length,
  eventsPerSecond: Number((events.length / elapsed).toFixed(1)),
  errors,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
});
await app.close();
await system.stop();
await store.close();
await postgres.drop();
