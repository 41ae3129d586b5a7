import { randomUUID } from 'node:crypto';
import type { Card } from '@croupier/baccarat';
import {
  auditRound,
  replayShoe,
  type RoundAudit,
  type ShoeReplay,
  type Verdict,
} from '@croupier/audit';
import {
  formatMoney,
  parseRoundId,
  presetConfig,
  streams,
  type TableConfig,
} from '@croupier/contracts';
import { createEventStore, untilReadable, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoundEvidence, loadShoeEvidence, rebuildProjections } from '../src/index.js';
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
import { SqlTamper, type Row } from './support/sql-tamper.js';
import { named } from './support/tamper.js';

/**
 * Disputes after settlement (ADR 0009) audited on a real PostgreSQL: rounds voided after they
 * were settled, a round whose card a supervisor corrected after settlement, and a seat's round
 * voided after its commission was collected. The audit recomputes every resettlement from the
 * rules and the recorded cards and checks each against the wallets' payout adjustments; then an
 * insider tampers with them in SQL (re-hashing what they change) and each tampering is named.
 */
let postgres: IsolatedPostgres;
let store: EventStore;
let casino: Casino;
let tamper: SqlTamper;
const dealer = as('dan', 'dealer');
const supervisor = as('sue', 'supervisor');
/** V, M, X: voided after settlement (rng); C: corrected after settlement; S: a seat's void. */
const rounds = { V: '', M: '', X: '', C: '', S: '' };
const PLAYERS = { V: 'pia', M: 'rex', X: 'sam', C: 'pia', S: 'pia' } as const;
/** Where the corrected card of C sits in the shoe. */
let correctedPosition = 0;

const openRound = async (tableId: string) =>
  (await openRoundWhenFree(casino.system, tableId)).roundId;
const bet = (roundId: string, playerId: string, bets: { type: string; amount: number }[]) =>
  placeBetsAs(casino.system, roundId, playerId, bets);

/** An rng round voided once settled and paid; the tie bet moves money whatever was dealt. */
async function voidedAfterSettlement(playerId: string): Promise<string> {
  const roundId = await openRound('rng');
  await bet(roundId, playerId, [
    { type: 'player', amount: 1_000 },
    { type: 'tie', amount: 100 },
  ]);
  await casino.system.rounds.closeBetting(roundId, dealer);
  await casino.system.rounds.deal(roundId, dealer);
  await waitForWallets(casino.system, [playerId]);
  await casino.system.rounds.void(roundId, 'dealer exposed a card early', supervisor);
  await resettled(roundId, playerId);
  return roundId;
}

const playScanned = (
  tableId: string,
  playerId: string,
  bets: { type: string; amount: number; seat?: number }[],
  cards: readonly Card[],
) => playScannedRound(casino.system, tableId, playerId, bets, cards);

/** Waits until the round is resettled and the wallet applied every line that moves money. */
async function resettled(roundId: string, playerId: string): Promise<void> {
  await eventually(async () => {
    const round = await store.readStream(streams.round(roundId));
    const lines = round
      .filter((e) => e.type === 'RoundResettled')
      .flatMap(
        (e) =>
          (
            e.data as {
              adjustments: { delta: number; commission: number; previousCommission: number }[];
            }
          ).adjustments,
      )
      .filter((a) => a.delta !== 0 || a.commission !== a.previousCommission);
    expect(lines.length).toBeGreaterThan(0);
    const wallet = await store.readStream(streams.wallet(playerId));
    const applied = wallet.filter(
      (e) => e.type === 'PayoutAdjusted' && (e.data as { roundId: string }).roundId === roundId,
    );
    expect(applied).toHaveLength(lines.length);
  });
}

function table(tableId: string, config: TableConfig) {
  return casino.system.rounds.openTable(
    { tableId, config, dealing: { mode: 'manual', bettingWindowMs: 0 } },
    as('olga', 'operator'),
  );
}

async function audit(roundId: string): Promise<RoundAudit> {
  await untilReadable(store);
  const evidence = await loadRoundEvidence(store, roundId);
  if (evidence === null) throw new Error(`no round ${roundId}`);
  return auditRound(evidence);
}

async function replay(roundId: string): Promise<ShoeReplay> {
  await untilReadable(store);
  const evidence = await loadShoeEvidence(store, parseRoundId(roundId).shoeId);
  if (evidence === null) throw new Error(`no shoe of ${roundId}`);
  return replayShoe(evidence);
}

const revisionOf = (rows: readonly Row[], type: string): number =>
  rows.findIndex((row) => row.type === type);

/** The findings about these streams (a shoe replay also names the other rounds' tampering). */
const about = (verdict: Verdict, ...ofStreams: string[]): string[] =>
  named(verdict).filter((finding) => ofStreams.some((stream) => finding.includes(` ${stream}@`)));

beforeAll(async () => {
  postgres = await isolatedPostgres('disputes');
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  tamper = new SqlTamper(postgres, store);
  casino = await startCasino(store);
  const { system } = casino;
  const scanner = { cardSource: 'scanner', burn: false } as const;
  await table('rng', presetConfig('generic'));
  await table('scan', presetConfig('generic', scanner));
  await table('salon', presetConfig('land-based', scanner));
  await system.rounds.takeSeat('salon', PLAYERS.S, 3, as(PLAYERS.S, 'player'));
  for (const playerId of ['pia', 'rex', 'sam']) {
    await system.wallets.deposit(
      { playerId, amount: 100_000, currency: 'EUR', reference: `${playerId}-first` },
      as('olga', 'operator'),
    );
  }
  rounds.V = await voidedAfterSettlement(PLAYERS.V);
  rounds.M = await voidedAfterSettlement(PLAYERS.M);
  rounds.X = await voidedAfterSettlement(PLAYERS.X);

  // C: Player 9C KH (natural 9) beats Banker 2D 3S; the video shows the 3S was a 7S: a tie.
  rounds.C = await playScanned(
    'scan',
    PLAYERS.C,
    [
      { type: 'player', amount: 2_000 },
      { type: 'banker', amount: 1_000 },
    ],
    ['9C', '2D', 'KH', '3S'],
  );
  correctedPosition = (await system.rounds.getRound(rounds.C)).banker[1]!.shoePosition;
  await system.rounds.correctCard(
    rounds.C,
    { shoePosition: correctedPosition, card: '7S', reason: 'video review' },
    supervisor,
  );
  await resettled(rounds.C, PLAYERS.C);

  // S: a seat's Banker natural win, its commission accrued and collected at the dealer change,
  // then the round voided: the winnings go back and the commission comes back.
  rounds.S = await playScanned(
    'salon',
    PLAYERS.S,
    [{ type: 'banker', amount: 2_000, seat: 3 }],
    ['2D', '9C', '3S', 'KH'],
  );
  await system.rounds.changeDealer('salon', 'dora', supervisor);
  await eventually(async () => {
    expect((await system.wallets.getWallet(PLAYERS.S)).commissionOwed).toBe(0);
  });
  await system.rounds.void(rounds.S, 'wrong shoe', supervisor);
  await resettled(rounds.S, PLAYERS.S);
  await system.sync();
}, 240_000);

afterAll(async () => {
  await casino.close();
  await store.close();
  await postgres.drop();
});

describe('a round voided after settlement', () => {
  it('audits as VERIFIED: every bet back to its stake, each difference applied once', async () => {
    const report = await audit(rounds.V);
    expect(named(report.verdict)).toEqual([]);
    expect(report.verdict.ok).toBe(true);
    expect(report.verdict.notes).toEqual([]);
    expect(report.status).toBe('voided');
    const checks = Object.fromEntries(report.verdict.checks.map((c) => [c.check, c]));
    expect(checks['payouts']?.status).toBe('pass');
    expect(checks['debits']?.status).toBe('pass');
    // Not "its refunds are not recorded yet": none ever will be, the stakes come back by
    // resettlement.
    expect(checks['refunds']).toMatchObject({ status: 'pass' });
    expect(checks['refunds']?.detail).toMatch(/resettlement/);
    for (const b of report.bets) {
      expect(b.final).toMatchObject({
        result: 'refund',
        payout: b.amount,
        commission: 0,
        expected: { result: 'refund', payout: b.amount, commission: 0 },
      });
      expect(b.adjustments).toHaveLength(1);
      expect(b.adjustments[0]!.recorded).toEqual(b.adjustments[0]!.expected);
    }
    const tie = report.bets.find((b) => b.type === 'tie')!;
    const adjusted = report.wallet?.filter((m) => m.type === 'PayoutAdjusted') ?? [];
    expect(adjusted.find((m) => m.betId === tie.betId)).toMatchObject({
      amount: tie.amount - tie.settlement!.payout,
      detail: 'void',
    });
    const trail = report.trail.map((t) => t.type);
    expect(trail).toContain('RoundResettled');
    expect(trail).toContain('PayoutAdjusted');
    const resettlement = report.trail.find((t) => t.type === 'RoundResettled')!;
    expect(resettlement.what).toContain('Resettled (void: dealer exposed a card early)');
    expect(resettlement.what).toContain(
      `bet ${tie.betId} of pia paid ${formatMoney(tie.settlement!.payout, 'EUR')}, now ${formatMoney(tie.amount, 'EUR')}`,
    );
  });

  it('gives back commission already collected: a seat voided after the dealer change', async () => {
    const report = await audit(rounds.S);
    expect(named(report.verdict)).toEqual([]);
    const [banker] = report.bets;
    expect(banker?.settlement).toMatchObject({ result: 'win', payout: 4_000, commission: 100 });
    expect(banker?.final).toMatchObject({ result: 'refund', payout: 2_000, commission: 0 });
    expect(report.wallet?.find((m) => m.type === 'PayoutAdjusted')).toMatchObject({
      amount: -2_000,
      detail: 'void, commission owed \u22121.00 EUR',
    });
    const adjusted = report.trail.find((t) => t.type === 'PayoutAdjusted');
    expect(adjusted?.what).toBe(
      `pia adjusted \u221220.00 EUR for bet ${banker!.betId} (void after settlement), commission owed \u22121.00 EUR`,
    );
  });
});

describe('the significant events of the disputes', () => {
  it("say the commission collected and the resettlement in the table's currency", async () => {
    const { events } = await casino.system.significantEvents.list({ tableId: 'salon', limit: 100 });
    const summaries = events.map((event) => event.summary);
    // CommissionCollected names no currency: the table it was owed at does (EUR).
    expect(summaries).toContain(`${PLAYERS.S} paid 1.00 EUR commission owed at salon`);
    expect(summaries.find((line) => line.startsWith('Resettled (void: wrong shoe)'))).toMatch(
      /paid 40\.00 EUR, now 20\.00 EUR \(\u221220\.00 EUR\), commission 1\.00 EUR \u2192 0\.00 EUR/,
    );
  });
});

describe('a round corrected after settlement', () => {
  it('audits as VERIFIED: the corrected cards give a tie, the Player bet now pushes', async () => {
    const report = await audit(rounds.C);
    expect(named(report.verdict)).toEqual([]);
    expect(report.verdict.notes).toEqual([]);
    expect(report.result).toMatchObject({ winner: 'tie' });
    const player = report.bets.find((b) => b.type === 'player')!;
    const banker = report.bets.find((b) => b.type === 'banker')!;
    expect(player.settlement).toMatchObject({ result: 'win', payout: 4_000 });
    expect(player.final).toMatchObject({ result: 'push', payout: 2_000 });
    expect(banker.settlement).toMatchObject({ result: 'lose', payout: 0 });
    expect(banker.final).toMatchObject({ result: 'push', payout: 1_000 });
    expect(report.wallet?.filter((m) => m.type === 'PayoutAdjusted').map((m) => m.amount)).toEqual(
      expect.arrayContaining([-2_000, 1_000]),
    );
    const what = (type: string) =>
      report.trail.filter((t) => t.type === type && t.stream.startsWith('round-'))[0]?.what;
    expect(what('CardCorrected')).toBe(
      `Supervisor sue corrected card at shoe position ${correctedPosition}: 3S \u2192 7S (video review)`,
    );
    expect(what('RoundResultCorrected')).toBe(
      'result corrected (video review): tie: Player 9 [9C KH], Banker 9 [2D 7S]',
    );
    expect(what('RoundResettled')).toContain(
      `bet ${player.betId} of pia paid 40.00 EUR, now 20.00 EUR (\u221220.00 EUR)`,
    );
  });
});

describe('shoe replays with disputes', () => {
  it('replay as valid, resettled rounds and all', async () => {
    for (const roundId of [rounds.V, rounds.C, rounds.S]) {
      const report = await replay(roundId);
      expect(named(report.verdict)).toEqual([]);
      const summary = report.rounds.find((r) => r.roundId === roundId);
      // What the round paid in the end: a void pays every stake back.
      if (roundId === rounds.V) expect(summary?.paidOut).toBe(summary?.staked);
    }
  });
});

describe('rebuilding the wallet balances after disputes', () => {
  it('gives the live wallets, commission given back included', async () => {
    await casino.system.sync();
    const rebuilt = await rebuildProjections(store, ['wallet-balances']);
    expect(rebuilt.failures).toEqual([]);
    for (const playerId of ['pia', 'rex', 'sam']) {
      const wallet = await casino.system.wallets.getWallet(playerId);
      expect(rebuilt.balances?.get(playerId)).toMatchObject({
        balance: wallet.balance,
        commissionOwed: wallet.commissionOwed,
        openStakes: wallet.openStakes,
      });
    }
  });
});

/** The tamperings run last: each changes the store for good. */
describe('tampering with a dispute, re-hashed', () => {
  it('a RoundResettled delta changed is named with the bet, recomputed and recorded', async () => {
    const stream = streams.round(rounds.V);
    let at = -1;
    let recomputed = 0;
    await tamper.rewrite(stream, (rows) => {
      at = revisionOf(rows, 'RoundResettled');
      const adjustments = rows[at]!.data['adjustments'] as { delta: number }[];
      recomputed = adjustments[0]!.delta;
      adjustments[0]!.delta += 500;
      return rows;
    });
    for (const verdict of [(await audit(rounds.V)).verdict, (await replay(rounds.V)).verdict]) {
      expect(named(verdict)).toEqual([`payouts/RESETTLEMENT_MISMATCH ${stream}@${at}`]);
      expect(verdict.findings[0]).toMatchObject({
        eventType: 'RoundResettled',
        expected: String(recomputed),
        found: String(recomputed + 500),
      });
      expect(verdict.findings[0]?.message).toMatch(/delta recomputed/);
    }
  });

  it('a PayoutAdjusted deleted is named at the resettlement it leaves unapplied', async () => {
    const wallet = streams.wallet(PLAYERS.M);
    const round = await tamper.rows(streams.round(rounds.M));
    await tamper.rewrite(wallet, (rows) => rows.filter((row) => row.type !== 'PayoutAdjusted'));
    const at = revisionOf(round, 'RoundResettled');
    for (const verdict of [(await audit(rounds.M)).verdict, (await replay(rounds.M)).verdict]) {
      const findings = about(verdict, streams.round(rounds.M), wallet);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings).toContain(`debits/ADJUSTMENT_MISSING ${streams.round(rounds.M)}@${at}`);
      expect(findings.every((f) => f.startsWith('debits/ADJUSTMENT_MISSING'))).toBe(true);
    }
  });

  it('a PayoutAdjusted added is named: no resettlement line asks for it', async () => {
    const wallet = streams.wallet(PLAYERS.X);
    let at = -1;
    await tamper.rewrite(wallet, (rows) => {
      const copy = rows.find((row) => row.type === 'PayoutAdjusted')!;
      at = rows.length;
      return [...rows, { ...copy, xid: null, seq: null, id: randomUUID() }];
    });
    for (const verdict of [(await audit(rounds.X)).verdict, (await replay(rounds.X)).verdict]) {
      expect(about(verdict, streams.round(rounds.X), wallet)).toEqual([
        `debits/ADJUSTMENT_UNMATCHED ${wallet}@${at}`,
      ]);
      const finding = verdict.findings.find((f) => f.stream === wallet);
      expect(finding?.message).toMatch(/adjusted a second time/);
    }
  });

  it('a RoundResultCorrected winner forged is named by the corrected cards', async () => {
    const stream = streams.round(rounds.C);
    let at = -1;
    await tamper.rewrite(stream, (rows) => {
      at = revisionOf(rows, 'RoundResultCorrected');
      rows[at]!.data['winner'] = 'player';
      return rows;
    });
    for (const verdict of [(await audit(rounds.C)).verdict, (await replay(rounds.C)).verdict]) {
      expect(named(verdict)).toEqual([`outcome/OUTCOME_MISMATCH ${stream}@${at}`]);
      expect(verdict.findings[0]).toMatchObject({ expected: 'tie', found: 'player' });
    }
  });
});
