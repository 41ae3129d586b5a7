import { randomUUID } from 'node:crypto';
import { evaluateRound, settleBet, type BetType, type Card } from '@croupier/baccarat';
import {
  auditRound,
  auditWallet,
  exportShoe,
  replayShoe,
  verifyExport,
  type PublishedCheckpoint,
  type PublishedValues,
  type ShoeExport,
  type ShoeReplay,
  type Verdict,
  type WalletAudit,
} from '@croupier/audit';
import { presetConfig, streams, type TableConfig } from '@croupier/contracts';
import { createEventStore, untilReadable, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anchorOf,
  loadCheckpoint,
  loadRoundEvidence,
  loadShoeEvidence,
  loadWalletEvidence,
  verifyCheckpoint,
  type System,
} from '../src/index.js';
import { as, openRoundWhenFree, startCasino, waitForWallets } from './support/casino.js';
import { SqlTamper, type Row } from './support/sql-tamper.js';
import { named } from './support/tamper.js';

/**
 * Attacks on the audit trail by an insider with write access to a real PostgreSQL events table
 * (an isolated schema), and by someone who edits an exported file: the tamperings the chain
 * alone cannot see, because the attacker re-hashes what they change (sha256 has no key) or
 * changes what the hash does not cover. Each must be named by another check: the ShoeClosed
 * digest (in a round audit too), the round's lifecycle, the global positions, the shoe's
 * successor, the wallet movements of rounds that are missing, the export's own shape, or the
 * values the operator published.
 */
let postgres: IsolatedPostgres;
let store: EventStore;
let tamper: SqlTamper;
let checkpoint: PublishedCheckpoint;
let keyId: string;

/** A shoe of about ten rounds: one deck, the cut card 14 cards from the end. */
const CONFIG: TableConfig = presetConfig('generic', { decks: 1, cutCard: 14 });
const CLOSED = [
  'sealed',
  'unclosed',
  'phantom',
  'erased',
  'moved',
  'rewritten',
  'clean',
  'payback',
  'forger',
];
const OPEN = ['late', 'twice', 'early', 'posted', 'anchored'];
const playersOf = (tableId: string) => [`${tableId}-a`, `${tableId}-b`] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const openRound = (system: System, tableId: string) =>
  openRoundWhenFree(system, tableId, { attempts: 500, intervalMs: 10 });

/**
 * Plays a table through the services: both players bet every round (round 2 is voided). With
 * `rounds`, stops after that many settled rounds, its shoe still open; without, plays the shoe
 * out and opens the next, which closes it.
 */
async function playTable(system: System, tableId: string, rounds?: number): Promise<void> {
  const [a, b] = playersOf(tableId);
  await system.rounds.openTable(
    { tableId, config: CONFIG, dealing: { mode: 'manual', bettingWindowMs: 0 } },
    as('olga', 'operator'),
  );
  for (const playerId of [a, b]) {
    await system.wallets.deposit(
      { playerId, amount: 10_000_000, currency: 'EUR', reference: `${playerId}-1` },
      as('olga', 'operator'),
    );
  }
  let last: string | null = null;
  for (let played = 0; rounds === undefined || played < rounds; played++) {
    const round = await openRound(system, tableId);
    if (round.shoeId !== `${tableId}.1`) break;
    last = round.roundId;
    await system.rounds.placeBets(
      round.roundId,
      a,
      [{ type: 'banker', amount: 1_000 + round.number, bankerMode: 'commission' }],
      as(a, 'player'),
    );
    await system.rounds.placeBets(
      round.roundId,
      b,
      [
        { type: 'player', amount: 700 },
        { type: 'tie', amount: 100 },
      ],
      as(b, 'player'),
    );
    if (round.number === 2 && rounds === undefined) {
      await system.rounds.pause(round.roundId, 'camera offline', as('sue', 'supervisor'));
      await system.rounds.void(round.roundId, 'camera offline', as('sue', 'supervisor'));
      continue;
    }
    await system.rounds.closeBetting(round.roundId, as('dan', 'dealer'));
    await system.rounds.deal(round.roundId, as('dan', 'dealer'));
  }
  await waitForWallets(system, [a, b]);
  for (let attempt = 0; last !== null && attempt < 1000; attempt++) {
    const events = await store.readStream(streams.round(last));
    if (events.some((e) => e.type === 'RoundSettled' || e.type === 'BetsRefunded')) break;
    await sleep(10);
  }
}

beforeAll(async () => {
  postgres = await isolatedPostgres('attacks');
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  tamper = new SqlTamper(postgres, store);
  const casino = await startCasino(store);
  for (const table of CLOSED) await playTable(casino.system, table);
  for (const table of OPEN) await playTable(casino.system, table, 3);
  // What the operator publishes: a signed checkpoint of every stream head, after all the play.
  await casino.system.notary.checkpoint();
  checkpoint = (await loadCheckpoint(store, 'latest'))!;
  keyId = checkpoint.signer.keyId;
  await casino.close();
}, 240_000);

afterAll(async () => {
  await store.close();
  await postgres.drop();
});

async function replay(shoeId: string, published?: PublishedValues): Promise<ShoeReplay> {
  await untilReadable(store);
  const evidence = await loadShoeEvidence(store, shoeId);
  if (evidence === null) throw new Error(`no shoe ${shoeId}`);
  return replayShoe(evidence, published === undefined ? {} : { published });
}

async function audit(roundId: string): Promise<Verdict> {
  await untilReadable(store);
  const evidence = await loadRoundEvidence(store, roundId);
  if (evidence === null) throw new Error(`no round ${roundId}`);
  return auditRound(evidence).verdict;
}

async function auditWalletOf(playerId: string): Promise<WalletAudit> {
  await untilReadable(store);
  const evidence = await loadWalletEvidence(store, playerId);
  if (evidence === null) throw new Error(`no wallet ${playerId}`);
  return auditWallet(evidence);
}

const revisionOf = (rows: readonly Row[], type: string, nth = 0): number =>
  rows.map((row, revision) => ({ row, revision })).filter(({ row }) => row.type === type)[nth]!
    .revision;

/** The round's cards, its rules and the outcome they give. */
function outcomeOf(round: readonly Row[]) {
  const cards = (hand: string) =>
    round
      .filter((r) => r.type === 'CardDealt' && r.data['hand'] === hand)
      .map((r) => r.data['card'] as Card);
  return {
    rules: round[0]!.data['rules'] as Parameters<typeof settleBet>[2],
    outcome: evaluateRound(cards('player'), cards('banker')),
  };
}

interface Line {
  betId: string;
  playerId: string;
  type: BetType;
  bankerMode: 'commission' | 'no_commission' | null;
  seat: number | null;
  stake: number;
  result: string;
  payout: number;
  commission: number;
  commissionMode: string;
}
interface Spot extends Omit<Line, 'betId' | 'commissionMode'> {
  betIds: string[];
}
interface Settlement {
  lines: Line[];
  spots?: Spot[];
  totals: { staked: number; paidOut: number; commission: number };
}
const settlementOf = (row: Row): Settlement => row.data as unknown as Settlement;

/** Adds a settlement line to a RoundSettled row, totals included. */
function addLine(row: Row, line: Line): void {
  const settlement = settlementOf(row);
  settlement.lines.push(line);
  const { betId, commissionMode: _mode, ...spot } = line;
  settlement.spots?.push({ ...spot, betIds: [betId] });
  settlement.totals.staked += line.stake;
  settlement.totals.paidOut += line.payout;
  settlement.totals.commission += line.commission;
}

/**
 * A bet on the winner of a completed round, with the settlement line the paytable gives it, as
 * an insider would add it after seeing the cards: a BetPlaced row (a copy of the player's first
 * one) and the line.
 */
function winningBet(round: readonly Row[], playerId: string): { placed: Row; line: Line } {
  const { rules, outcome } = outcomeOf(round);
  const type: BetType = outcome.winner;
  const stake = 5_000;
  const bankerMode = type === 'banker' ? 'commission' : null;
  const paid = settleBet({ type, stake, bankerMode: bankerMode ?? undefined }, outcome, rules);
  const betId = randomUUID();
  const template = round.find(
    (row) => row.type === 'BetPlaced' && row.data['playerId'] === playerId,
  )!;
  return {
    placed: {
      ...structuredClone(template),
      id: randomUUID(),
      xid: null,
      seq: null,
      data: { ...template.data, betId, type, amount: stake, bankerMode },
    },
    line: {
      betId,
      playerId,
      type,
      bankerMode,
      seat: null,
      stake,
      result: paid.result,
      payout: paid.payout,
      commission: paid.commission,
      commissionMode: 'deducted',
    },
  };
}

describe('a round audit after its shoe closed', () => {
  it('names a round stream cut short and re-hashed, by the digest that sealed it', async () => {
    const roundId = 'sealed.1.3';
    const stream = streams.round(roundId);
    const before = await tamper.rows(stream);
    const settledAt = revisionOf(before, 'RoundSettled');
    // The settlement and every payout it caused disappear; the round stream is re-hashed so
    // its chain and head agree again: only the digest the closed shoe sealed remembers it.
    await tamper.rewrite(stream, (rows) => rows.filter((row) => row.type !== 'RoundSettled'));
    await tamper.sql(
      `DELETE FROM EVENTS WHERE event_type = 'PayoutCredited' AND data->>'roundId' = $1`,
      [roundId],
    );
    const found = named(await audit(roundId));
    expect(found).toContain(`digest/DIGEST_MISMATCH ${stream}@${settledAt}`);
    expect(found.filter((f) => f.startsWith('hash-chain/'))).toEqual([]);
  });

  it('names a ShoeClosed deleted when the next shoe was shuffled, in the replay and the round audit', async () => {
    const shoeStream = streams.shoe('unclosed.1');
    const before = await tamper.rows(shoeStream);
    const closedAt = revisionOf(before, 'ShoeClosed');
    await tamper.rewrite(shoeStream, (rows) => rows.filter((row) => row.type !== 'ShoeClosed'));
    const replayed = await replay('unclosed.1');
    expect(replayed.status).toBe('open');
    expect(named(replayed.verdict)).toContain(`digest/EVENT_MISSING ${shoeStream}@${closedAt}`);
    expect(replayed.verdict.ok).toBe(false);
    expect(named(await audit('unclosed.1.3'))).toContain(
      `digest/EVENT_MISSING ${shoeStream}@${closedAt}`,
    );
  });

  it('audits a round whose stream was deleted: the shoe dealt it and the digest sealed it', async () => {
    const stream = streams.round('erased.1.3');
    await tamper.rewrite(stream, () => []);
    const evidence = await loadRoundEvidence(store, 'erased.1.3');
    expect(evidence).not.toBeNull();
    const result = auditRound(evidence!);
    const found = named(result.verdict);
    expect(found).toContain(`hash-chain/EVENT_MISSING ${stream}@-`);
    expect(found.some((f) => f.startsWith(`digest/DIGEST_MISMATCH ${stream}@`))).toBe(true);
    expect(found.some((f) => f.startsWith(`streams-agree/STREAMS_DISAGREE ${stream}@`))).toBe(true);
    // Its players' debits and payouts are still in their wallets.
    expect(result.wallet?.some((m) => m.type === 'StakeDebited')).toBe(true);
  });
});

describe('a wallet, from its first movement', () => {
  it('verifies untouched: every movement justified by its round or its operator', async () => {
    const [a] = playersOf('clean');
    const audit = await auditWalletOf(a);
    expect(named(audit.verdict)).toEqual([]);
    expect(audit.verdict.ok).toBe(true);
    expect(audit.movements.filter((m) => m.status !== 'justified')).toEqual([]);
    expect(audit.movements.every((m) => m.justifiedBy !== null)).toBe(true);
    const sum = audit.movements.reduce((total, m) => total + m.effect, 0);
    expect(sum).toBe(audit.balance);
  });

  it('names a second payout placed before its round, in the round audit, the replay and the wallet audit', async () => {
    const [a] = playersOf('payback');
    const wallet = streams.wallet(a);
    let roundId = '';
    await tamper.rewrite(wallet, (rows) => {
      const payout = rows.find(
        (row) => row.type === 'PayoutCredited' && (row.data['amount'] as number) > 0,
      )!;
      roundId = payout.data['roundId'] as string;
      const deposit = rows[0]!;
      // The copy takes a global position right after the deposit, before the shoe was
      // shuffled, and the wallet's chain is recomputed around it: the chain verifies.
      const forged: Row = {
        ...structuredClone(payout),
        id: randomUUID(),
        xid: deposit.xid,
        seq: String(BigInt(deposit.seq!) + 1n),
      };
      return [deposit, forged, ...rows.slice(1)];
    });
    const expected = `debits/POSITION_INVALID ${wallet}@1`;
    const round = named(await audit(roundId));
    expect(round.filter((f) => f.startsWith('hash-chain/'))).toEqual([]);
    expect(round).toContain(expected);
    expect(round.some((f) => f.startsWith('debits/DEBIT_CLOSED_TWICE'))).toBe(true);
    expect(named((await replay('payback.1')).verdict)).toContain(expected);
    const audited = await auditWalletOf(a);
    expect(named(audited.verdict)).toContain(expected);
    expect(audited.movements[1]!.status).toBe('suspect');
  });

  it('names a payout for a round of a shoe never shuffled, and a deposit no operator made', async () => {
    const [, b] = playersOf('payback');
    const wallet = streams.wallet(b);
    await tamper.rewrite(wallet, (rows) => {
      const payout = rows.find((row) => row.type === 'PayoutCredited')!;
      const deposit = rows[0]!;
      return [
        ...rows,
        {
          ...structuredClone(payout),
          id: randomUUID(),
          xid: null,
          seq: null,
          data: { ...payout.data, roundId: 'ghost.1.1', betId: randomUUID(), amount: 50_000 },
        },
        {
          ...structuredClone(deposit),
          id: randomUUID(),
          xid: null,
          seq: null,
          data: { ...deposit.data, reference: 'self-service', amount: 70_000 },
          metadata: { ...deposit.metadata, actor: { id: b, role: 'player' } },
        },
      ];
    });
    const last = (await tamper.rows(wallet)).length - 1;
    const audited = await auditWalletOf(b);
    expect(named(audited.verdict)).toEqual([
      `justified/MOVEMENT_UNJUSTIFIED ${wallet}@${last - 1}`,
      `justified/MOVEMENT_UNJUSTIFIED ${wallet}@${last}`,
    ]);
    expect(audited.rounds).toContainEqual({ roundId: 'ghost.1.1', exists: false, movements: 1 });
    // The round and its shoe are in no stream, yet the audit and the replay show the payout.
    expect(named(await audit('ghost.1.1'))).toContain(
      `debits/DEBIT_UNMATCHED ${wallet}@${last - 1}`,
    );
    expect((await replay('ghost.1')).verdict.ok).toBe(false);
  });
});

describe('a wallet whose movements stand on nothing the game recorded', () => {
  it('names a debit its finished round never took, once the sweep would have refunded it', async () => {
    const [a] = playersOf('forger');
    const wallet = streams.wallet(a);
    await tamper.rewrite(wallet, (rows) => {
      const debit = rows.find((row) => row.type === 'StakeDebited')!;
      return [
        ...rows,
        {
          ...structuredClone(debit),
          id: randomUUID(),
          xid: null,
          seq: null,
          data: { ...debit.data, betId: randomUUID() },
        },
      ];
    });
    const last = (await tamper.rows(wallet)).length - 1;
    const evidence = (await loadWalletEvidence(store, a))!;
    // Within the sweep's grace the debit is only open; after it, the game never took it.
    expect(named(auditWallet(evidence).verdict)).toEqual([]);
    const later = auditWallet({ ...evidence, asOf: new Date(Date.now() + 11 * 60_000) });
    expect(named(later.verdict)).toEqual([`justified/MOVEMENT_UNJUSTIFIED ${wallet}@${last}`]);
  });

  it('names payouts justified by a round stream made up in the store', async () => {
    const [, b] = playersOf('forger');
    const source = await tamper.rows(streams.round('forger.1.4'));
    await tamper.rewrite(streams.round('forger.1.99'), () =>
      source.map((row) => ({
        ...structuredClone(row),
        id: randomUUID(),
        xid: null,
        seq: null,
        data: { ...row.data, roundId: 'forger.1.99' },
      })),
    );
    const wallet = streams.wallet(b);
    await tamper.rewrite(wallet, (rows) => [
      ...rows,
      ...rows
        .filter((row) => row.data['roundId'] === 'forger.1.4')
        .map((row) => ({
          ...structuredClone(row),
          id: randomUUID(),
          xid: null,
          seq: null,
          data: { ...row.data, roundId: 'forger.1.99' },
        })),
    ]);
    const audited = auditWallet((await loadWalletEvidence(store, b))!);
    const copies = audited.movements.filter((m) => m.roundId === 'forger.1.99');
    expect(copies.length).toBeGreaterThan(1);
    for (const movement of copies) {
      expect(named(audited.verdict)).toContain(
        `justified/MOVEMENT_UNJUSTIFIED ${wallet}@${movement.revision}`,
      );
    }
  });
});

describe('against a signed checkpoint the operator published', () => {
  it('names a consistent rewrite of an open shoe that nothing else can see', async () => {
    const shoeStream = streams.shoe('anchored.1');
    await tamper.rewrite(shoeStream, (rows) => {
      // The commitment of a shoe still open: its seed is not revealed, nothing recomputes it.
      rows[0]!.data['commitment'] = 'f'.repeat(64);
      return rows;
    });
    const head = (await tamper.rows(shoeStream)).length - 1;
    const evidence = (await loadRoundEvidence(store, 'anchored.1.2'))!;
    expect(named(auditRound(evidence).verdict)).toEqual([]);
    const anchored = auditRound({ ...evidence, anchor: await anchorOf(store, checkpoint, keyId) });
    expect(named(anchored.verdict)).toEqual([`anchored/ANCHOR_MISMATCH ${shoeStream}@${head}`]);
    const replayed = replayShoe({
      ...(await loadShoeEvidence(store, 'anchored.1'))!,
      anchor: await anchorOf(store, checkpoint, keyId),
    });
    expect(named(replayed.verdict)).toEqual([`anchored/ANCHOR_MISMATCH ${shoeStream}@${head}`]);
  });

  it('names a deleted deposit, which the wallet audit alone cannot see', async () => {
    const [a] = playersOf('anchored');
    const wallet = streams.wallet(a);
    const before = await tamper.rows(wallet);
    // The deposit is deleted and the stream re-hashed: every other movement is still justified.
    await tamper.rewrite(wallet, (rows) => rows.slice(1));
    const evidence = (await loadWalletEvidence(store, a))!;
    expect(auditWallet(evidence).verdict.findings.map((f) => f.code)).not.toContain(
      'MOVEMENT_UNJUSTIFIED',
    );
    const anchored = auditWallet({ ...evidence, anchor: await anchorOf(store, checkpoint, keyId) });
    expect(named(anchored.verdict)).toContain(
      `anchored/EVENT_MISSING ${wallet}@${before.length - 1}`,
    );
  });

  it('checks the whole store: every rewritten stream named, and only against the right key', async () => {
    const report = await verifyCheckpoint(store, checkpoint, keyId);
    const found = named(report.verdict);
    expect(report.streamsChecked).toBeGreaterThan(50);
    expect(found).toContain(
      `anchored/ANCHOR_MISMATCH ${streams.shoe('anchored.1')}@${
        (await tamper.rows(streams.shoe('anchored.1'))).length - 1
      }`,
    );
    expect(found.some((f) => f.includes(streams.wallet(playersOf('anchored')[0])))).toBe(true);
    // Streams the other attacks rewrote after the checkpoint are named too; untouched ones not.
    expect(found.some((f) => f.includes('clean'))).toBe(false);
    const forged = await verifyCheckpoint(store, checkpoint, '0123456789abcdef');
    expect(forged.verdict.findings.map((f) => f.code)).toEqual(['CHECKPOINT_INVALID']);
  });

  it('names a wallet written into the past, inside what the checkpoint covers', async () => {
    const [, b] = playersOf('anchored');
    const deposit = (await tamper.rows(streams.wallet(b)))[0]!;
    await tamper.rewrite(streams.wallet('mallory'), () => [
      {
        ...structuredClone(deposit),
        id: randomUUID(),
        xid: deposit.xid,
        seq: String(BigInt(deposit.seq!) + 2n),
        data: { ...deposit.data, playerId: 'mallory', reference: 'backdated' },
      },
    ]);
    const report = await verifyCheckpoint(store, checkpoint, keyId);
    expect(named(report.verdict)).toContain('anchored/ANCHOR_MISMATCH wallet-mallory@0');
    const audited = auditWallet({
      ...(await loadWalletEvidence(store, 'mallory'))!,
      anchor: await anchorOf(store, checkpoint, keyId),
    });
    expect(named(audited.verdict)).toEqual(['anchored/ANCHOR_MISMATCH wallet-mallory@0']);
  });

  it('re-hashes every event up to the checkpoint: a raw edit below a head is named', async () => {
    const [, b] = playersOf('anchored');
    const wallet = streams.wallet(b);
    await tamper.sql(
      `UPDATE EVENTS SET data = jsonb_set(data, '{amount}', '1') WHERE stream_name = $1 AND stream_revision = 0`,
      [wallet],
    );
    const report = await verifyCheckpoint(store, checkpoint, keyId);
    expect(named(report.verdict)).toContain(`hash-chain/EVENT_EDITED ${wallet}@0`);
  });

  it('names a raw delete at the revision that is gone, in the whole-store check as in the round audit', async () => {
    const stream = streams.round('erased.1.4');
    expect((await tamper.rows(stream)).length).toBeGreaterThan(7);
    // Deleted, not re-hashed: the event after it still links to the one deleted.
    await tamper.sql(`DELETE FROM EVENTS WHERE stream_name = $1 AND stream_revision = 5`, [stream]);
    const missing = `hash-chain/EVENT_MISSING ${stream}@5`;
    const whole = named((await verifyCheckpoint(store, checkpoint, keyId)).verdict);
    expect(whole).toContain(missing);
    expect(whole).not.toContain(`hash-chain/EVENT_MISSING ${stream}@6`);
    expect(named(await audit('erased.1.4'))).toContain(missing);
  });

  it('names a movement written into the past in the round audit and the replay that use it', async () => {
    const roundId = 'clean.1.3';
    const placed = (await tamper.rows(streams.round(roundId))).find(
      (row) => row.type === 'BetPlaced',
    )!;
    const [a] = playersOf('clean');
    const debit = (await tamper.rows(streams.wallet(a))).find(
      (row) => row.type === 'StakeDebited' && row.data['roundId'] === roundId,
    )!;
    // A stake taken from a new wallet for a bet that never reached the round, placed among the
    // round's own rows, long before the checkpoint: the round notes an unrefunded debit, no more.
    await tamper.rewrite(streams.wallet('trudy'), () => [
      {
        ...structuredClone(debit),
        id: randomUUID(),
        xid: placed.xid,
        seq: String(BigInt(placed.seq!) * 1_000n),
        data: { ...debit.data, playerId: 'trudy', betId: randomUUID() },
      },
    ]);
    const forged = 'anchored/ANCHOR_MISMATCH wallet-trudy@0';
    const anchor = await anchorOf(store, checkpoint, keyId);
    const round = (await loadRoundEvidence(store, roundId))!;
    expect(round.wallet?.some((event) => event.stream === 'wallet-trudy')).toBe(true);
    expect(named(auditRound(round).verdict)).toEqual([]);
    expect(named(auditRound({ ...round, anchor }).verdict)).toEqual([forged]);
    const shoe = (await loadShoeEvidence(store, 'clean.1'))!;
    expect(named(replayShoe(shoe).verdict)).toEqual([]);
    expect(named(replayShoe({ ...shoe, anchor }).verdict)).toEqual([forged]);
    // The tools that read the wallet whole say the same.
    expect(named((await verifyCheckpoint(store, checkpoint, keyId)).verdict)).toContain(forged);
    const wallet = auditWallet({ ...(await loadWalletEvidence(store, 'trudy'))!, anchor });
    expect(named(wallet.verdict)).toContain(forged);
  });

  it('names a notary stream rewritten to hide a change, and a published head it does not lead to', async () => {
    await tamper.rewrite('notary', (rows) => {
      const changed = rows[0]!.data['changed'] as { stream: string; hash: string }[];
      changed[0]!.hash = '0'.repeat(64);
      return rows;
    });
    const report = await verifyCheckpoint(store, checkpoint, keyId);
    expect(report.verdict.ok).toBe(false);
    expect(named(report.verdict)).toContain(
      `anchored/CHECKPOINT_INVALID notary@${checkpoint.sequence - 1}`,
    );
  });
});

describe('a shoe replay', () => {
  it('names a wallet credit for a round of the shoe that does not exist', async () => {
    const [, b] = playersOf('phantom');
    const wallet = streams.wallet(b);
    await tamper.rewrite(wallet, (rows) => {
      const credit = rows.find(
        (row) => row.type === 'PayoutCredited' && row.data['roundId'] === 'phantom.1.3',
      )!;
      return [
        ...rows,
        {
          ...structuredClone(credit),
          id: randomUUID(),
          xid: null,
          seq: null,
          data: { ...credit.data, roundId: 'phantom.1.99', betId: randomUUID(), amount: 99_999 },
        },
      ];
    });
    const revision = (await tamper.rows(wallet)).length - 1;
    expect(named((await replay('phantom.1')).verdict)).toContain(
      `debits/DEBIT_UNMATCHED ${wallet}@${revision}`,
    );
  });

  it('names rows given another place in the global order', async () => {
    const stream = streams.round('moved.1.4');
    const rows = await tamper.rows(stream);
    const placed = revisionOf(rows, 'BetPlaced');
    // The BetPlaced row is moved after everything in the log: its content and chain are intact.
    await tamper.sql(
      `UPDATE EVENTS SET transaction_id = ((SELECT max(transaction_id::text::bigint) FROM EVENTS) + 1)::text::xid8
        WHERE stream_name = $1 AND stream_revision = $2`,
      [stream, placed],
    );
    const found = named((await replay('moved.1')).verdict);
    expect(found.filter((f) => f.startsWith('hash-chain/EVENT_'))).toEqual([]);
    expect(found).toContain(`hash-chain/POSITION_INVALID ${stream}@${placed + 1}`);
  });

  it('names a whole shoe rewritten consistently only against the values the operator published', async () => {
    const shoeId = 'rewritten.1';
    const shoe = await tamper.rows(streams.shoe(shoeId));
    const closed = shoe.find((row) => row.type === 'ShoeClosed')!;
    const published: PublishedValues = {
      commitment: String(shoe[0]!.data['commitment']),
      digest: (closed.data['digest'] as { value: string }).value,
    };
    // A winning bet is made ten times larger everywhere: its BetPlaced, its settlement line and
    // totals (recomputed with the paytable), its debit and its payout; then every hash, and the
    // ShoeClosed digest over the new heads.
    const roundId = 'rewritten.1.3';
    const round = await tamper.rows(streams.round(roundId));
    const { rules, outcome } = outcomeOf(round);
    const settled = round.find((row) => row.type === 'RoundSettled')!;
    const line = settlementOf(settled).lines.find((l) => l.result === 'win')!;
    const stake = line.stake * 10;
    const paid = settleBet(
      { type: line.type, stake, bankerMode: line.bankerMode ?? undefined },
      outcome,
      rules,
    );
    await tamper.rewrite(streams.round(roundId), (rows) => {
      for (const row of rows) {
        if (row.type === 'BetPlaced' && row.data['betId'] === line.betId)
          row.data['amount'] = stake;
        if (row.type !== 'RoundSettled') continue;
        const { lines, spots, totals } = settlementOf(row);
        const own = lines.find((l) => l.betId === line.betId)!;
        totals.staked += stake - own.stake;
        totals.paidOut += paid.payout - own.payout;
        totals.commission += paid.commission - own.commission;
        Object.assign(own, { stake, payout: paid.payout, commission: paid.commission });
        // The bet is the only chip on its spot: the spot is paid as the bet.
        const spot = spots!.find((each) => each.betIds.includes(line.betId))!;
        expect(spot.betIds).toEqual([line.betId]);
        Object.assign(spot, { stake, payout: paid.payout, commission: paid.commission });
      }
      return rows;
    });
    await tamper.rewrite(streams.wallet(line.playerId), (rows) => {
      for (const row of rows) {
        if (row.data['betId'] !== line.betId) continue;
        row.data['amount'] = row.type === 'StakeDebited' ? stake : paid.payout;
      }
      return rows;
    });
    await tamper.reseal(shoeId);

    // From the database alone the rewrite is consistent: nothing is left to contradict it.
    expect(named((await replay(shoeId)).verdict)).toEqual([]);
    // The digest the operator published when the shoe closed does contradict it.
    const checked = await replay(shoeId, published);
    const closedAt = revisionOf(await tamper.rows(streams.shoe(shoeId)), 'ShoeClosed');
    expect(named(checked.verdict)).toEqual([
      `published/DIGEST_MISMATCH ${streams.shoe(shoeId)}@${closedAt}`,
    ]);
    expect(checked.verdict.findings[0]).toMatchObject({
      expected: published.digest,
    });
  });
});

describe('the round lifecycle, in a shoe still open (nothing sealed yet)', () => {
  it('names a bet placed after the round completed (past-posting), paid and re-hashed', async () => {
    const roundId = 'late.1.2';
    const stream = streams.round(roundId);
    const round = await tamper.rows(stream);
    const [, b] = playersOf('late');
    const { placed, line } = winningBet(round, b);
    const completedAt = revisionOf(round, 'RoundCompleted');
    // Same transaction as RoundCompleted, a later sequence: the global order agrees too.
    const completed = round[completedAt]!;
    placed.xid = completed.xid;
    placed.seq = String(BigInt(completed.seq!) * 1_000n);
    await tamper.rewrite(stream, (rows) => {
      addLine(
        rows.find((row) => row.type === 'RoundSettled')!,
        line,
      );
      rows.splice(completedAt + 1, 0, placed);
      return rows;
    });
    const found = named(await audit(roundId));
    expect(found).toContain(`lifecycle/LIFECYCLE_VIOLATION ${stream}@${completedAt + 1}`);
  });

  it('names a bet recorded twice and a round completed twice', async () => {
    const twiceBet = streams.round('twice.1.1');
    const rows = await tamper.rows(twiceBet);
    const placed = revisionOf(rows, 'BetPlaced');
    await tamper.rewrite(twiceBet, (list) => {
      list.splice(placed + 1, 0, {
        ...structuredClone(list[placed]!),
        id: randomUUID(),
        xid: null,
        seq: null,
      });
      return list;
    });
    expect(named(await audit('twice.1.1'))).toContain(
      `lifecycle/EVENT_DUPLICATED ${twiceBet}@${placed + 1}`,
    );

    const twiceDone = streams.round('twice.1.2');
    const done = revisionOf(await tamper.rows(twiceDone), 'RoundCompleted');
    await tamper.rewrite(twiceDone, (list) => {
      list.splice(done + 1, 0, {
        ...structuredClone(list[done]!),
        id: randomUUID(),
        xid: null,
        seq: null,
      });
      return list;
    });
    expect(named(await audit('twice.1.2'))).toContain(
      `lifecycle/LIFECYCLE_VIOLATION ${twiceDone}@${done + 1}`,
    );
  });

  it('names cards dealt while betting was still open', async () => {
    const stream = streams.round('early.1.2');
    const rows = await tamper.rows(stream);
    const firstCard = revisionOf(rows, 'CardDealt');
    await tamper.rewrite(stream, (list) => {
      const [closed] = list.splice(revisionOf(list, 'BettingClosed'), 1);
      list.splice(revisionOf(list, 'RoundCompleted') + 1, 0, closed!);
      return list;
    });
    // BettingClosed stood just before the first card: every card moves up one revision.
    const found = named(await audit('early.1.2'));
    expect(found).toContain(`lifecycle/LIFECYCLE_VIOLATION ${stream}@${firstCard - 1}`);
  });

  it('names a bet inserted as new rows: the global order contradicts the stream order', async () => {
    const roundId = 'posted.1.2';
    const stream = streams.round(roundId);
    const round = await tamper.rows(stream);
    const [, b] = playersOf('posted');
    const { placed, line } = winningBet(round, b);
    const closedAt = revisionOf(round, 'BettingClosed');
    await tamper.rewrite(stream, (rows) => {
      addLine(
        rows.find((row) => row.type === 'RoundSettled')!,
        line,
      );
      rows.splice(closedAt, 0, placed);
      return rows;
    });
    const wallet = streams.wallet(b);
    const debit = (await tamper.rows(wallet)).find(
      (row) => row.type === 'StakeDebited' && row.data['roundId'] === roundId,
    )!;
    await tamper.rewrite(wallet, (rows) => [
      ...rows,
      {
        ...structuredClone(debit),
        id: randomUUID(),
        xid: null,
        seq: null,
        data: { ...debit.data, betId: line.betId, amount: line.stake },
      },
    ]);
    const debitAt = (await tamper.rows(wallet)).length - 1;
    const found = named(await audit(roundId));
    // Every lifecycle rule holds: the bet is recorded while betting was open.
    expect(found.filter((f) => f.startsWith('lifecycle/'))).toEqual([]);
    // But its row is younger than the BettingClosed after it, and it was debited after it was
    // placed: new rows take new global positions, which no hash covers but the log keeps.
    expect(found).toContain(`hash-chain/POSITION_INVALID ${stream}@${closedAt + 1}`);
    expect(found).toContain(`debits/POSITION_INVALID ${wallet}@${debitAt}`);
  });
});

describe('an exported file', () => {
  let text: string;
  let published: PublishedValues;
  const data = (event: { data: unknown }) => event.data as Record<string, unknown>;

  beforeAll(async () => {
    const evidence = (await loadShoeEvidence(store, 'clean.1'))!;
    text = JSON.stringify(exportShoe(evidence));
    const file = JSON.parse(text) as ShoeExport;
    const closed = file.shoe.find((e) => e.type === 'ShoeClosed')!;
    published = {
      commitment: String(data(file.shoe[0]!)['commitment']),
      digest: (data(closed)['digest'] as { value: string }).value,
    };
  });

  const edited = (edit: (file: ShoeExport) => void): string => {
    const file = JSON.parse(text) as ShoeExport;
    edit(file);
    return JSON.stringify(file);
  };

  it('verifies untouched, and against the values the operator published', () => {
    const result = verifyExport(text, { published });
    expect(named(result.verdict)).toEqual([]);
    expect(result.verdict.checks.find((c) => c.check === 'published')?.status).toBe('pass');
    expect(result.verdict.checks.find((c) => c.check === 'export-file')?.status).toBe('pass');
  });

  it('cut short before its close: a consistent prefix, named against the published digest', () => {
    let cutAt = -1;
    const cut = edited((file) => {
      const drawn = file.shoe.filter((e) => e.type === 'CardsDrawn');
      const last = Math.max(...drawn.map((e) => Number(data(e)['roundNumber'])));
      cutAt = file.shoe.findIndex(
        (e) => e.type === 'CardsDrawn' && data(e)['roundNumber'] === last,
      );
      file.shoe = file.shoe.slice(0, cutAt);
      file.rounds = file.rounds.filter((r) => !r.roundId.endsWith(`.${last}`));
      file.wallet = file.wallet.filter((e) => !String(data(e)['roundId']).endsWith(`.${last}`));
    });
    // The export carries the next shoe's ShoeShuffled: a shoe that has a successor was closed.
    expect(named(verifyExport(cut).verdict)).toEqual([
      `digest/EVENT_MISSING shoe-clean.1@${cutAt}`,
    ]);
    // Whoever edits the file drops that too; a prefix of a valid log is valid on its own.
    const prefix = edited((file) => {
      Object.assign(file, JSON.parse(cut) as ShoeExport, { nextShoe: null });
    });
    expect(verifyExport(prefix).verdict.ok).toBe(true);
    const checked = verifyExport(prefix, { published });
    expect(named(checked.verdict)).toEqual([`published/EVENT_MISSING shoe-clean.1@${cutAt}`]);
  });

  it('names edited instructions and fields an export does not have', () => {
    const instructions = verifyExport(
      edited((file) => {
        file.instructions[1] = 'Hash chains: nothing to check, the operator vouches for them.';
      }),
    );
    expect(named(instructions.verdict)).toEqual(['export-file/EXPORT_INVALID -@-']);
    expect(instructions.verdict.findings[0]!.message).toMatch(/instruction 2/);
    const verdict = verifyExport(
      edited((file) => {
        Object.assign(file, { verdict: { ok: true } });
      }),
    );
    expect(named(verdict.verdict)).toEqual(['export-file/EXPORT_INVALID -@-']);
    expect(verdict.verdict.findings[0]!.message).toMatch(/verdict/);
  });

  it('names a round listed twice, an event filed under another stream, and an edited position', () => {
    const twice = verifyExport(
      edited((file) => {
        file.rounds.push(structuredClone(file.rounds[2]!));
      }),
    );
    expect(named(twice.verdict)).toContain('hash-chain/EVENT_DUPLICATED round-clean.1.3@-');

    const moved = verifyExport(
      edited((file) => {
        file.rounds[2]!.events[1]!.stream = 'round-clean.1.9';
      }),
    );
    expect(named(moved.verdict)).toContain('event-schema/WRONG_STREAM round-clean.1.3@1');

    const position = verifyExport(
      edited((file) => {
        file.rounds[2]!.events[1]!.position = '1';
      }),
    );
    expect(named(position.verdict)).toContain('hash-chain/POSITION_INVALID round-clean.1.3@1');
  });
});
