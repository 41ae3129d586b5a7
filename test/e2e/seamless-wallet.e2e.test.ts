import { randomUUID } from 'node:crypto';
import {
  operatorWalletEventSchema,
  roundEventSchema,
  streams,
  type OperatorWalletEvent,
} from '@croupier/contracts';
import { auditOperatorWallet, auditRound, replayShoe, type Verdict } from '@croupier/audit';
import { chainHash, GENESIS_HASH, type RecordedEvent } from '@croupier/eventstore';
import { loadOperatorWalletEvidence, loadRoundEvidence, loadShoeEvidence } from '@croupier/gateway';
import { HttpOperatorWallet } from '@croupier/wallet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import {
  expectStatus,
  openRound,
  openTable,
  placeBets,
  settled,
  testRandom,
  type RoundView,
} from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

const START = 100_000;

const findingsOf = (verdict: Verdict): string[] =>
  verdict.findings.map((f) => `${f.check}/${f.code}`);

const copyEvent = (event: RecordedEvent): RecordedEvent => ({
  ...event,
  data: structuredClone(event.data),
  metadata: structuredClone(event.metadata),
});

/** Records with the first of a type edited in place. */
const edited =
  (type: string, edit: (data: Record<string, unknown>) => void) => (records: RecordedEvent[]) => {
    const found = records.find((r) => r.type === type);
    if (found === undefined) throw new Error(`no ${type} to edit`);
    edit(found.data as Record<string, unknown>);
    return records;
  };

/**
 * What an insider who can write the database does to hide an edit: every hash of the stream
 * computed again from the genesis, revisions renumbered, so the chain verifies.
 */
function rechain(events: RecordedEvent[]): RecordedEvent[] {
  let prevHash = GENESIS_HASH;
  return events.map((event, index) => {
    const metadata: Record<string, unknown> = { ...event.metadata, prevHash };
    delete metadata['hash'];
    const hash = chainHash(prevHash, { type: event.type, data: event.data, metadata });
    prevHash = hash;
    return { ...event, revision: BigInt(index), metadata: { ...metadata, hash } };
  });
}

/**
 * Seamless mode (ADR 0026): the example operator wallet on PostgreSQL holds the balances, behind
 * a relay that cuts the connection or loses answers on demand. In both deployments: one process,
 * and the services each a process of their own (with the gateway for the audit routes), every
 * one of them given the same seamless settings.
 */
describe('seamless mode against the example operator wallet', () => {
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
    await openTable(harness.api, 'seam', 'generic');
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  /** A player with an account at the operator's wallet, and none in Croupier's. */
  async function player(name: string, balance = START): Promise<string> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    await wallet.open(id, balance);
    return id;
  }

  /**
   * Every stake the operator confirmed for these players is closed by a credit or rollback
   * request (their rounds are settled or voided), and every such call has been confirmed.
   */
  async function drained(...players: string[]): Promise<void> {
    await vi.waitFor(
      async () => {
        for (const playerId of players) {
          const events = await operatorEvents(playerId);
          const open = new Set<string>();
          for (const e of events) {
            if (e.type === 'OperatorDebitConfirmed') open.add(e.data.betId);
            if (e.type === 'OperatorRollbackRequested' && e.data.reason !== 'debit-unresolved')
              open.delete(e.data.betId);
            if (e.type === 'OperatorCreditRequested' && e.data.kind === 'settlement')
              open.delete(e.data.betId);
          }
          if (open.size > 0) throw new Error(`${playerId}: ${open.size} stakes still open`);
          // Every credit and rollback asked for is recorded as delivered, and the wallet
          // itself has applied it.
          const delivered = new Set(
            events.flatMap((e) => (e.type === 'OperatorCallDelivered' ? [e.data.key] : [])),
          );
          for (const e of events) {
            if (e.type !== 'OperatorCreditRequested' && e.type !== 'OperatorRollbackRequested')
              continue;
            if (!delivered.has(e.data.key)) throw new Error(`${e.type} ${e.data.key} owed`);
            const status = await wallet.books.status(e.data.key);
            if (status.state !== 'applied')
              throw new Error(`${e.type} ${e.data.key} is ${status.state} at the wallet`);
          }
        }
      },
      { timeout: 20_000, interval: 50 },
    );
  }

  async function operatorEvents(playerId: string): Promise<OperatorWalletEvent[]> {
    const recorded = await harness.store.readStream(streams.operatorWallet(playerId));
    return recorded.map((e) => operatorWalletEventSchema.parse({ type: e.type, data: e.data }));
  }

  /** What Croupier's records say the operator's wallet did: debits out, credits and rollbacks in. */
  async function impliedChange(playerId: string): Promise<number> {
    const events = await operatorEvents(playerId);
    const confirmed = new Set(
      events.flatMap((e) => (e.type === 'OperatorDebitConfirmed' ? [e.data.key] : [])),
    );
    let change = 0;
    for (const event of events) {
      if (event.type === 'OperatorDebitConfirmed') change -= event.data.amount;
      if (event.type === 'OperatorCreditRequested') change += event.data.amount;
      if (event.type === 'OperatorRollbackRequested' && confirmed.has(event.data.debitKey))
        change += event.data.amount;
    }
    return change;
  }

  async function closeAndDeal(roundId: string): Promise<RoundView> {
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/deal`), 200);
    return settled(harness.api, roundId);
  }

  /** The round audit's verdict, with its stakes checked against the operator wallet's records. */
  async function expectAuditPasses(roundId: string): Promise<void> {
    const audit = expectStatus(
      await harness.api.as('regulator').get<{
        verdict: {
          ok: boolean;
          findings: unknown[];
          checks: { check: string; status: string; detail: string | null }[];
        };
      }>(`/v1/audit/rounds/${roundId}`),
      200,
    );
    expect(audit.verdict.findings, roundId).toEqual([]);
    expect(audit.verdict.ok).toBe(true);
    const debits = audit.verdict.checks.find((c) => c.check === 'debits');
    expect(debits?.status).toBe('pass');
    expect(debits?.detail).toContain('seamless');
  }

  const paid = (round: RoundView, betIds: readonly string[]) =>
    round
      .settlement!.lines.filter((line) => betIds.includes(line.betId))
      .reduce((sum, line) => sum + line.payout, 0);

  it('normal play: stakes debited and payouts credited at the operator, Croupier holds no balance', async () => {
    const ana = await player('ana');
    const round = await openRound(harness.api, 'seam');
    const bets = [
      { betId: randomUUID(), type: 'player', amount: 1_000 },
      { betId: randomUUID(), type: 'banker', amount: 2_000, bankerMode: 'commission' },
    ];
    expectStatus(await placeBets(harness.api, round.roundId, ana, bets), 201);
    expect(await wallet.balance(ana)).toBe(START - 3_000);
    const done = await closeAndDeal(round.roundId);
    await drained(ana);
    const expected =
      START -
      3_000 +
      paid(
        done,
        bets.map((b) => b.betId),
      );
    expect(await wallet.balance(ana)).toBe(expected);
    expect(START + (await impliedChange(ana))).toBe(expected);
    // Croupier's own wallet never heard of the player.
    expect(await harness.store.readStream(streams.wallet(ana))).toEqual([]);
    const types = (await operatorEvents(ana)).map((e) => e.type);
    expect(types.filter((t) => t === 'OperatorDebitConfirmed')).toHaveLength(2);
    expect(types.filter((t) => t === 'OperatorCreditRequested')).toHaveLength(2);
    expect(types.filter((t) => t === 'OperatorCallDelivered')).toHaveLength(2);
    await expectAuditPasses(round.roundId);
  });

  it("deposits and withdrawals are refused: the operator's wallet holds the players' money", async () => {
    const hal = await player('hal');
    for (const [path, body] of [
      ['deposits', { amount: 5_000, currency: 'EUR', reference: `dep-${hal}` }],
      ['withdrawals', { amount: 5_000, reference: `wd-${hal}` }],
    ] as const) {
      const refused = await harness.api.as('operator').post(`/v1/wallets/${hal}/${path}`, body);
      expect(refused.status, path).toBe(409);
      expect(refused.body, path).toMatchObject({ code: 'HELD_BY_OPERATOR_WALLET' });
      expect(JSON.stringify(refused.body), path).toContain("operator's wallet");
    }
    expect(await harness.store.readStream(streams.wallet(hal))).toEqual([]);
    expect(await wallet.balance(hal)).toBe(START);
  });

  it("play money stays in Croupier: a fun session's stakes and payouts never reach the operator's wallet", async () => {
    const { api } = harness;
    const fia = await player('fia');
    const granted = expectStatus(
      await api
        .as('player', fia)
        .post<{ balance: number; currency: string }>(`/v1/wallets/${fia}/play-money`),
      200,
    );
    expect(granted.currency).toBe('FUN');
    const session = expectStatus(
      await api
        .as('player', fia)
        .post<{ sessionId: string }>('/v1/sessions', { preset: 'touch', mode: 'fun' }),
      201,
    );
    const opened = await api
      .as('player', fia)
      .post<RoundView>(`/v1/sessions/${session.sessionId}/rounds`);
    expect([200, 201], JSON.stringify(opened.body)).toContain(opened.status);
    const bets = [{ betId: randomUUID(), type: 'player', amount: 1_000 }];
    expectStatus(await placeBets(api, opened.body.roundId, fia, bets), 201);
    expectStatus(
      await api.as('player', fia).post(`/v1/sessions/${session.sessionId}/deal`, {}),
      200,
    );
    const done = await settled(api, opened.body.roundId);
    const won = paid(
      done,
      bets.map((b) => b.betId),
    );
    // Paid in the fun wallet by the seamless feed, as the ledger would in transfer mode.
    await vi.waitFor(
      async () => {
        const fun = expectStatus(
          await api
            .as('player', fia)
            .get<{ balance: number; openStakes: number }>(`/v1/wallets/${fia}/play-money`),
          200,
        );
        expect(fun).toMatchObject({ balance: granted.balance - 1_000 + won, openStakes: 0 });
      },
      { timeout: 20_000, interval: 100 },
    );
    // The operator neither was asked nor moved anything; Croupier's real wallet stays empty.
    expect(await wallet.balance(fia)).toBe(START);
    expect(await operatorEvents(fia)).toEqual([]);
    expect(await harness.store.readStream(streams.wallet(fia))).toEqual([]);
    for (const path of [
      `/v1/audit/rounds/${opened.body.roundId}`,
      `/v1/audit/wallets/${fia}/play-money`,
    ]) {
      const audit = expectStatus(await api.as('regulator').get<{ verdict: Verdict }>(path), 200);
      expect(audit.verdict.findings, path).toEqual([]);
    }
  });

  it('an accrued-commission table (land-based) is refused at opening, naming seamless mode', async () => {
    const refused = await harness.api
      .as('operator')
      .post('/v1/tables', { tableId: `salon-${randomUUID().slice(0, 6)}`, preset: 'land-based' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'INVALID_TABLE_CONFIG' });
    expect(JSON.stringify(refused.body)).toContain('seamless');
  });

  it('a bet the operator refuses for want of funds is refused with INSUFFICIENT_FUNDS', async () => {
    const poor = await player('poor', 500);
    const round = await openRound(harness.api, 'seam');
    const response = await placeBets(harness.api, round.roundId, poor, [
      { type: 'player', amount: 1_000 },
    ]);
    expect(response.status).toBe(422);
    expect((response.body as unknown as { code: string }).code).toBe('INSUFFICIENT_FUNDS');
    expect(await wallet.balance(poor)).toBe(500);
    await closeAndDeal(round.roundId);
  });

  it('wallet down during bets: the bet is refused with a clear problem, nothing is debited twice', async () => {
    const ben = await player('ben');
    const round = await openRound(harness.api, 'seam');
    const bet = { betId: randomUUID(), type: 'player', amount: 1_500 };
    wallet.fault('down');
    const refused = await placeBets(harness.api, round.roundId, ben, [bet]);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'UNAVAILABLE' });
    expect(JSON.stringify(refused.body)).toContain("operator's wallet");
    const view = expectStatus(
      await harness.api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(view.bets.filter((b) => b.betId === bet.betId)).toEqual([]);
    // Back: the given-up debit's rollback is delivered (recorded as a tombstone), then the
    // player's retry under the same bet id is a new debit, taken once.
    wallet.fault('pass');
    await drained(ben);
    expect(await wallet.balance(ben)).toBe(START);
    expectStatus(await placeBets(harness.api, round.roundId, ben, [bet]), 201);
    expect(await wallet.balance(ben)).toBe(START - 1_500);
    const calls = await wallet.callsOf(bet.betId);
    expect(calls.filter((c) => c.call === 'debit' && c.state === 'applied')).toHaveLength(1);
    const done = await closeAndDeal(round.roundId);
    await drained(ben);
    expect(await wallet.balance(ben)).toBe(START - 1_500 + paid(done, [bet.betId]));
    expect(START + (await impliedChange(ben))).toBe(await wallet.balance(ben));
  });

  it('wallet down during settlement: the credits are delivered when it returns, once', async () => {
    const cy = await player('cy');
    const round = await openRound(harness.api, 'seam');
    const bets = [
      { betId: randomUUID(), type: 'player', amount: 1_000 },
      { betId: randomUUID(), type: 'banker', amount: 1_000, bankerMode: 'commission' },
    ];
    expectStatus(await placeBets(harness.api, round.roundId, cy, bets), 201);
    wallet.fault('down');
    const done = await closeAndDeal(round.roundId);
    await vi.waitFor(
      async () => {
        const types = (await operatorEvents(cy)).map((e) => e.type);
        if (types.filter((t) => t === 'OperatorCreditRequested').length < 2)
          throw new Error('credits not requested yet');
      },
      { timeout: 20_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // the outbox tries, and fails
    expect(await wallet.balance(cy)).toBe(START - 2_000);
    wallet.fault('pass');
    await drained(cy);
    const expected =
      START -
      2_000 +
      paid(
        done,
        bets.map((b) => b.betId),
      );
    expect(await wallet.balance(cy)).toBe(expected);
    // Sending again moves nothing: each credit is applied once by its key.
    const again = new HttpOperatorWallet({
      url: wallet.url,
      secret: OPERATOR_SECRET,
      timeoutMs: 2_000,
      retries: 0,
    });
    for (const e of await operatorEvents(cy)) {
      if (e.type !== 'OperatorCreditRequested') continue;
      const { key, playerId, roundId, betId, amount, currency, kind } = e.data;
      const answer = await again.credit({ key, playerId, roundId, betId, amount, currency, kind });
      expect(answer.outcome).toBe('applied');
    }
    for (const bet of bets) {
      const credits = (await wallet.callsOf(bet.betId)).filter((c) => c.call === 'credit');
      expect(credits).toHaveLength(1);
    }
    expect(await wallet.balance(cy)).toBe(expected);
  });

  it('a debit applied whose answer is lost is confirmed by its status: no double charge, no free bet', async () => {
    const dee = await player('dee');
    const round = await openRound(harness.api, 'seam');
    const bet = { betId: randomUUID(), type: 'banker', amount: 2_500, bankerMode: 'commission' };
    wallet.fault('lose-answer', ['debit']);
    expectStatus(await placeBets(harness.api, round.roundId, dee, [bet]), 201);
    wallet.fault('pass');
    expect(await wallet.balance(dee)).toBe(START - 2_500);
    const debits = (await wallet.callsOf(bet.betId)).filter((c) => c.call === 'debit');
    expect(debits).toEqual([{ call: 'debit', state: 'applied', amount: 2_500 }]);
    const confirmed = (await operatorEvents(dee)).find((e) => e.type === 'OperatorDebitConfirmed');
    expect(confirmed?.type === 'OperatorDebitConfirmed' && confirmed.data.via).toBe('status');
    const done = await closeAndDeal(round.roundId);
    await drained(dee);
    expect(await wallet.balance(dee)).toBe(START - 2_500 + paid(done, [bet.betId]));
  });

  it('a debit applied whose answer is lost and whose status cannot be asked is rolled back: no free bet, no charge', async () => {
    const eve = await player('eve');
    const round = await openRound(harness.api, 'seam');
    const bet = { betId: randomUUID(), type: 'player', amount: 3_000 };
    wallet.fault('lose-answer', ['debit']);
    // The rollback Croupier asks for once it gives the debit up is held back too, until the
    // wallet is seen to hold the debit: the outbox would deliver it at once.
    wallet.fault('down', ['status', 'rollback']);
    const refused = await placeBets(harness.api, round.roundId, eve, [bet]);
    expect(refused.status).toBe(503);
    // The wallet did take it...
    expect(await wallet.balance(eve)).toBe(START - 3_000);
    wallet.fault('pass');
    // ...and gets the rollback once it answers again; the round never held the bet.
    await drained(eve);
    expect(await wallet.balance(eve)).toBe(START);
    const view = expectStatus(
      await harness.api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(view.bets.filter((b) => b.betId === bet.betId)).toEqual([]);
    expect(START + (await impliedChange(eve))).toBe(START);
    await closeAndDeal(round.roundId);
  });

  it('a void rolls the debits back', async () => {
    const fin = await player('fin');
    const round = await openRound(harness.api, 'seam');
    const bet = { betId: randomUUID(), type: 'tie', amount: 700 };
    expectStatus(await placeBets(harness.api, round.roundId, fin, [bet]), 201);
    expect(await wallet.balance(fin)).toBe(START - 700);
    expectStatus(
      await harness.api
        .as('supervisor')
        .post(`/v1/rounds/${round.roundId}/void`, { reason: 'table fault' }),
      200,
    );
    await settled(harness.api, round.roundId);
    await vi.waitFor(
      async () => {
        if (!(await operatorEvents(fin)).some((e) => e.type === 'OperatorRollbackRequested'))
          throw new Error('no rollback yet');
      },
      { timeout: 20_000 },
    );
    await drained(fin);
    expect(await wallet.balance(fin)).toBe(START);
    const calls = await wallet.callsOf(bet.betId);
    expect(calls.map((c) => `${c.call}:${c.state}`).sort()).toEqual([
      'debit:rolled-back',
      'rollback:applied',
    ]);
    await expectAuditPasses(round.roundId);
  });

  it('a bet id reused on another round to win back a lost stake moves no money', async () => {
    const gil = await player('gil');
    const ivo = await player('ivo');
    // Play until one of gil's two bets loses (a tie pushes both).
    let lost: { betId: string; amount: number } | null = null;
    while (lost === null) {
      const round = await openRound(harness.api, 'seam');
      const bets = [
        { betId: randomUUID(), type: 'player', amount: 1_000 },
        { betId: randomUUID(), type: 'banker', amount: 1_000, bankerMode: 'commission' },
      ];
      expectStatus(await placeBets(harness.api, round.roundId, gil, bets), 201);
      const done = await closeAndDeal(round.roundId);
      const line = done.settlement!.lines.find((l) => l.result === 'lose');
      if (line !== undefined) lost = { betId: line.betId, amount: 1_000 };
    }
    await drained(gil);
    const before = { gil: await wallet.balance(gil), ivo: await wallet.balance(ivo) };
    const next = await openRound(harness.api, 'seam');
    // The same player: refused before the operator's wallet is asked.
    const again = await placeBets(harness.api, next.roundId, gil, [
      { betId: lost.betId, type: 'player', amount: 1_000 },
    ]);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ID_CONFLICT' });
    // Another player under the same id: debited, refused by the round, rolled back.
    const other = await placeBets(harness.api, next.roundId, ivo, [
      { betId: lost.betId, type: 'player', amount: 1_000 },
    ]);
    expect(other.status).toBe(409);
    await closeAndDeal(next.roundId);
    await drained(gil, ivo);
    expect(await wallet.balance(gil)).toBe(before.gil);
    expect(await wallet.balance(ivo)).toBe(before.ivo);
    const credits = (await wallet.callsOf(lost.betId)).filter((c) => c.call === 'credit');
    expect(credits).toEqual([{ call: 'credit', state: 'applied', amount: 0 }]);
    await expectAuditPasses(next.roundId);
  });

  it('a record of the trail removed or altered, even re-hashed, fails the wallet audit, the round audit and the shoe replay', async () => {
    const ivy = await player('ivy');
    const round = await openRound(harness.api, 'seam');
    const bet = { betId: randomUUID(), type: 'player', amount: 1_200 };
    expectStatus(await placeBets(harness.api, round.roundId, ivy, [bet]), 201);
    await closeAndDeal(round.roundId);
    await drained(ivy);

    // The player's whole trail, as an insider would rewrite it: edited, then re-hashed.
    const evidence = (await loadOperatorWalletEvidence(harness.store, ivy))!;
    expect(auditOperatorWallet(evidence).verdict.findings).toEqual([]);
    const walletAudit = (edit: (records: RecordedEvent[]) => RecordedEvent[]) =>
      findingsOf(
        auditOperatorWallet({
          ...evidence,
          records: rechain(edit(evidence.records.map(copyEvent))),
        }).verdict,
      );
    const withoutType = (type: string) => (records: RecordedEvent[]) =>
      records.filter((r) => r.type !== type);
    expect(walletAudit(withoutType('OperatorDebitConfirmed'))).toContain('debits/DEBIT_UNMATCHED');
    expect(walletAudit(withoutType('OperatorCreditRequested'))).toContain('debits/DEBIT_UNMATCHED');
    expect(walletAudit(edited('OperatorDebitConfirmed', (d) => (d.amount = 1)))).toContain(
      'debits/DEBIT_UNMATCHED',
    );
    expect(
      walletAudit(edited('OperatorCreditRequested', (d) => (d.amount = Number(d.amount) + 500))),
    ).toContain('debits/CREDIT_MISMATCH');

    // The round audit and the shoe replay read the same records.
    const roundEvidence = (await loadRoundEvidence(harness.store, round.roundId))!;
    expect(auditRound(roundEvidence).verdict.findings).toEqual([]);
    const ofIvy = (records: readonly RecordedEvent[] | null | undefined) =>
      (records ?? []).map(copyEvent).filter((r) => r.stream === streams.operatorWallet(ivy));
    const others = (records: readonly RecordedEvent[] | null | undefined) =>
      (records ?? []).filter((r) => r.stream !== streams.operatorWallet(ivy));
    const roundAudit = (edit: (records: RecordedEvent[]) => RecordedEvent[]) =>
      findingsOf(
        auditRound({
          ...roundEvidence,
          operatorWallet: [
            ...others(roundEvidence.operatorWallet),
            ...edit(ofIvy(roundEvidence.operatorWallet)),
          ],
        }).verdict,
      );
    expect(roundAudit(withoutType('OperatorCreditRequested'))).toContain('debits/DEBIT_UNMATCHED');
    expect(
      roundAudit(edited('OperatorCreditRequested', (d) => (d.amount = Number(d.amount) + 500))),
    ).toContain('debits/CREDIT_MISMATCH');
    // Every record of the round gone: the round falls back to Croupier's wallet, which holds none.
    expect(findingsOf(auditRound({ ...roundEvidence, operatorWallet: null }).verdict)).toContain(
      'debits/DEBIT_UNMATCHED',
    );

    const shoeEvidence = (await loadShoeEvidence(harness.store, round.shoeId))!;
    expect(
      findingsOf(replayShoe(shoeEvidence).verdict).filter((f) => f.startsWith('debits')),
    ).toEqual([]);
    const shoeReplay = (edit: (records: RecordedEvent[]) => RecordedEvent[]) =>
      findingsOf(
        replayShoe({
          ...shoeEvidence,
          operatorWallet: [
            ...others(shoeEvidence.operatorWallet),
            ...edit(ofIvy(shoeEvidence.operatorWallet)),
          ],
        }).verdict,
      );
    expect(shoeReplay(withoutType('OperatorDebitConfirmed'))).toContain('debits/DEBIT_UNMATCHED');
    expect(
      shoeReplay(edited('OperatorCreditRequested', (d) => (d.amount = Number(d.amount) + 500))),
    ).toContain('debits/CREDIT_MISMATCH');
  });

  it('a played shoe with voids and disputes: every round audit passes, the operator holds what the records imply', async () => {
    const { api } = harness;
    await openTable(api, 'seam-shoe', 'generic', { decks: 1 });
    const players = await Promise.all(
      ['kai', 'lea', 'max', 'noa'].map((name) => player(name, 1_000_000)),
    );
    const random = testRandom(20261201);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    let shoeId: string | null = null;
    const roundIds: string[] = [];
    for (let n = 1; ; n++) {
      // The shoe's last round opens the next shoe only once its money is settled.
      const round = await vi.waitFor(() => openRound(api, 'seam-shoe'), {
        timeout: 20_000,
        interval: 100,
      });
      shoeId ??= round.shoeId;
      if (round.shoeId !== shoeId) {
        expectStatus(
          await api
            .as('supervisor')
            .post(`/v1/rounds/${round.roundId}/void`, { reason: 'end of test' }),
          200,
        );
        break;
      }
      roundIds.push(round.roundId);
      for (const id of players) {
        const type = pick(['player', 'banker', 'tie'] as const);
        const bet = {
          type,
          amount: 100 * (1 + Math.floor(random() * 30)),
          ...(type === 'banker' ? { bankerMode: 'commission' } : {}),
        };
        expectStatus(await placeBets(api, round.roundId, id, [bet]), 201);
      }
      if (n % 5 === 0) {
        // A void before the cards: every stake is rolled back.
        expectStatus(
          await api
            .as('supervisor')
            .post(`/v1/rounds/${round.roundId}/void`, { reason: 'misdeal' }),
          200,
        );
        await settled(api, round.roundId);
        continue;
      }
      // The wallet away while one round settles: its credits wait in the outbox.
      if (n % 4 === 0) wallet.fault('down', ['credit', 'rollback']);
      await closeAndDeal(round.roundId);
      wallet.fault('pass');
      // Not the shoe's last round: a round voided after settlement is never "settled" for the
      // table's next-shoe rule (shoe-lifecycle isSettled), so the table would stay stuck: a
      // bug of main, reported, not seamless mode's.
      const shoe = expectStatus(
        await api
          .as('regulator')
          .get<{ lastRoundNumber: number | null }>(`/v1/shoes/${round.shoeId}`),
        200,
      );
      if (n % 3 === 0 && shoe.lastRoundNumber !== round.number) {
        // A dispute after settlement: voided, every bet resettled to its stake.
        expectStatus(
          await api
            .as('supervisor')
            .post(`/v1/rounds/${round.roundId}/void`, { reason: 'dispute upheld' }),
          200,
        );
        await settled(api, round.roundId);
      }
    }
    expect(roundIds.length).toBeGreaterThan(3);
    // Resettlements are recorded asynchronously: wait for every void after settlement's.
    await vi.waitFor(
      async () => {
        for (const roundId of roundIds) {
          const types = (await harness.store.readStream(streams.round(roundId))).map((e) => e.type);
          if (
            types.includes('RoundSettled') &&
            types.includes('RoundVoided') &&
            !types.includes('RoundResettled')
          )
            throw new Error(`${roundId} not resettled yet`);
        }
      },
      { timeout: 20_000 },
    );
    await drained(...players);
    // What the game's own records say each player won or lost: stakes, payouts, refunds, resettlements.
    const gameChange = new Map(players.map((id) => [id, 0]));
    const add = (id: string, amount: number) =>
      gameChange.set(id, (gameChange.get(id) ?? 0) + amount);
    for (const roundId of roundIds) {
      for (const recorded of await harness.store.readStream(streams.round(roundId))) {
        const event = roundEventSchema.parse({ type: recorded.type, data: recorded.data });
        if (event.type === 'BetPlaced') add(event.data.playerId, -event.data.amount);
        if (event.type === 'RoundSettled')
          for (const l of event.data.lines) add(l.playerId, l.payout);
        if (event.type === 'BetsRefunded')
          for (const l of event.data.lines) add(l.playerId, l.amount);
        if (event.type === 'RoundResettled')
          for (const l of event.data.adjustments) add(l.playerId, l.delta);
      }
    }
    for (const id of players) {
      const balance = await wallet.balance(id);
      expect(balance, id).toBe(1_000_000 + gameChange.get(id)!);
      expect(balance, id).toBe(1_000_000 + (await impliedChange(id)));
      expect(await harness.store.readStream(streams.wallet(id))).toEqual([]);
    }
    for (const roundId of roundIds) await expectAuditPasses(roundId);
    // Each player's records audited from the first, every stake against its round...
    for (const id of players) {
      const audit = expectStatus(
        await api.as('regulator').get<{
          mode: string;
          stream: string;
          balance: number;
          verdict: { ok: boolean; findings: unknown[] };
        }>(`/v1/audit/wallets/${id}`),
        200,
      );
      expect(audit.verdict.findings, id).toEqual([]);
      expect(audit.mode).toBe('seamless');
      expect(audit.stream).toBe(streams.operatorWallet(id));
      expect(audit.balance, id).toBe(gameChange.get(id));
    }
    // ...and the shoe replayed with its stakes checked against the operator wallet's records.
    const replay = expectStatus(
      await api.as('regulator').get<{
        verdict: { ok: boolean; findings: unknown[]; checks: { check: string; status: string }[] };
      }>(`/v1/audit/shoes/${shoeId}/replay`),
      200,
    );
    expect(replay.verdict.findings).toEqual([]);
    expect(replay.verdict.checks.find((c) => c.check === 'debits')?.status).toBe('pass');
  });
});
