import { randomUUID } from 'node:crypto';
import { systemContext } from '@croupier/application';
import { streams } from '@croupier/contracts';
import type { WalletAudit } from '@croupier/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';

interface SessionView {
  sessionId: string;
  mode: 'real' | 'fun';
  currency: string;
  status: 'open' | 'closed';
}
interface WalletView {
  currency: string | null;
  balance: number;
  openStakes: number;
}
interface Verdict {
  verdict: { ok: boolean; findings: unknown[] };
}
interface SettlementPage {
  messages: { currency: string; roundId: string | null; playerId: string }[];
  more: boolean;
  next: string;
}

const FUN_BALANCE = 500_000;
const REAL = 1_000_000;

/**
 * Fun mode (003, ADR 0030): play money in a wallet of its own, dealt and audited like real money,
 * marked on every event, never mixed with real money, never published to downstream wallets.
 */
describe('fun mode: play money', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      store: 'memory',
      // The orphaned-debit sweep may refund a stake as soon as its round takes no more bets.
      env: { FUN_BALANCE: String(FUN_BALANCE), ORPHAN_GRACE_MS: '0' },
      // Distributed: the gateway serves the audit and game history, as the Ingress sends them.
      gateway: true,
    });
    await fund(harness.api, ['fay', 'fred', 'flo', 'orla'], REAL);
  });
  afterAll(async () => {
    await harness.close();
  });

  const topUp = async (player: string) =>
    expectStatus(
      await harness.api.as('player', player).post<WalletView>(`/v1/wallets/${player}/play-money`),
      200,
    );
  const funWallet = async (player: string) =>
    expectStatus(
      await harness.api.as('player', player).get<WalletView>(`/v1/wallets/${player}/play-money`),
      200,
    );
  const openSession = async (player: string, mode: 'real' | 'fun') =>
    expectStatus(
      await harness.api
        .as('player', player)
        .post<SessionView>('/v1/sessions', { preset: 'touch', mode }),
      201,
    );
  const sessionRound = async (player: string, sessionId: string): Promise<RoundView> => {
    const response = await harness.api
      .as('player', player)
      .post<RoundView>(`/v1/sessions/${sessionId}/rounds`);
    expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
    return response.body;
  };
  const publicMessages = async () => {
    const all: SettlementPage['messages'] = [];
    let from = '0';
    for (;;) {
      const page = expectStatus(
        await harness.api
          .as('operator')
          .get<SettlementPage>(`/v1/settlements?from=${from}&limit=1000`),
        200,
      );
      all.push(...page.messages);
      if (!page.more) return all;
      from = page.next;
    }
  };

  it('a player tops up play money, plays a fun session end to end, and their real money does not move', async () => {
    const { api, store } = harness;
    const granted = await topUp('fay');
    expect(granted).toMatchObject({ currency: 'FUN', balance: FUN_BALANCE });
    // Topping up a full fun wallet grants nothing more.
    expect((await topUp('fay')).balance).toBe(FUN_BALANCE);

    const session = await openSession('fay', 'fun');
    expect(session).toMatchObject({ mode: 'fun', currency: 'FUN', status: 'open' });
    const round = await sessionRound('fay', session.sessionId);
    expectStatus(
      await placeBets(api, round.roundId, 'fay', [
        { type: 'banker', amount: 1_000 },
        { type: 'tie', amount: 100 },
      ]),
      201,
    );
    expect((await funWallet('fay')).balance).toBe(FUN_BALANCE - 1_100);
    const dealt = expectStatus(
      await api.as('player', 'fay').post<RoundView>(`/v1/sessions/${session.sessionId}/deal`, {}),
      200,
    );
    expect(dealt.status).toBe('completed');
    const done = await settled(api, round.roundId);
    await settledEverywhere(store);
    const paid = (done.settlement?.lines ?? []).reduce((sum, line) => sum + line.payout, 0);
    const fun = await funWallet('fay');
    expect(fun).toMatchObject({ balance: FUN_BALANCE - 1_100 + paid, openStakes: 0 });
    // Real money: untouched, not one movement more than the deposit.
    expect(await balanceOf(api, 'fay')).toBe(REAL);
    const real = await store.readStream(streams.wallet('fay'));
    expect(real.map((e) => e.type)).toEqual(['FundsDeposited']);

    // Audited exactly like a real round: the round with its money, and the shoe's replay.
    const audit = expectStatus(
      await api.as('regulator').get<Verdict>(`/v1/audit/rounds/${round.roundId}`),
      200,
    );
    expect(audit.verdict.findings).toEqual([]);
    expect(audit.verdict.ok).toBe(true);
    await sessionRound('fay', session.sessionId); // the next round closes this round's shoe
    const replay = expectStatus(
      await api.as('regulator').get<Verdict>(`/v1/audit/shoes/${round.shoeId}/replay`),
      200,
    );
    expect(replay.verdict.findings).toEqual([]);

    // Marked on every event that moves play money, and on every record of the round.
    const funEvents = await store.readStream(streams.funWallet('fay'));
    expect(funEvents.map((e) => e.type)).toEqual([
      'PlayMoneyGranted',
      'StakeDebited',
      'StakeDebited',
      'PayoutCredited',
      'PayoutCredited',
    ]);
    for (const event of funEvents) expect(event.data, event.type).toMatchObject({ fun: true });
    const roundEvents = await store.readStream(streams.round(round.roundId));
    for (const event of roundEvents) {
      if (event.type === 'BetPlaced') expect(event.data).toMatchObject({ fun: true });
      if (['RoundOpened', 'RoundSettled'].includes(event.type))
        expect(event.data, event.type).toMatchObject({ currency: 'FUN' });
    }
    // The play-money wallet audited from its first movement: the grant a top-up, every stake and
    // credit on its round; the real wallet's audit holds its deposit alone.
    const funAudit = expectStatus(
      await api.as('regulator').get<WalletAudit>('/v1/audit/wallets/fay/play-money'),
      200,
    );
    expect(funAudit.verdict.findings).toEqual([]);
    expect(funAudit).toMatchObject({
      stream: streams.funWallet('fay'),
      money: 'fun',
      balance: fun.balance,
    });
    expect(funAudit.movements.map((m) => m.status)).toEqual(
      funAudit.movements.map(() => 'justified'),
    );
    const realAudit = expectStatus(
      await api.as('regulator').get<WalletAudit>('/v1/audit/wallets/fay'),
      200,
    );
    expect(realAudit).toMatchObject({ money: 'real', balance: REAL });
    expect(realAudit.verdict.ok).toBe(true);
    expect((await api.as('regulator').get('/v1/audit/wallets/orla/play-money')).status).toBe(404);

    // Never published to downstream wallets, nor in the reconciliation API; no game history.
    const messages = await publicMessages();
    expect(messages.filter((m) => m.currency === 'FUN')).toEqual([]);
    expect(messages.filter((m) => m.roundId?.startsWith(session.sessionId))).toEqual([]);
    const history = expectStatus(
      await api.as('player', 'fay').get<{ roundId: string }[]>('/v1/players/fay/history'),
      200,
    );
    expect(history.map((h) => h.roundId)).not.toContain(round.roundId);
  });

  it('mixing is refused and moves nothing: a fun bet with no play money, a bet id reused across modes', async () => {
    const { api, store } = harness;
    // No play money yet: a fun bet is refused, even with real money in the real wallet.
    const funSession = await openSession('fred', 'fun');
    const funRound = await sessionRound('fred', funSession.sessionId);
    const noFun = await placeBets(api, funRound.roundId, 'fred', [
      { type: 'player', amount: 1_000 },
    ]);
    expect(noFun.status).toBe(404);
    expect(noFun.body).toMatchObject({ code: 'WALLET_NOT_FOUND' });
    expect(await balanceOf(api, 'fred')).toBe(REAL);

    // A real bet, then its bet id again for a fun bet: refused, nothing moves anywhere.
    await topUp('fred');
    const realSession = await openSession('fred', 'real');
    const realRound = await sessionRound('fred', realSession.sessionId);
    const betId = randomUUID();
    expectStatus(
      await placeBets(api, realRound.roundId, 'fred', [{ type: 'player', amount: 1_000, betId }]),
      201,
    );
    const reused = await placeBets(api, funRound.roundId, 'fred', [
      { type: 'player', amount: 1_000, betId },
    ]);
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ code: 'ID_CONFLICT' });
    expect(await balanceOf(api, 'fred')).toBe(REAL - 1_000);
    expect(await funWallet('fred')).toMatchObject({ balance: FUN_BALANCE, openStakes: 0 });
    // And the other way round: a fun bet's id taken by a real bet.
    const funBetId = randomUUID();
    expectStatus(
      await placeBets(api, funRound.roundId, 'fred', [
        { type: 'banker', amount: 2_000, betId: funBetId },
      ]),
      201,
    );
    const next = await sessionRound('fred', realSession.sessionId);
    const crossed = await placeBets(api, next.roundId, 'fred', [
      { type: 'banker', amount: 2_000, betId: funBetId },
    ]);
    expect(crossed.status).toBe(409);
    expect(await balanceOf(api, 'fred')).toBe(REAL - 1_000);
    expect(await funWallet('fred')).toMatchObject({ balance: FUN_BALANCE - 2_000 });

    // Both sessions deal and settle; each round's money comes back to its own wallet.
    for (const sessionId of [realSession.sessionId, funSession.sessionId])
      expectStatus(await api.as('player', 'fred').post(`/v1/sessions/${sessionId}/deal`, {}), 200);
    await settled(api, realRound.roundId);
    await settled(api, funRound.roundId);
    await settledEverywhere(store);
    const realTypes = (await store.readStream(streams.wallet('fred'))).map((e) => e.type);
    expect(realTypes).toEqual(['FundsDeposited', 'StakeDebited', 'PayoutCredited']);
    for (const event of await store.readStream(streams.wallet('fred')))
      expect(event.data).not.toHaveProperty('fun');
    for (const roundId of [realRound.roundId, funRound.roundId]) {
      const audit = expectStatus(
        await api.as('regulator').get<Verdict>(`/v1/audit/rounds/${roundId}`),
        200,
      );
      expect(audit.verdict.findings, roundId).toEqual([]);
    }
  });

  it('play money is never deposited, withdrawn, or played at a shared table', async () => {
    const { api } = harness;
    const deposit = await api.as('operator').post('/v1/wallets/flo/deposits', {
      amount: 100,
      currency: 'FUN',
      reference: 'fun-in',
    });
    expect(deposit.status).toBe(422);
    expect(deposit.body).toMatchObject({ code: 'CURRENCY_MISMATCH' });
    expect(await balanceOf(api, 'flo')).toBe(REAL);
    const shared = await api.as('operator').post('/v1/tables', {
      tableId: `fun-floor-${randomUUID().slice(0, 8)}`,
      preset: 'touch',
      config: { currency: 'FUN' },
    });
    expect(shared.status).toBe(422);
    expect(shared.body).toMatchObject({ code: 'INVALID_TABLE_CONFIG' });
    // A player tops up their own play money only.
    expect((await api.as('player', 'flo').post('/v1/wallets/fay/play-money')).status).toBe(403);
    // A withdrawal is of real money: the fun wallet is out of its reach.
    await topUp('flo');
    const out = await api.as('operator').post('/v1/wallets/flo/withdrawals', {
      amount: REAL + 1,
      reference: 'too-much',
    });
    expect(out.status).toBe(422);
    expect(out.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(await funWallet('flo')).toMatchObject({ balance: FUN_BALANCE });
  });

  it.runIf(DEPLOYMENT === 'single')(
    'a fun stake whose bet never reached its round goes back to the fun wallet, never the real one (single-process run: the debit is made without its bet)',
    async () => {
      const { api, store, system } = harness;
      await topUp('orla');
      const session = await openSession('orla', 'fun');
      const round = await sessionRound('orla', session.sessionId);
      const betId = randomUUID();
      // As if the process died between the debit and the bet.
      await system.wallets.debitStakes(
        {
          playerId: 'orla',
          roundId: round.roundId,
          currency: 'FUN',
          stakes: [{ betId, amount: 3_000 }],
        },
        systemContext('test'),
      );
      expect(await funWallet('orla')).toMatchObject({ balance: FUN_BALANCE - 3_000 });
      // Leaving voids the round, which never took the bet: the sweep gives the stake back.
      expectStatus(
        await api.as('player', 'orla').post(`/v1/sessions/${session.sessionId}/close`),
        200,
      );
      expect(await system.sweep()).toBe(1);
      expect(await funWallet('orla')).toMatchObject({ balance: FUN_BALANCE, openStakes: 0 });
      expect(await balanceOf(api, 'orla')).toBe(REAL);
      const refund = (await store.readStream(streams.funWallet('orla'))).find(
        (e) => e.type === 'StakeRefunded',
      );
      expect(refund?.data).toMatchObject({ betId, reason: 'orphaned-debit', fun: true });
      const released = (await store.readStream(streams.round(round.roundId))).find(
        (e) => e.type === 'StakeReleased',
      );
      expect(released?.data).toMatchObject({ betId, fun: true });
      expect((await store.readStream(streams.wallet('orla'))).map((e) => e.type)).toEqual([
        'FundsDeposited',
      ]);
    },
  );

  it.runIf(DEPLOYMENT === 'single')(
    'metrics count fun bets apart: never in the stakes (single-process run: one /metrics)',
    async () => {
      const token = await harness.tokens.issue({ id: 'ops', role: 'operator' });
      const metrics = await harness.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/croupier_fun_bets_placed_total\{bet_type="banker"\} [1-9]/);
      expect(metrics.body).not.toMatch(
        /croupier_bet_stakes_minor_units_total\{[^}]*currency="FUN"/,
      );
    },
  );
});
