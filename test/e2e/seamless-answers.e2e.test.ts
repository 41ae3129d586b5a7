import { randomUUID } from 'node:crypto';
import { operatorWalletEventSchema, streams, type OperatorWalletEvent } from '@croupier/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { expectStatus, openRound, openTable, placeBets, settled } from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type Fault,
  type RelayAnswer,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

const START = 100_000;
/** Attempts after the first (OPERATOR_WALLET_RETRIES below): a call is sent this many times + 1. */
const RETRIES = 1;
// Generous: a loaded machine answers a passing call late, and a retry would change what is counted.
const TIMEOUT_MS = 1_500;

const problem = (code: string) => ({ code, detail: 'not a call' });
const refusal = (code: string) => ({ status: 'refused', code, detail: `refused: ${code}` });

/**
 * The contract of docs/wallet-integration.md#every-answer-and-what-croupier-does, one class of
 * answer at a time, against Croupier's HTTP adapter and the example operator wallet (behind the
 * relay, which answers in the wallet's place where the example never would: a 401, a 400, a 502,
 * a code of the wallet's own). Each test names the row of the table it checks.
 */
describe('seamless mode: every class of answer, and what Croupier does with it', () => {
  let wallet: OperatorWalletFixture;
  let harness: Harness;
  beforeAll(async () => {
    wallet = await startOperatorWallet();
    harness = await startHarness({
      store: 'memory',
      // Distributed: the parked-messages list the outbox tests read is the gateway's.
      gateway: true,
      env: {
        WALLET_MODE: 'seamless',
        OPERATOR_WALLET_URL: wallet.url,
        OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
        OPERATOR_WALLET_TIMEOUT_MS: String(TIMEOUT_MS),
        OPERATOR_WALLET_RETRIES: String(RETRIES),
        OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
      },
    });
    await openTable(harness.api, 'answers', 'generic');
  });
  afterEach(() => {
    wallet.fault('pass');
    wallet.delay(0);
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  async function player(name: string, balance = START, currency = 'EUR'): Promise<string> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    await wallet.open(id, balance, currency);
    return id;
  }

  async function operatorEvents(playerId: string): Promise<OperatorWalletEvent[]> {
    const recorded = await harness.store.readStream(streams.operatorWallet(playerId));
    return recorded.map((e) => operatorWalletEventSchema.parse({ type: e.type, data: e.data }));
  }

  const ofType = <T extends OperatorWalletEvent['type']>(events: OperatorWalletEvent[], type: T) =>
    events.filter((e): e is Extract<OperatorWalletEvent, { type: T }> => e.type === type);

  /** Requests per route seen by the relay while `run` ran. */
  async function counting(run: () => Promise<void>): Promise<Record<string, number>> {
    const before = new Map(wallet.seen);
    await run();
    const seen: Record<string, number> = {};
    for (const route of ['debit', 'credit', 'rollback', 'status'])
      seen[route] = (wallet.seen.get(route) ?? 0) - (before.get(route) ?? 0);
    return seen;
  }

  /** Opens a round, runs the test's bets on it, then closes and deals it. */
  async function onRound(run: (roundId: string) => Promise<void>): Promise<void> {
    const round = await openRound(harness.api, 'answers');
    try {
      await run(round.roundId);
    } finally {
      expectStatus(
        await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`),
        200,
      );
      expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
      await settled(harness.api, round.roundId);
    }
  }

  /** Every credit and rollback Croupier asked for is delivered, and the wallet holds `balance`. */
  async function delivered(playerId: string, balance: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const events = await operatorEvents(playerId);
        const done = new Set(ofType(events, 'OperatorCallDelivered').map((e) => e.data.key));
        for (const e of [
          ...ofType(events, 'OperatorCreditRequested'),
          ...ofType(events, 'OperatorRollbackRequested'),
        ])
          expect(done.has(e.data.key), `${e.type} ${e.data.key}`).toBe(true);
        expect(await wallet.balance(playerId)).toBe(balance);
      },
      { timeout: 15_000, interval: 50 },
    );
  }

  describe('debit', () => {
    /** Places one bet of 1000 under `fault` on the debit route; the answer and the calls seen. */
    async function betUnder(
      fault: Fault | RelayAnswer,
      playerId: string,
      roundId: string,
      routes: readonly string[] = ['debit'],
    ) {
      const bet = { betId: randomUUID(), type: 'player', amount: 1_000 };
      wallet.fault(fault, routes);
      let response!: Awaited<ReturnType<typeof placeBets>>;
      const seen = await counting(async () => {
        response = await placeBets(harness.api, roundId, playerId, [bet]);
      });
      wallet.fault('pass');
      const body = response.body as unknown as {
        code?: string;
        walletCode?: string;
      };
      return { status: response.status, body, seen, betId: bet.betId };
    }

    it('200 applied: the bet is placed on the debit confirmed by its answer', async () => {
      const ann = await player('ann');
      await onRound(async (roundId) => {
        const placed = await betUnder('pass', ann, roundId);
        expect(placed.status).toBe(201);
        expect(placed.seen).toMatchObject({ debit: 1, status: 0, rollback: 0 });
        const [confirmed] = ofType(await operatorEvents(ann), 'OperatorDebitConfirmed');
        expect(confirmed?.data.via).toBe('answer');
        expect(await wallet.balance(ann)).toBe(START - 1_000);
      });
    });

    it.each([
      ['INSUFFICIENT_FUNDS', 422, 'INSUFFICIENT_FUNDS'],
      ['PLAYER_UNKNOWN', 404, 'WALLET_NOT_FOUND'],
      ['CURRENCY_MISMATCH', 422, 'CURRENCY_MISMATCH'],
    ] as const)(
      'a named refusal %s: the bet is refused with %i %s, once, no status, no rollback',
      async (walletCode, status, code) => {
        // The example wallet refuses for real: too poor, no account, another currency.
        const id =
          walletCode === 'PLAYER_UNKNOWN'
            ? `ghost-${randomUUID().slice(0, 8)}`
            : walletCode === 'INSUFFICIENT_FUNDS'
              ? await player('poor', 500)
              : await player('usd', START, 'USD');
        await onRound(async (roundId) => {
          const refused = await betUnder('pass', id, roundId);
          expect(refused.status).toBe(status);
          expect(refused.body.code).toBe(code);
          expect(refused.seen).toMatchObject({ debit: 1, status: 0, rollback: 0 });
          const events = await operatorEvents(id);
          expect(ofType(events, 'OperatorDebitFailed').map((e) => e.data)).toMatchObject([
            { outcome: 'refused', code: walletCode },
          ]);
          expect(ofType(events, 'OperatorRollbackRequested')).toEqual([]);
        });
      },
    );

    it("a refusal with the wallet's own code: 422 OPERATOR_WALLET_REFUSED naming it, once, no rollback", async () => {
      const sue = await player('sue');
      await onRound(async (roundId) => {
        const refused = await betUnder(
          { answer: 422, body: refusal('SELF_EXCLUDED') },
          sue,
          roundId,
        );
        expect(refused.status).toBe(422);
        expect(refused.body.code).toBe('OPERATOR_WALLET_REFUSED');
        expect(refused.body.walletCode).toBe('SELF_EXCLUDED');
        expect(refused.seen).toMatchObject({ debit: 1, status: 0, rollback: 0 });
        const events = await operatorEvents(sue);
        expect(ofType(events, 'OperatorDebitFailed')[0]?.data).toMatchObject({
          outcome: 'refused',
          code: 'SELF_EXCLUDED',
        });
        expect(ofType(events, 'OperatorRollbackRequested')).toEqual([]);
      });
    });

    it('409 KEY_CONFLICT: refused, not rolled back (the key names another movement), 503 for a retry under a new key', async () => {
      const kay = await player('kay');
      await onRound(async (roundId) => {
        const refused = await betUnder(
          { answer: 409, body: refusal('KEY_CONFLICT') },
          kay,
          roundId,
        );
        expect(refused.status).toBe(503);
        expect(refused.body.code).toBe('UNAVAILABLE');
        expect(refused.seen).toMatchObject({ debit: 1, status: 0, rollback: 0 });
        const events = await operatorEvents(kay);
        expect(ofType(events, 'OperatorDebitFailed')[0]?.data).toMatchObject({
          outcome: 'refused',
          code: 'KEY_CONFLICT',
        });
        expect(ofType(events, 'OperatorRollbackRequested')).toEqual([]);
      });
    });

    it.each([
      ['401', { answer: 401, body: problem('SIGNATURE_INVALID') }],
      ['400', { answer: 400, body: problem('VALIDATION_ERROR') }],
      ['404 of a proxy', { answer: 404, body: { error: 'no route' } }],
      ['422 without the Refused body', { answer: 422, body: problem('UNPROCESSABLE') }],
    ] as const)(
      'another 4xx (%s): not retried, its status asked, given up and rolled back; 503',
      async (_name, fault) => {
        const rex = await player('rex');
        await onRound(async (roundId) => {
          const refused = await betUnder(fault, rex, roundId);
          expect(refused.status).toBe(503);
          expect(refused.body.code).toBe('UNAVAILABLE');
          expect(refused.seen).toMatchObject({ debit: 1, status: 1 });
          const events = await operatorEvents(rex);
          expect(ofType(events, 'OperatorDebitFailed')[0]?.data).toMatchObject({
            outcome: 'unresolved',
          });
          expect(ofType(events, 'OperatorRollbackRequested')[0]?.data).toMatchObject({
            reason: 'debit-unresolved',
          });
          await delivered(rex, START);
        });
      },
    );

    it('a 401 after the wallet applied it anyway: the status says applied, and the bet stands', async () => {
      const amy = await player('amy');
      await onRound(async (roundId) => {
        const placed = await betUnder(
          { answer: 401, body: problem('SIGNATURE_INVALID'), applied: true },
          amy,
          roundId,
        );
        expect(placed.status).toBe(201);
        expect(placed.seen).toMatchObject({ debit: 1, status: 1, rollback: 0 });
        const [confirmed] = ofType(await operatorEvents(amy), 'OperatorDebitConfirmed');
        expect(confirmed?.data.via).toBe('status');
        expect(await wallet.balance(amy)).toBe(START - 1_000);
      });
    });

    it.each([
      ['500', { answer: 500, body: { error: 'boom' } }],
      ['502 of a proxy', { answer: 502, body: { error: 'bad gateway' } }],
      ['429', { answer: 429, body: { error: 'slow down' } }],
      ['200 that is not Applied', { answer: 200, body: { ok: true } }],
      ['no connection', 'down'],
    ] as const)(
      'no answer (%s): retried under the same key, then its status; unknown: given up, rolled back, 503',
      async (_name, fault) => {
        const nia = await player('nia');
        await onRound(async (roundId) => {
          const refused = await betUnder(fault, nia, roundId);
          expect(refused.status).toBe(503);
          expect(refused.body.code).toBe('UNAVAILABLE');
          expect(refused.seen).toMatchObject({ debit: RETRIES + 1, status: 1 });
          const events = await operatorEvents(nia);
          const [asked] = ofType(events, 'OperatorDebitRequested');
          expect(ofType(events, 'OperatorRollbackRequested')[0]?.data).toMatchObject({
            reason: 'debit-unresolved',
            debitKey: asked!.data.key,
          });
          await delivered(nia, START);
        });
      },
    );

    it('no answer (a timeout) while the wallet applied it: its status confirms it, one debit', async () => {
      const tim = await player('tim');
      await onRound(async (roundId) => {
        const placed = await betUnder(
          { answer: 504, body: { error: 'gateway timeout' }, applied: true },
          tim,
          roundId,
        );
        expect(placed.status).toBe(201);
        expect(placed.seen).toMatchObject({ debit: RETRIES + 1, status: 1, rollback: 0 });
        expect(await wallet.balance(tim)).toBe(START - 1_000);
        expect((await wallet.callsOf(placed.betId)).filter((c) => c.call === 'debit')).toEqual([
          { call: 'debit', state: 'applied', amount: 1_000 },
        ]);
      });
    });

    it('no answer, and its status a named refusal: the bet is refused with that refusal', async () => {
      const pia = await player('pia', 500);
      await onRound(async (roundId) => {
        const refused = await betUnder(
          { answer: 503, body: { error: 'unavailable' }, applied: true },
          pia,
          roundId,
        );
        expect(refused.status).toBe(422);
        expect(refused.body.code).toBe('INSUFFICIENT_FUNDS');
        expect(refused.seen).toMatchObject({ status: 1, rollback: 0 });
      });
    });

    it('a timeout of the debit and its status: given up and rolled back; the wallet gets the rollback when it answers', async () => {
      const ted = await player('ted');
      await onRound(async (roundId) => {
        wallet.delay(TIMEOUT_MS + 300);
        const refused = await betUnder('pass', ted, roundId, ['debit']);
        wallet.delay(0);
        expect(refused.status).toBe(503);
        // The status query gets no answer either, and is retried as the debit was.
        expect(refused.seen).toMatchObject({ debit: RETRIES + 1, status: RETRIES + 1 });
        // The late debits reach the wallet after the rollback or before it: either way the
        // player ends where they began.
        await delivered(ted, START);
      });
    });

    it('the status answered a 4xx or no answer: given up and rolled back, 503', async () => {
      const sam = await player('sam');
      await onRound(async (roundId) => {
        const refused = await betUnder(
          { answer: 401, body: problem('SIGNATURE_INVALID') },
          sam,
          roundId,
          ['debit', 'status'],
        );
        expect(refused.status).toBe(503);
        expect(refused.seen).toMatchObject({ debit: 1, status: 1 });
        expect(ofType(await operatorEvents(sam), 'OperatorDebitFailed')[0]?.data).toMatchObject({
          outcome: 'unresolved',
        });
        await delivered(sam, START);
      });
    });
  });

  describe('credit and rollback (the outbox)', () => {
    /** A bet placed and cleared (its rollback), or placed and settled (its credit). */
    async function owe(call: 'credit' | 'rollback', playerId: string, roundId: string) {
      const bet = { betId: randomUUID(), type: 'player', amount: 1_000 };
      expectStatus(await placeBets(harness.api, roundId, playerId, [bet]), 201);
      if (call === 'rollback')
        expectStatus(
          await harness.api
            .as('player', playerId)
            .delete(`/v1/rounds/${roundId}/bets/${bet.betId}`),
          200,
        );
      return bet.betId;
    }

    async function requested(playerId: string, call: 'credit' | 'rollback') {
      return vi.waitFor(
        async () => {
          const events = await operatorEvents(playerId);
          const asked =
            call === 'credit'
              ? ofType(events, 'OperatorCreditRequested')
              : ofType(events, 'OperatorRollbackRequested');
          expect(asked).toHaveLength(1);
          return asked[0]!.data.key;
        },
        { timeout: 15_000, interval: 50 },
      );
    }

    async function parkedKeys(playerId: string): Promise<string[]> {
      const { messages } = expectStatus(
        await harness.api.as('operator').get<{
          messages: { consumer: string; messageId: string; playerId: string | null }[];
        }>('/v1/admin/parked-messages?status=all'),
        200,
      );
      return messages
        .filter((m) => m.consumer === 'operator-wallet-outbox' && m.playerId === playerId)
        .map((m) => m.messageId);
    }

    /** Runs the call's round under `fault` on its route, until the relay saw it `times` times. */
    async function underFault(
      call: 'credit' | 'rollback',
      fault: Fault | RelayAnswer,
      times: number,
    ): Promise<{ playerId: string; key: string }> {
      const playerId = await player(call);
      wallet.fault(fault, [call]);
      let key = '';
      await onRound(async (roundId) => {
        await owe(call, playerId, roundId);
        if (call === 'rollback') key = await requested(playerId, call);
      });
      if (call === 'credit') key = await requested(playerId, call);
      await vi.waitFor(
        () => {
          expect(wallet.sentUnder(key)).toBeGreaterThanOrEqual(times);
        },
        {
          timeout: 15_000,
          interval: 50,
        },
      );
      return { playerId, key };
    }

    for (const call of ['credit', 'rollback'] as const) {
      it(`${call}, 200 applied: delivered once`, async () => {
        const { playerId, key } = await underFault(call, 'pass', 1);
        await vi.waitFor(
          async () => {
            expect(ofType(await operatorEvents(playerId), 'OperatorCallDelivered')).toHaveLength(1);
          },
          { timeout: 15_000 },
        );
        expect(wallet.sentUnder(key)).toBe(1);
      });

      it(`${call}, a refusal (422 with a code): parked, not sent again at every pass`, async () => {
        const { playerId, key } = await underFault(
          call,
          { answer: 422, body: refusal('ACCOUNT_LOCKED') },
          1,
        );
        await vi.waitFor(
          async () => {
            expect(await parkedKeys(playerId)).toEqual([key]);
          },
          {
            timeout: 15_000,
          },
        );
        await new Promise((resolve) => setTimeout(resolve, 500)); // five passes of the outbox
        expect(wallet.sentUnder(key)).toBe(1);
        expect(ofType(await operatorEvents(playerId), 'OperatorCallDelivered')).toEqual([]);
      });

      it(`${call}, another 4xx (401): not parked, sent again at each pass, delivered once it is answered`, async () => {
        const { playerId, key } = await underFault(
          call,
          { answer: 401, body: problem('SIGNATURE_INVALID') },
          3,
        );
        expect(await parkedKeys(playerId)).toEqual([]);
        wallet.fault('pass');
        await vi.waitFor(
          async () => {
            expect(
              ofType(await operatorEvents(playerId), 'OperatorCallDelivered').map(
                (e) => e.data.key,
              ),
            ).toEqual([key]);
          },
          { timeout: 15_000 },
        );
      });

      it(`${call}, no answer (502): retried under the same key until answered, then delivered once`, async () => {
        const { playerId, key } = await underFault(
          call,
          { answer: 502, body: { error: 'bad gateway' }, applied: true },
          RETRIES + 2,
        );
        expect(await parkedKeys(playerId)).toEqual([]);
        wallet.fault('pass');
        await vi.waitFor(
          async () => {
            expect(
              ofType(await operatorEvents(playerId), 'OperatorCallDelivered').map(
                (e) => e.data.key,
              ),
            ).toEqual([key]);
          },
          { timeout: 15_000 },
        );
        // Applied at the first attempt, and once: every later one was answered from its key.
        const calls = await wallet.books.status(key);
        expect(calls.state).toBe('applied');
      });
    }
  });
});
