import { randomUUID } from 'node:crypto';
import type { RoundAudit } from '@croupier/audit';
import type { OperatorCallPageBody } from '@croupier/wallet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { expectStatus, openRound, openTable, placeBets, settled } from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

type Call = OperatorCallPageBody['calls'][number];

/**
 * Reconciliation in seamless mode (docs/wallet-integration.md): an operator lists the calls
 * Croupier made to its wallet, per player and period, and matches each, by key, against what
 * the example operator wallet (on PostgreSQL, behind a relay that loses answers) applied; the
 * round audit shows a round's calls, a player's given-up debit included.
 */
describe('reconciling with the operator wallet in seamless mode', () => {
  let wallet: OperatorWalletFixture;
  let harness: Harness;
  beforeAll(async () => {
    wallet = await startOperatorWallet();
    harness = await startHarness({
      store: 'postgres',
      gateway: true,
      env: {
        WALLET_MODE: 'seamless',
        OPERATOR_WALLET_URL: wallet.url,
        OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
        OPERATOR_WALLET_TIMEOUT_MS: '1000',
        OPERATOR_WALLET_RETRIES: '1',
        OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
      },
    });
    await openTable(harness.api, 'recon', 'generic');
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  async function player(name: string): Promise<string> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    await wallet.open(id, 100_000);
    return id;
  }

  async function page(query: string, role: 'operator' | 'regulator' = 'operator') {
    return expectStatus(
      await harness.api.as(role).get<OperatorCallPageBody>(`/v1/operator-wallet/calls?${query}`),
      200,
    );
  }

  /** Every call of the query, page after page of `limit`. */
  async function every(query: string, limit: number): Promise<Call[]> {
    const calls: Call[] = [];
    let after = '0';
    for (;;) {
      const answer = await page(`${query}&limit=${limit}&after=${after}`);
      expect(answer.calls.length).toBeLessThanOrEqual(limit);
      calls.push(...answer.calls);
      if (!answer.more) return calls;
      after = answer.next;
    }
  }

  /** The player's calls once none is `sent` any more (the outbox delivered every one). */
  async function settledCalls(playerId: string, count: number): Promise<Call[]> {
    let calls: Call[] = [];
    await vi.waitFor(
      async () => {
        calls = (await page(`playerId=${playerId}`)).calls;
        if (calls.length !== count || calls.some((c) => c.state === 'sent'))
          throw new Error(`${playerId}: ${calls.map((c) => `${c.call}:${c.state}`).join(', ')}`);
      },
      { timeout: 20_000, interval: 100 },
    );
    return calls;
  }

  async function closeAndDeal(roundId: string): Promise<void> {
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/deal`), 200);
    await settled(harness.api, roundId);
  }

  it("lists every debit and credit with its key and outcome, as the operator's wallet applied them", async () => {
    const startedAt = new Date(Date.now() - 1).toISOString();
    const ana = await player('ana');
    const round = await openRound(harness.api, 'recon');
    const bets = [
      { betId: randomUUID(), type: 'player', amount: 1_000 },
      { betId: randomUUID(), type: 'banker', amount: 2_000, bankerMode: 'commission' },
    ];
    expectStatus(await placeBets(harness.api, round.roundId, ana, bets), 201);
    await closeAndDeal(round.roundId);
    const calls = await settledCalls(ana, 4);

    for (const bet of bets) {
      const mine = calls.filter((c) => c.betId === bet.betId);
      expect(mine.map((c) => `${c.call}:${c.state}`).sort()).toEqual([
        'credit:confirmed',
        'debit:confirmed',
      ]);
      const debit = mine.find((c) => c.call === 'debit')!;
      expect(debit).toMatchObject({
        playerId: ana,
        roundId: round.roundId,
        amount: bet.amount,
        currency: 'EUR',
        attempt: 1,
      });
      expect(debit.transactionId).not.toBeNull();
      expect(mine.find((c) => c.call === 'credit')).toMatchObject({ kind: 'settlement' });
      // The wallet's own books agree, call for call.
      const books = await wallet.callsOf(bet.betId);
      expect(books.map((b) => `${b.call}:${b.state}:${b.amount}`).sort()).toEqual(
        mine.map((c) => `${c.call}:applied:${c.amount}`).sort(),
      );
    }

    // Pages of one list the same calls, each once; the period and the player narrow them.
    expect((await every(`playerId=${ana}`, 1)).map((c) => c.key)).toEqual(calls.map((c) => c.key));
    const since = await page(`from=${encodeURIComponent(startedAt)}&limit=1000`, 'regulator');
    expect(since.calls.filter((c) => c.playerId === ana)).toEqual(calls);
    const before = await page(`playerId=${ana}&to=${encodeURIComponent(startedAt)}`);
    expect(before.calls).toEqual([]);
  });

  it('shows a debit given up when its answer was lost, its rollback, and both in the round audit though no bet stood', async () => {
    const eve = await player('eve');
    const round = await openRound(harness.api, 'recon');
    const bet = { betId: randomUUID(), type: 'player', amount: 3_000 };
    wallet.fault('lose-answer', ['debit']);
    wallet.fault('down', ['status', 'rollback']);
    const refused = await placeBets(harness.api, round.roundId, eve, [bet]);
    expect(refused.status).toBe(503);
    wallet.fault('pass');
    const calls = await settledCalls(eve, 2);
    const debit = calls.find((c) => c.call === 'debit')!;
    const rollback = calls.find((c) => c.call === 'rollback')!;
    expect(debit).toMatchObject({
      state: 'unresolved',
      code: 'UNAVAILABLE',
      rollbackKey: rollback.key,
      amount: 3_000,
    });
    expect(rollback).toMatchObject({
      state: 'confirmed',
      reason: 'debit-unresolved',
      debitKey: debit.key,
      roundId: round.roundId,
    });
    expect(await wallet.balance(eve)).toBe(100_000);

    await closeAndDeal(round.roundId);
    const audit = expectStatus(
      await harness.api.as('regulator').get<RoundAudit>(`/v1/audit/rounds/${round.roundId}`),
      200,
    );
    expect(audit.bets.filter((b) => b.playerId === eve)).toEqual([]);
    expect(audit.wallet).not.toBeNull();
    const eves = audit.wallet!.filter((m) => m.playerId === eve);
    expect(eves.map((m) => m.type)).toEqual([
      'OperatorDebitRequested',
      'OperatorDebitFailed',
      'OperatorRollbackRequested',
      'OperatorCallDelivered',
    ]);
    expect(eves.every((m) => m.betId === bet.betId && m.amount === 3_000)).toBe(true);
    expect(eves[1]!.detail).toContain('unresolved');
    expect(audit.verdict.ok).toBe(true);
  });

  it("refuses a cursor that is not a page's next, naming the field", async () => {
    const answer = await harness.api
      .as('operator')
      .get<{ code: string; detail: string }>('/v1/operator-wallet/calls?after=12');
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('after');
  });
});
