import type { Card } from '@croupier/baccarat';
import { presetConfig, streams, type TableConfig } from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApp,
  GAME_RECALL_COLUMNS,
  rebuildProjections,
  snapshotOf,
  type HistoryRecord,
} from '../src/index.js';
import {
  as,
  openRoundWhenFree,
  placeBetsAs,
  playScannedRound,
  startCasino,
  waitForWallets,
  type Casino,
} from './support/casino.js';
import { eventually } from './support/settlement-play.js';

/**
 * Game recall after disputes, on a real PostgreSQL: one player, pia, plays rounds that are
 * voided after settlement (at once, after a commission collection, and after she played on
 * elsewhere), a round whose card a supervisor corrects after settlement (a Player win becomes a
 * tie), ordinary rounds, a round left paused and one still taking bets. Her recall (API and CSV)
 * must show the truth after each, with balances the wallet really held, chaining to its balance.
 */
let postgres: IsolatedPostgres;
let store: EventStore;
let casino: Casino;
let app: HttpApp;
let operator: string;
const PIA = 'pia';
const dealer = as('dan', 'dealer');
const supervisor = as('sue', 'supervisor');
const rounds: Record<'A' | 'B' | 'C' | 'S' | 'F' | 'G' | 'D' | 'E', string> = {
  A: '',
  B: '',
  C: '',
  S: '',
  F: '',
  G: '',
  D: '',
  E: '',
};

const openRound = async (tableId: string) =>
  (await openRoundWhenFree(casino.system, tableId)).roundId;
const bet = (roundId: string, bets: { type: string; amount: number; seat?: number }[]) =>
  placeBetsAs(casino.system, roundId, PIA, bets);

/** An rng round: bets, dealt, settled and paid. */
async function playRng(tableId: string, bets: { type: string; amount: number }[]) {
  const roundId = await openRound(tableId);
  await bet(roundId, bets);
  await casino.system.rounds.closeBetting(roundId, dealer);
  await casino.system.rounds.deal(roundId, dealer);
  await waitForWallets(casino.system, [PIA]);
  return roundId;
}

const playScanned = (
  tableId: string,
  bets: { type: string; amount: number; seat?: number }[],
  cards: readonly Card[],
) => playScannedRound(casino.system, tableId, PIA, bets, cards);

/**
 * Waits until settlement resettled the round as often as given and the wallet applied every
 * line of it that moves money (the bus delivers them after the round records them).
 */
async function resettled(roundId: string, times: number): Promise<void> {
  await eventually(async () => {
    const round = await store.readStream(streams.round(roundId));
    const resettlements = round.filter((e) => e.type === 'RoundResettled');
    expect(resettlements).toHaveLength(times);
    const moving = resettlements.flatMap((e) =>
      (
        e.data as {
          adjustments: {
            delta: number;
            commission: number;
            previousCommission: number;
            commissionMode: string;
          }[];
        }
      ).adjustments.filter(
        (a) =>
          a.delta !== 0 ||
          (a.commissionMode === 'accrued' && a.commission !== a.previousCommission),
      ),
    );
    const wallet = await store.readStream(streams.wallet(PIA));
    const applied = wallet.filter(
      (e) => e.type === 'PayoutAdjusted' && (e.data as { roundId: string }).roundId === roundId,
    );
    expect(applied).toHaveLength(moving.length);
  });
  await casino.system.sync();
}

function table(tableId: string, config: TableConfig) {
  return casino.system.rounds.openTable(
    { tableId, config, dealing: { mode: 'manual', bettingWindowMs: 0 } },
    as('olga', 'operator'),
  );
}

beforeAll(async () => {
  postgres = await isolatedPostgres('recall');
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  casino = await startCasino(store);
  app = await buildApp(casino.system);
  operator = await casino.system.tokens.issue({ id: 'olga', role: 'operator' });
  const { system } = casino;
  const scanner = { cardSource: 'scanner', burn: false } as const;
  await table('rng', presetConfig('generic'));
  await table('scan', presetConfig('generic', scanner));
  await table('salon', presetConfig('land-based', scanner));
  await system.rounds.takeSeat('salon', PIA, 3, as(PIA, 'player'));
  await system.wallets.deposit(
    { playerId: PIA, amount: 100_000, currency: 'EUR', reference: 'first' },
    as('olga', 'operator'),
  );

  // A: voided after settlement; the tie bet makes sure some payout changes whatever was dealt.
  rounds.A = await playRng('rng', [
    { type: 'player', amount: 1_000 },
    { type: 'banker', amount: 1_000 },
    { type: 'tie', amount: 100 },
  ]);
  await system.rounds.void(rounds.A, 'dealer exposed a card early', supervisor);
  await resettled(rounds.A, 1);

  // B: Player 9C KH (natural 9) beats Banker 2D 3S; video shows the 3S was a 7S: a tie.
  rounds.B = await playScanned(
    'scan',
    [
      { type: 'player', amount: 2_000 },
      { type: 'banker', amount: 1_000 },
    ],
    ['9C', '2D', 'KH', '3S'],
  );
  const position = (await system.rounds.getRound(rounds.B)).banker[1]!.shoePosition;
  await system.rounds.correctCard(
    rounds.B,
    { shoePosition: position, card: '7S', reason: 'video review' },
    supervisor,
  );
  await resettled(rounds.B, 1);

  // A deposit between two rounds: a movement of no round.
  await system.wallets.deposit(
    { playerId: PIA, amount: 5_000, currency: 'EUR', reference: 'top-up' },
    as('olga', 'operator'),
  );
  rounds.C = await playRng('rng', [{ type: 'player', amount: 500 }]);

  // S: a seat's Banker win (Banker 9C KH natural against Player 2D 3S), commission accrued and
  // collected at the dealer change, then the round voided: the commission comes back too.
  rounds.S = await playScanned(
    'salon',
    [{ type: 'banker', amount: 2_000, seat: 3 }],
    ['2D', '9C', '3S', 'KH'],
  );
  await system.rounds.changeDealer('salon', 'dora', supervisor);
  await eventually(async () => {
    expect((await system.wallets.getWallet(PIA)).commissionOwed).toBe(0);
  });
  await system.rounds.void(rounds.S, 'wrong shoe', supervisor);
  await resettled(rounds.S, 1);

  // F is voided only after pia played G at another table: a late adjustment.
  rounds.F = await playRng('rng', [
    { type: 'player', amount: 1_000 },
    { type: 'tie', amount: 100 },
  ]);
  rounds.G = await playScanned(
    'scan',
    [{ type: 'player', amount: 1_000 }],
    ['9C', '2D', 'KH', '3S'],
  );
  await system.rounds.void(rounds.F, 'procedure error found on review', supervisor);
  await resettled(rounds.F, 1);

  // D paused (interrupted), E still taking bets (in progress).
  rounds.D = await openRound('rng');
  await bet(rounds.D, [{ type: 'player', amount: 700 }]);
  await system.rounds.pause(rounds.D, 'card reader jammed', supervisor);
  rounds.E = await openRound('scan');
  await bet(rounds.E, [{ type: 'banker', amount: 300 }]);
  await system.sync();
}, 240_000);

afterAll(async () => {
  await app.close();
  await casino.close();
  await store.close();
  await postgres.drop();
});

async function recall(): Promise<HistoryRecord[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/v1/players/${PIA}/history?limit=100`,
    headers: { authorization: `Bearer ${operator}` },
  });
  expect(response.statusCode).toBe(200);
  return response.json<HistoryRecord[]>();
}

async function recordOf(round: keyof typeof rounds): Promise<HistoryRecord> {
  const record = (await recall()).find((r) => r.roundId === rounds[round]);
  if (record === undefined) throw new Error(`no record of ${round}`);
  return record;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted && char === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      row.push(field);
      field = '';
    } else if (!quoted && char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += char;
    }
  }
  return rows;
}

async function csvRows(): Promise<Map<string, Record<string, string>>> {
  const response = await app.inject({
    method: 'GET',
    url: `/v1/players/${PIA}/history.csv`,
    headers: { authorization: `Bearer ${operator}` },
  });
  expect(response.statusCode).toBe(200);
  const [header, ...rows] = parseCsv(response.body);
  expect(header).toEqual([...GAME_RECALL_COLUMNS]);
  return new Map(
    rows.map((cells) => [
      cells[0]!,
      Object.fromEntries(GAME_RECALL_COLUMNS.map((name, i) => [name, cells[i]!])),
    ]),
  );
}

describe('game recall after a void after settlement', () => {
  it('shows the round voided, every bet back to its stake, and what was first paid', async () => {
    const a = await recordOf('A');
    expect(a.status).toBe('voided');
    expect(a.adjusted).toBe(true);
    expect(a.result?.player.cards.length).toBeGreaterThanOrEqual(2);
    expect(a.stakes).toBe(2_100);
    expect(a.payout).toBe(2_100);
    expect(a.commission).toBe(0);
    for (const b of a.bets) {
      expect(b).toMatchObject({ result: 'refunded', payout: b.amount, commission: 0 });
    }
    // What the first settlement paid is still there, bet by bet.
    const originally = a.bets.map((b) => b.original?.payout ?? b.amount);
    expect(a.original?.payout).toBe(originally.reduce((sum, p) => sum + p, 0));
    expect(a.original?.result).toEqual(a.result);
    expect(a.original?.balanceAfter).toBe(a.balanceBefore - 2_100 + a.original!.payout);
    expect(a.adjustments).toEqual([
      expect.objectContaining({
        kind: 'void',
        reason: 'dealer exposed a card early',
        delta: 2_100 - a.original!.payout,
        balanceBefore: a.original!.balanceAfter,
        balanceAfter: a.balanceBefore,
      }),
    ]);
    // A void leaves the player where she was.
    expect(a.balanceAfter).toBe(a.balanceBefore);
  });

  it('gives back commission collected since (accrued-commission seat)', async () => {
    const s = await recordOf('S');
    expect(s).toMatchObject({ status: 'voided', adjusted: true, stakes: 2_000, payout: 2_000 });
    expect(s.result).toMatchObject({ winner: 'banker', banker: { cards: ['9C', 'KH'] } });
    expect(s.bets).toEqual([
      expect.objectContaining({
        result: 'refunded',
        payout: 2_000,
        commission: 0,
        original: { result: 'win', payout: 4_000, commission: 100 },
      }),
    ]);
    expect(s.original).toMatchObject({ payout: 4_000, commission: 100 });
    expect(s.original?.balanceAfter).toBe(s.balanceBefore + 2_000);
    // The 100 collected at the dealer change is a movement of no round; the void returns it.
    const [adjustment] = s.adjustments;
    expect(adjustment).toMatchObject({ delta: -2_000, commissionDelta: -100 });
    expect(adjustment?.balanceBefore).toBe(s.original!.balanceAfter - 100);
    expect(adjustment?.balanceAfter).toBe(s.balanceBefore);
    expect(s.balanceAfter).toBe(s.balanceBefore);
  });
});

describe('game recall after a card corrected after settlement', () => {
  it('shows the corrected cards and result, the push, and the original win beside them', async () => {
    const b = await recordOf('B');
    expect(b.status).toBe('complete');
    expect(b.adjusted).toBe(true);
    expect(b.result).toEqual({
      winner: 'tie',
      player: { cards: ['9C', 'KH'], total: 9 },
      banker: { cards: ['2D', '7S'], total: 9 },
    });
    expect(b.original?.result).toEqual({
      winner: 'player',
      player: { cards: ['9C', 'KH'], total: 9 },
      banker: { cards: ['2D', '3S'], total: 5 },
    });
    expect(b.corrections).toEqual([
      expect.objectContaining({ previous: '3S', card: '7S', reason: 'video review' }),
    ]);
    expect(b.bets.map((x) => [x.type, x.result, x.payout, x.original])).toEqual([
      ['player', 'push', 2_000, { result: 'win', payout: 4_000, commission: 0 }],
      ['banker', 'push', 1_000, { result: 'lose', payout: 0, commission: 0 }],
    ]);
    expect(b).toMatchObject({ stakes: 3_000, payout: 3_000, commission: 0 });
    expect(b.original).toMatchObject({ payout: 4_000, commission: 0 });
    expect(b.adjustments).toEqual([
      expect.objectContaining({ kind: 'correction', reason: 'video review', delta: -1_000 }),
    ]);
    expect(b.original?.balanceAfter).toBe(b.balanceBefore + 1_000);
    expect(b.balanceAfter).toBe(b.balanceBefore);
  });
});

describe('balances in the recall', () => {
  it('chain from round to round and end at the wallet balance', async () => {
    const [a, b, c, s, f, g, d, e] = await Promise.all(
      (['A', 'B', 'C', 'S', 'F', 'G', 'D', 'E'] as const).map(recordOf),
    );
    expect(a!.balanceBefore).toBe(100_000);
    expect(b!.balanceBefore).toBe(a!.balanceAfter);
    expect(c!.balanceBefore).toBe(b!.balanceAfter + 5_000); // the top-up in between
    expect(s!.balanceBefore).toBe(c!.balanceAfter);
    expect(f!.balanceBefore).toBe(s!.balanceAfter);
    // F was voided after G: F's first settlement is what G started from, G ended where F's
    // adjustment began, and F's balance after is the balance after its adjustment.
    expect(g!.balanceBefore).toBe(f!.original!.balanceAfter);
    expect(f!.adjustments[0]!.balanceBefore).toBe(g!.balanceAfter);
    expect(f!.balanceAfter).toBe(f!.adjustments[0]!.balanceAfter);
    expect(d!.balanceBefore).toBe(f!.balanceAfter);
    expect(e!.balanceBefore).toBe(d!.balanceAfter);
    const wallet = await casino.system.wallets.getWallet(PIA);
    expect(e!.balanceAfter).toBe(wallet.balance);
    expect(await casino.system.history.balanceOf(PIA)).toBe(wallet.balance);
    // Where nothing else moved the wallet in a round's span, its figures add up on their own.
    for (const record of [a, b, c, g, d, e])
      expect(record!.balanceAfter, record!.roundId).toBe(
        record!.balanceBefore - record!.stakes + record!.payout + record!.refunded,
      );
    expect(f!.balanceAfter - f!.balanceBefore).toBe(
      g!.balanceAfter - g!.balanceBefore + f!.payout - f!.stakes,
    );
  });

  it('names the status of every round: voided, complete, interrupted, in progress', async () => {
    const records = await recall();
    expect(records.map((r) => r.roundId)).toEqual(
      (['E', 'D', 'G', 'F', 'S', 'C', 'B', 'A'] as const).map((k) => rounds[k]),
    );
    expect(records.map((r) => r.status)).toEqual([
      'in-progress',
      'interrupted',
      'complete',
      'voided',
      'voided',
      'complete',
      'complete',
      'voided',
    ]);
    const [e, d] = records;
    expect(e).toMatchObject({ stakes: 300, result: null, finishedAt: null, adjusted: false });
    expect(e!.bets).toEqual([expect.objectContaining({ result: null, payout: null })]);
    expect(d).toMatchObject({ stakes: 700, result: null, finishedAt: null, original: null });
    expect(d!.balanceAfter).toBe(d!.balanceBefore - 700);
  });
});

describe('the CSV export', () => {
  it('says what the API says, final figures first and the original ones beside them', async () => {
    const rows = await csvRows();
    const records = await recall();
    expect(rows.size).toBe(records.length);
    for (const record of records) {
      const row = rows.get(record.roundId)!;
      expect(row['status']).toBe(record.status);
      expect(Number(row['stakes'])).toBe(record.stakes);
      expect(Number(row['payouts'])).toBe(record.payout);
      expect(Number(row['commission'])).toBe(record.commission);
      expect(Number(row['balance_before'])).toBe(record.balanceBefore);
      expect(Number(row['balance_after'])).toBe(record.balanceAfter);
      expect(row['adjusted']).toBe(String(record.adjusted));
      expect(row['original_payouts']).toBe(record.original ? String(record.original.payout) : '');
    }
    const b = rows.get(rounds.B)!;
    expect(b).toMatchObject({
      status: 'complete',
      player_cards: '9C KH',
      banker_cards: '2D 7S',
      banker_total: '9',
      result: 'tie',
      payouts: '3000',
      adjusted: 'true',
      original_banker_cards: '2D 3S',
      original_result: 'player',
      original_payouts: '4000',
      adjustment: '-1000',
      bets: 'player 20.00 EUR: push 20.00 EUR (was win 40.00 EUR); banker 10.00 EUR: push 10.00 EUR (was lose 0.00 EUR)',
    });
    expect(b['corrections']).toMatch(/^\d+: 3S -> 7S \(video review\)$/);
    expect(b['adjusted_at']).toMatch(/^\d{4}-\d\d-\d\dT/);
    const a = rows.get(rounds.A)!;
    expect(a).toMatchObject({ status: 'voided', payouts: '2100', adjusted: 'true' });
    expect(a['bets']).toMatch(/^player 10.00 EUR: refunded 10.00 EUR/);
    const c = rows.get(rounds.C)!;
    expect(c).toMatchObject({ adjusted: 'false', original_payouts: '', adjustment: '' });
  });
});

describe('rebuilding the recall', () => {
  it('from the log gives the live recall, and so does POST /v1/admin/rebuild', async () => {
    await casino.system.sync();
    const live = await snapshotOf({ history: casino.system.history }, [PIA]);
    const rebuilt = await rebuildProjections(store, ['player-history']);
    expect(rebuilt.failures).toEqual([]);
    expect(await snapshotOf({ history: rebuilt.history }, [PIA])).toEqual(live);
    expect(await rebuilt.history?.balanceOf(PIA)).toBe(await casino.system.history.balanceOf(PIA));
    const response = await app.inject({
      method: 'POST',
      url: '/v1/admin/rebuild',
      headers: { authorization: `Bearer ${operator}` },
    });
    expect(response.statusCode).toBe(200);
    expect(await snapshotOf({ history: casino.system.history }, [PIA])).toEqual(live);
  });
});
