/**
 * A realistic history, fast (issue 13's bench:history): one shoe is played for real through the
 * services on the memory store (bets of seven players, a round voided while betting, a round
 * voided after settlement: a dispute, its resettlement), and its log becomes a template. The
 * template is then cloned table after table straight into the event store with batch appends
 * (the store chains each stream's hashes as it would for any append), each clone under its own
 * table id, players and UUIDs, until the history holds the events asked. The players are shared
 * by the clones one worker writes, so their wallet streams grow long; one more player, the whale,
 * gets a wallet stream of WHALE_EVENTS movements (stakes and payouts) for the cold-bet measure.
 *
 * What a clone is not: its shoes' commitments and digests were computed for the template's ids,
 * so a shoe replay of a clone does not verify, and the whale's movements name rounds that do not
 * hold its bets. The bench measures reads and decisions, not audits.
 */
import { deterministicId, systemContext } from '@croupier/application';
import { presetConfig, type CommandContext } from '@croupier/contracts';
import {
  encodePosition,
  MemoryEventStore,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@croupier/eventstore';
import { loadConfig, System } from '@croupier/gateway';
import { withClient } from '@croupier/testkit';
import { pino } from 'pino';

/** The token standing for the template's table in every name; replaced per clone. */
const TABLE = 'tplx';
const PLAYERS = 7;

export interface TemplateEvent {
  readonly stream: string;
  readonly revision: bigint;
  /** `{type, data, metadata}` as JSON text, names and UUIDs still the template's. */
  readonly text: string;
}

const as = (id: string, role: 'operator' | 'dealer' | 'supervisor' | 'player'): CommandContext => ({
  ...systemContext('bench'),
  actor: { id, role },
});

const busy = (error: unknown) => String(error).includes('ROUND_IN_PROGRESS');

/** Plays one shoe for real and answers its log (without the security and notary streams). */
export async function playTemplate(secrets: Record<string, string>): Promise<TemplateEvent[]> {
  const store = new MemoryEventStore();
  const config = loadConfig({
    EVENTSTORE: 'pglite',
    ...secrets,
    AUTO_TABLES: '',
    LOG_LEVEL: 'silent',
    CHECKPOINT_INTERVAL_MS: '0',
    ORPHAN_GRACE_MS: '0',
  });
  const system = await System.create({
    config,
    logger: pino({ level: 'silent' }),
    store,
    autoDeal: false,
    sweepIntervalMs: 3_600_000,
  });
  await system.start();
  const { rounds, wallets } = system;
  const operator = as('olga', 'operator');
  const dealer = as('dan', 'dealer');
  const supervisor = as('sue', 'supervisor');
  await rounds.openTable(
    {
      tableId: TABLE,
      config: presetConfig('generic'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    operator,
  );
  const players = Array.from({ length: PLAYERS }, (_, i) => `${TABLE}-p${i}`);
  for (const playerId of players)
    await wallets.deposit(
      { playerId, amount: 100_000_000, currency: 'EUR', reference: `${TABLE}-${playerId}` },
      operator,
    );
  let shoeId: string | null = null;
  const completed: string[] = [];
  for (;;) {
    let round;
    try {
      round = await rounds.openRound(TABLE, dealer);
    } catch (error) {
      if (!busy(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    shoeId ??= round.shoeId;
    if (round.shoeId !== shoeId) break;
    for (const [index, playerId] of players.entries()) {
      const bets = [
        { type: index % 3 === 0 ? 'player' : 'banker', amount: 1_000 + 10 * index },
        ...(index % 2 === 0 && round.number <= 50 ? [{ type: 'tie', amount: 100 }] : []),
      ];
      await rounds.placeBets(round.roundId, playerId, bets, as(playerId, 'player'));
    }
    if (round.number % 25 === 5) {
      await rounds.pause(round.roundId, 'table camera offline', supervisor);
      await rounds.void(round.roundId, 'camera not restored', supervisor);
      continue;
    }
    await rounds.closeBetting(round.roundId, dealer);
    await rounds.deal(round.roundId, dealer);
    completed.push(round.roundId);
    if (completed.length === 10) await rounds.changeDealer(TABLE, 'dora', supervisor);
  }
  // A dispute: a settled round voided after review, its bets resettled.
  await settled(system, players);
  await rounds.void(completed[3]!, 'video review: misdeal', supervisor);
  await settled(system, players);
  await system.sync();
  const log = (await store.readAll({ limit: 10_000_000 })).filter(
    (event) => !event.stream.startsWith('security-') && event.stream !== 'notary',
  );
  await system.stop();
  await store.close();
  return log.map((event) => ({
    stream: event.stream,
    revision: event.revision,
    text: JSON.stringify({ type: event.type, data: event.data, metadata: stripChain(event) }),
  }));
}

function stripChain(event: RecordedEvent): Record<string, unknown> {
  const { prevHash: _prev, hash: _hash, ...metadata } = event.metadata;
  return metadata;
}

async function settled(system: System, players: readonly string[]): Promise<void> {
  for (let attempt = 0; attempt < 3_000; attempt++) {
    const views = await Promise.all(players.map((id) => system.wallets.getWallet(id)));
    if (views.every((view) => view.openStakes === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the template round was not settled in time');
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const PLAYER = new RegExp(`${TABLE}-p(\\d+)`, 'g');

export interface CloneOptions {
  /** The clone's number: its table is `h<n>`. */
  readonly clone: number;
  /** The worker writing it: its players are `pl<worker * 7 + i>`, shared by its clones. */
  readonly worker: number;
}

/**
 * One clone of the template, appended in the template's order: consecutive events of one stream
 * go in one append, with the exact expected version (the worker knows each stream's revision:
 * only it writes its players' wallets). Answers the events written.
 */
export async function writeClone(
  store: EventStore,
  template: readonly TemplateEvent[],
  options: CloneOptions,
  revisions: Map<string, bigint>,
): Promise<number> {
  const table = `h${options.clone}`;
  const uuids = new Map<string, string>();
  const rename = (text: string) =>
    text
      .replace(PLAYER, (_, i: string) => `pl${options.worker * PLAYERS + Number(i)}`)
      .replaceAll(TABLE, table)
      .replace(UUID, (uuid) => {
        let renamed = uuids.get(uuid);
        if (renamed === undefined) {
          renamed = deterministicId('bench-history', table, uuid);
          uuids.set(uuid, renamed);
        }
        return renamed;
      });
  let written = 0;
  for (let at = 0; at < template.length;) {
    const stream = template[at]!.stream;
    let end = at + 1;
    while (end < template.length && template[end]!.stream === stream) end++;
    const name = rename(stream);
    const events: NewEvent[] = template.slice(at, end).map((event) => {
      const parsed = JSON.parse(rename(event.text)) as Omit<NewEvent, 'id'>;
      return { ...parsed, id: crypto.randomUUID() };
    });
    const head = revisions.get(name);
    const result = await store.append(name, events, {
      expectedVersion: head === undefined ? 'no-stream' : head,
    });
    revisions.set(name, result.revision);
    written += events.length;
    at = end;
  }
  return written;
}

/** The whale's wallet: a deposit, then stakes and their payouts, in appends of 1,000 events. */
export async function writeWhale(
  store: EventStore,
  playerId: string,
  events: number,
  roundIds: readonly string[],
): Promise<void> {
  const metadata = {
    correlationId: crypto.randomUUID(),
    causationId: null,
    actor: { id: 'bench', role: 'system' },
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  };
  const all: NewEvent[] = [
    {
      id: crypto.randomUUID(),
      type: 'FundsDeposited',
      data: { playerId, amount: 1_000_000_000_000, currency: 'EUR', reference: 'whale' },
      metadata,
    },
  ];
  for (let n = 0; all.length < events; n++) {
    const betId = crypto.randomUUID();
    const roundId = roundIds[n % roundIds.length]!;
    all.push({
      id: crypto.randomUUID(),
      type: 'StakeDebited',
      data: { playerId, betId, roundId, amount: 1_000 },
      metadata,
    });
    all.push({
      id: crypto.randomUUID(),
      type: 'PayoutCredited',
      data: {
        playerId,
        betId,
        roundId,
        settlementId: crypto.randomUUID(),
        amount: n % 2 === 0 ? 2_000 : 0,
        result: n % 2 === 0 ? 'win' : 'lose',
      },
      metadata,
    });
  }
  const stream = `wallet-${playerId}`;
  for (let at = 0; at < all.length; at += 1_000) {
    await store.append(stream, all.slice(at, at + 1_000), {
      expectedVersion: at === 0 ? 'no-stream' : BigInt(at - 1),
    });
  }
}

/**
 * Clones of the template until at least `size` events are written, by `workers` writers in
 * parallel (enough appends in flight for the store to group them, ADR 0021). Answers the events
 * written and the clones (tables `h0`, `h1`, ...) made.
 */
export async function writeClones(
  store: EventStore,
  template: readonly TemplateEvent[],
  size: number,
  workers: number,
): Promise<{ written: number; clones: number }> {
  let written = 0;
  let clones = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const revisions = new Map<string, bigint>();
      while (written < size) {
        const clone = clones++;
        written += template.length;
        await writeClone(store, template, { clone, worker }, revisions);
      }
    }),
  );
  return { written, clones };
}

/**
 * The gateway's subscriptions (settlement reactor, outbox, commission collector) start where a
 * live system's are: at the end of the log, not re-deciding every generated round.
 */
export async function caughtUpSubscriptions(
  connectionString: string,
  schema: string,
): Promise<void> {
  await withClient(connectionString, async (client) => {
    const { rows } = await client.query<{ transaction_id: string; sequence: string }>(
      `SELECT transaction_id::text, sequence::text FROM "${schema}".events
       ORDER BY transaction_id DESC, sequence DESC LIMIT 1`,
    );
    const end = encodePosition(BigInt(rows[0]!.transaction_id), BigInt(rows[0]!.sequence));
    for (const name of ['settlement', 'settlement-outbox', 'wallet-commission-collector'])
      await client.query(
        `INSERT INTO "${schema}".subscription_checkpoints (name, position) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
        [name, end.toString()],
      );
  });
}
