import { verifyExport, type RoundAudit, type ShoeReplay } from '@croupier/audit';
import type { Card } from '@croupier/baccarat';
import { DomainError, presetConfig, streams, type Role } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, GAME_RECALL_COLUMNS, rebuildProjections, snapshotOf } from '../src/index.js';
import { as, playShoe, startCasino, waitForWallets, type Casino } from './support/casino.js';
import { eventually } from './support/settlement-play.js';

/**
 * The audit API on a real system (in-memory PGlite): single-deck tables shuffle for every round,
 * so each round is a whole shoe, closed when the next opens, which makes replays quick.
 */
let casino: Casino;
let app: HttpApp;
const tokens: Partial<Record<Role, string>> = {};
let solo: { shoeId: string; roundIds: readonly string[] };
let pausedRound: string;
let voidedRound: string;
let startedAt: string;

async function get(url: string, role: Role = 'operator') {
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tokens[role]!}` } });
}

beforeAll(async () => {
  startedAt = new Date().toISOString();
  casino = await startCasino();
  app = await buildApp(casino.system);
  for (const role of ['player', 'dealer', 'supervisor', 'operator', 'regulator'] as const) {
    tokens[role] = await casino.system.tokens.issue({
      id: role === 'player' ? 'alice' : `${role}-1`,
      role,
    });
  }
  const played = await playShoe(casino.system, 'solo', { config: presetConfig('single-deck') });
  solo = played;
  // A live table: a round paused and resumed, a round voided, a dealer change.
  const { system } = casino;
  await system.rounds.openTable(
    {
      tableId: 'salon',
      config: presetConfig('live'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  const first = await system.rounds.openRound('salon', as('dan', 'dealer'));
  pausedRound = first.roundId;
  await system.rounds.placeBets(
    first.roundId,
    'alice',
    [{ type: 'player', amount: 500 }],
    as('alice', 'player'),
  );
  await system.rounds.pause(first.roundId, 'card reader jammed', as('sue', 'supervisor'));
  await system.rounds.resume(first.roundId, as('sue', 'supervisor'));
  await system.rounds.closeBetting(first.roundId, as('dan', 'dealer'));
  await system.rounds.deal(first.roundId, as('dan', 'dealer'));
  await system.rounds.changeDealer('salon', 'dora', as('sue', 'supervisor'));
  const second = await system.rounds.openRound('salon', as('dora', 'dealer'));
  voidedRound = second.roundId;
  await system.rounds.placeBets(
    second.roundId,
    'bob',
    [{ type: 'banker', amount: 800, bankerMode: 'commission' }],
    as('bob', 'player'),
  );
  await system.rounds.void(second.roundId, 'shoe dropped', as('sue', 'supervisor'));
  await waitForWallets(system, ['alice', 'bob']);
  await system.sync();
}, 240_000);

afterAll(async () => {
  await app.close();
  await casino.close();
});

describe('GET /v1/audit/rounds/:roundId', () => {
  it('answers the audit of a round to operators, supervisors and regulators', async () => {
    for (const role of ['operator', 'supervisor', 'regulator'] as const) {
      const response = await get(`/v1/audit/rounds/${solo.roundIds[0]!}`, role);
      expect(response.statusCode, role).toBe(200);
      const audit = response.json<RoundAudit>();
      expect(audit.verdict.ok).toBe(true);
      expect(audit.cards.length).toBeGreaterThanOrEqual(4);
      expect(audit.verdict.checks.find((c) => c.check === 'shuffle-order')?.status).toBe('pass');
    }
  });

  it('shows a paused and resumed round, who paused it and why', async () => {
    const audit = (await get(`/v1/audit/rounds/${pausedRound}`)).json<RoundAudit>();
    expect(audit.verdict.ok).toBe(true);
    const paused = audit.trail.find((t) => t.type === 'RoundPaused')!;
    expect(paused.actor).toEqual({ id: 'sue', role: 'supervisor' });
    expect(paused.what).toBe('round paused: card reader jammed');
  });

  it('shows a voided round with every stake refunded', async () => {
    const audit = (await get(`/v1/audit/rounds/${voidedRound}`)).json<RoundAudit>();
    expect(audit.verdict.ok).toBe(true);
    expect(audit.status).toBe('voided');
    expect(audit.bets.map((b) => b.refund)).toEqual([{ amount: 800, reason: 'voided' }]);
    expect(audit.wallet?.map((m) => m.type)).toEqual(['StakeDebited', 'StakeRefunded']);
  });

  it('refuses players and dealers, and answers 404 for a round that does not exist', async () => {
    expect((await get(`/v1/audit/rounds/${pausedRound}`, 'player')).statusCode).toBe(403);
    expect((await get(`/v1/audit/rounds/${pausedRound}`, 'dealer')).statusCode).toBe(403);
    const missing = await get('/v1/audit/rounds/salon.9.9');
    expect(missing.statusCode).toBe(404);
    expect(missing.json<{ code: string }>().code).toBe('ROUND_NOT_FOUND');
    expect((await get('/v1/audit/rounds/not-a-round')).statusCode).toBe(400);
  });
});

describe('GET /v1/audit/shoes/:shoeId/replay and /export', () => {
  it('replays a closed shoe as valid', async () => {
    const response = await get(`/v1/audit/shoes/${solo.shoeId}/replay`, 'regulator');
    expect(response.statusCode).toBe(200);
    const replay = response.json<ShoeReplay>();
    expect(replay.verdict.findings).toEqual([]);
    expect(replay.status).toBe('closed');
    expect(replay.verdict.checks.find((c) => c.check === 'digest')?.status).toBe('pass');
  });

  it('replays a shoe still being dealt, saying what waits for its close', async () => {
    const replay = (await get('/v1/audit/shoes/salon.1/replay')).json<ShoeReplay>();
    expect(replay.status).toBe('open');
    expect(replay.verdict.ok).toBe(true);
    const skipped = Object.fromEntries(
      replay.verdict.checks.filter((c) => c.status === 'skip').map((c) => [c.check, c.detail]),
    );
    expect(skipped['commitment']).toMatch(/sealed until the shoe closes/);
    expect(skipped['digest']).toMatch(/not closed/);
  });

  it('exports a shoe that verifies offline, as an attachment', async () => {
    const response = await get(`/v1/audit/shoes/${solo.shoeId}/export`, 'regulator');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="shoe-${solo.shoeId}.json"`,
    );
    const replay = verifyExport(response.body);
    expect(replay.verdict.ok).toBe(true);
    expect(replay.shoeId).toBe(solo.shoeId);
  });

  it('keeps replays and exports from supervisors', async () => {
    expect((await get(`/v1/audit/shoes/${solo.shoeId}/replay`, 'supervisor')).statusCode).toBe(403);
    expect((await get(`/v1/audit/shoes/${solo.shoeId}/export`, 'player')).statusCode).toBe(403);
    expect((await get('/v1/audit/shoes/solo.99/replay')).statusCode).toBe(404);
  });
});

describe('GET /v1/players/:playerId/history.csv', () => {
  it('is the game recall as CSV, one game cycle per row', async () => {
    const response = await get('/v1/players/alice/history.csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = response.body.trimEnd().split('\r\n');
    expect(header).toBe(GAME_RECALL_COLUMNS.join(','));
    expect(rows).toHaveLength(solo.roundIds.length + 1);
    const salon = rows.find((row) => row.startsWith(`${pausedRound},`))!;
    const cells = salon.split(',');
    const column = (name: (typeof GAME_RECALL_COLUMNS)[number]) =>
      cells[GAME_RECALL_COLUMNS.indexOf(name)];
    expect(column('status')).toBe('complete');
    expect(column('table_id')).toBe('salon');
    expect(column('stakes')).toBe('500');
    // Appended: the table's currency and the amounts as a person reads them in it.
    expect(salon).toContain(',EUR,5.00 EUR,');
    expect(column('paytable_id')).toMatch(/^[0-9a-f]{64}$/);
    expect(column('player_cards')).toMatch(/^[A2-9TJQK][CDHS]( [A2-9TJQK][CDHS]){1,2}$/);
    expect(Number(column('balance_after'))).toBe(
      Number(column('balance_before')) - 500 + Number(column('payouts')),
    );
  });

  it('is for staff only', async () => {
    expect((await get('/v1/players/alice/history.csv', 'player')).statusCode).toBe(403);
  });
});

describe('GET /v1/significant-events', () => {
  it('lists voids, pauses, dealer and configuration changes of a table, with who did them', async () => {
    const response = await get('/v1/significant-events?tableId=salon');
    expect(response.statusCode).toBe(200);
    const { events } = response.json<{
      events: { category: string; type: string; actor: { id: string } | null; tableId: string }[];
    }>();
    expect(events.map((e) => e.category)).toEqual([
      'configuration',
      'pause',
      'resume',
      'dealer-change',
      'void',
    ]);
    expect(events.every((e) => e.tableId === 'salon')).toBe(true);
    expect(events.find((e) => e.type === 'RoundVoided')?.actor?.id).toBe('sue');
  });

  it('filters by time and truncates at the limit', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const later = (await get(`/v1/significant-events?from=${future}`)).json<{
      events: unknown[];
    }>();
    expect(later.events).toEqual([]);
    const all = (await get(`/v1/significant-events?from=${startedAt}`)).json<{
      events: { category: string }[];
    }>();
    expect(all.events.some((e) => e.category === 'balance-adjustment')).toBe(true);
    const two = (await get('/v1/significant-events?limit=2')).json<{
      events: unknown[];
      truncated: boolean;
    }>();
    expect(two.events).toHaveLength(2);
    expect(two.truncated).toBe(true);
    expect((await get('/v1/significant-events?from=yesterday')).statusCode).toBe(400);
  });
});

/**
 * Disputes after settlement on a land-based scanner table (ADR 0009): bob's seat wins on the
 * Banker, its commission is accrued and collected at a dealer change, then the round is voided
 * (winnings taken back, the commission given back); alice's Player win becomes a tie when a
 * supervisor corrects a misread card. Answers the two rounds once every adjustment is applied.
 */
async function playDisputes(): Promise<{ voided: string; corrected: string }> {
  const { system } = casino;
  const dealer = as('dan', 'dealer');
  const supervisor = as('sue', 'supervisor');
  await system.rounds.openTable(
    {
      tableId: 'court',
      config: presetConfig('land-based', { cardSource: 'scanner', burn: false }),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  // One player per seat (002): bob sits at seat 2, alice at seat 4.
  const seats: Record<string, number> = { bob: 2, alice: 4 };
  for (const [playerId, seat] of Object.entries(seats))
    await system.rounds.takeSeat('court', playerId, seat, as(playerId, 'player'));
  const play = async (playerId: string, type: string, cards: readonly Card[]) => {
    let roundId = '';
    for (let attempt = 0; roundId === ''; attempt++) {
      try {
        roundId = (await system.rounds.openRound('court', dealer)).roundId;
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'ROUND_IN_PROGRESS' || attempt > 400)
          throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    const bankerMode = type === 'banker' ? { bankerMode: 'commission' } : {};
    await system.rounds.placeBets(
      roundId,
      playerId,
      [{ type, amount: 2_000, seat: seats[playerId]!, ...bankerMode }],
      as(playerId, 'player'),
    );
    await system.rounds.closeBetting(roundId, dealer);
    for (const card of cards) await system.rounds.postScannedCard(roundId, card, dealer);
    await system.rounds.confirmResult(roundId, dealer);
    await waitForWallets(system, [playerId]);
    return roundId;
  };
  const adjusted = (playerId: string, roundId: string) =>
    eventually(async () => {
      const wallet = await casino.store.readStream(streams.wallet(playerId));
      expect(
        wallet.some(
          (e) => e.type === 'PayoutAdjusted' && (e.data as { roundId: string }).roundId === roundId,
        ),
      ).toBe(true);
    });
  // Banker 9C KH (a natural) beats Player 2D 3S.
  const voided = await play('bob', 'banker', ['2D', '9C', '3S', 'KH']);
  await system.rounds.changeDealer('court', 'dora', supervisor);
  await eventually(async () => {
    expect((await system.wallets.getWallet('bob')).commissionOwed).toBe(0);
  });
  await system.rounds.void(voided, 'wrong shoe', supervisor);
  await adjusted('bob', voided);
  // Player 9C KH beats Banker 2D 3S; the video shows a 7S, not the 3S: a tie.
  const corrected = await play('alice', 'player', ['9C', '2D', 'KH', '3S']);
  const position = (await system.rounds.getRound(corrected)).banker[1]!.shoePosition;
  await system.rounds.correctCard(
    corrected,
    { shoePosition: position, card: '7S', reason: 'video review' },
    supervisor,
  );
  await adjusted('alice', corrected);
  await system.sync();
  return { voided, corrected };
}

describe('rebuilding the read models', () => {
  const players = ['alice', 'bob'];
  const live = () =>
    snapshotOf({ board: casino.system.board, history: casino.system.history }, players);
  let disputed: { voided: string; corrected: string };

  beforeAll(async () => {
    disputed = await playDisputes();
  }, 120_000);

  it('audits the disputed rounds as verified, their adjustments shown', async () => {
    for (const roundId of [disputed.voided, disputed.corrected]) {
      const audit = (await get(`/v1/audit/rounds/${roundId}`)).json<RoundAudit>();
      expect(audit.verdict.findings).toEqual([]);
      expect(audit.wallet?.map((m) => m.type)).toContain('PayoutAdjusted');
      expect(audit.bets[0]?.final).not.toBeNull();
    }
  });

  it('replays the log into fresh projections that equal the live ones, disputes and all', async () => {
    await casino.system.sync();
    const rebuilt = await rebuildProjections(casino.store);
    expect(rebuilt.failures).toEqual([]);
    expect(rebuilt.players).toEqual(expect.arrayContaining(players));
    expect(await snapshotOf({ board: rebuilt.board, history: rebuilt.history }, players)).toEqual(
      await live(),
    );
    for (const playerId of players) {
      const wallet = await casino.system.wallets.getWallet(playerId);
      expect(rebuilt.balances?.get(playerId)).toMatchObject({
        balance: wallet.balance,
        commissionOwed: wallet.commissionOwed,
        openStakes: wallet.openStakes,
      });
    }
  });

  /** Every durable read model's documents, as served. */
  const durable = async () => {
    const { readModels } = casino.system;
    const models: Record<string, unknown> = {};
    for (const { name } of readModels.status()) models[name] = await readModels.storage.list(name);
    return models;
  };

  it('POST /v1/admin/rebuild rebuilds the live read models to the same state (operators only)', async () => {
    await casino.system.sync();
    const before = await live();
    const durableBefore = await durable();
    expect(before.tables?.length).toBe(3);
    const refused = await app.inject({
      method: 'POST',
      url: '/v1/admin/rebuild',
      headers: { authorization: `Bearer ${tokens.supervisor!}` },
    });
    expect(refused.statusCode).toBe(403);
    const response = await app.inject({
      method: 'POST',
      url: '/v1/admin/rebuild',
      headers: { authorization: `Bearer ${tokens.operator!}` },
    });
    expect(response.statusCode).toBe(200);
    expect([...response.json<{ projections: string[] }>().projections].sort()).toEqual([
      'active-sessions',
      'commission-ledger',
      'dealing-watch',
      'floor-figures',
      'game-figures',
      'operator-wallet-ledger',
      'parked-messages',
      'pending-debits',
      'player-history',
      'seat-ledger',
      'significant-events',
      'table-board',
    ]);
    expect(await live()).toEqual(before);
    expect(await durable()).toEqual(durableBefore);
    expect(casino.system.readModels.status().every((s) => s.generation === 2)).toBe(true);
  });
});

describe('the OpenAPI document and the console', () => {
  it('documents the audit routes', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/json' });
    const paths = Object.keys(response.json<{ paths: Record<string, unknown> }>().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/audit/rounds/{roundId}',
        '/v1/audit/shoes/{shoeId}/replay',
        '/v1/audit/shoes/{shoeId}/export',
        '/v1/players/{playerId}/history.csv',
        '/v1/significant-events',
        '/v1/admin/rebuild',
      ]),
    );
  });

  it('serves the console without a token', async () => {
    const page = await app.inject({ method: 'GET', url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<script type="module" src="/console/console.js">');
    for (const file of ['console.js', 'roads.js', 'money.js', 'console.css']) {
      expect((await app.inject({ method: 'GET', url: `/console/${file}` })).statusCode).toBe(200);
    }
    // The exponents the page formats money by are the server's own.
    const currencies = await app.inject({ method: 'GET', url: '/console/money.js' });
    expect(currencies.body).toContain('"EUR":2');
    expect(currencies.body).toContain('"KRW":0');
    expect(currencies.body).toContain('"BHD":3');
  });
});
