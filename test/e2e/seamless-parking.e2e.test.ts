import { randomUUID } from 'node:crypto';
import {
  operatorWalletEventSchema,
  PLAY_MONEY_CURRENCY,
  presetConfig,
  streams,
  type CommandContext,
  type OperatorWalletEvent,
} from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { expectStatus, openRound, openTable, placeBets, settled } from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

const START = 100_000;

interface ParkedView {
  id: string;
  consumer: string;
  messageId: string;
  status: 'parked' | 'retrying' | 'resolved';
  code: string;
  attempts: number;
  timesParked: number;
  playerId: string | null;
  message: Record<string, unknown>;
}

/**
 * Issue 24, defect 6 in seamless mode (ADR 0035): a credit the operator's wallet refuses is
 * parked by the outbox (sent once, not again at every pass) while the other players' credits
 * are delivered, a restart does not send it again (nor does the gateway's outbox beside the wallet
 * service); operators list it and retry it once the account is fixed, under the same key.
 * A fun win Croupier's own fun wallet refuses is parked by the feed, and the records after it go
 * on. The example operator wallet on PostgreSQL, behind the relay, is the operator's wallet.
 */
describe('seamless mode: what the wallets refuse is parked, and the others go on', () => {
  let wallet: OperatorWalletFixture;
  let harness: Harness;
  beforeAll(async () => {
    wallet = await startOperatorWallet();
    harness = await startHarness({
      store: 'postgres',
      gateway: true,
      // Distributed: it restarts the wallet service.
      ownCluster: true,
      env: {
        WALLET_MODE: 'seamless',
        OPERATOR_WALLET_URL: wallet.url,
        OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
        OPERATOR_WALLET_TIMEOUT_MS: '1000',
        OPERATOR_WALLET_RETRIES: '1',
        OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
      },
    });
    await openTable(harness.api, 'seam-park', 'generic');
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  async function player(name: string, balance = START): Promise<string> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    await wallet.open(id, balance);
    return id;
  }

  async function operatorEvents(playerId: string): Promise<OperatorWalletEvent[]> {
    const recorded = await harness.store.readStream(streams.operatorWallet(playerId));
    return recorded.map((e) => operatorWalletEventSchema.parse({ type: e.type, data: e.data }));
  }

  const creditKeys = async (playerId: string) =>
    (await operatorEvents(playerId)).flatMap((e) =>
      e.type === 'OperatorCreditRequested' ? [e.data.key] : [],
    );

  /** Every credit asked for the player is confirmed in Croupier's records and at the wallet. */
  async function credited(playerId: string, count: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const events = await operatorEvents(playerId);
        const keys = await creditKeys(playerId);
        expect(keys).toHaveLength(count);
        const delivered = new Set(
          events.flatMap((e) => (e.type === 'OperatorCallDelivered' ? [e.data.key] : [])),
        );
        for (const key of keys) {
          expect(delivered.has(key), key).toBe(true);
          expect((await wallet.books.status(key)).state, key).toBe('applied');
        }
      },
      { timeout: 30_000, interval: 50 },
    );
  }

  async function parkedOf(consumer: string, playerId: string): Promise<ParkedView[]> {
    const { messages } = expectStatus(
      await harness.api
        .as('operator')
        .get<{ messages: ParkedView[] }>('/v1/admin/parked-messages?status=all'),
      200,
    );
    return messages.filter((m) => m.consumer === consumer && m.playerId === playerId);
  }

  /** Polls the operators' list until `done` holds of the player's parked messages. */
  const parkedUntil = (
    consumer: string,
    playerId: string,
    done: (list: ParkedView[]) => boolean,
  ): Promise<ParkedView[]> =>
    vi.waitFor(
      async () => {
        const list = await parkedOf(consumer, playerId);
        if (!done(list)) throw new Error(`${consumer} ${playerId}: ${JSON.stringify(list)}`);
        return list;
      },
      { timeout: 30_000, interval: 50 },
    );

  const retry = (id: string) =>
    harness.api.as('operator').post<{ status: string }>(`/v1/admin/parked-messages/${id}/retry`);

  async function playOne(playerId: string, bets: { type: string; amount: number }[]) {
    const round = await openRound(harness.api, 'seam-park');
    expectStatus(await placeBets(harness.api, round.roundId, playerId, bets), 201);
    return round.roundId;
  }
  async function closeAndDeal(roundId: string) {
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${roundId}/deal`), 200);
    return settled(harness.api, roundId);
  }

  it("parks a credit the operator's wallet refuses, sends it once, and delivers the other players' credits; a retry after the fix delivers it", async () => {
    const ana = await player('ana');
    const bo = await player('bo');
    const first = await playOne(ana, [{ type: 'player', amount: 1_000 }]);
    // Ana's account is moved to another currency after her stake was taken: the wallet refuses
    // her credit (CURRENCY_MISMATCH) until the operator puts it right.
    await wallet.open(ana, START - 1_000, 'USD');
    await closeAndDeal(first);
    const [parked] = await parkedUntil('operator-wallet-outbox', ana, (list) => list.length > 0);
    const [key] = await creditKeys(ana);
    expect(parked).toMatchObject({
      status: 'parked',
      code: 'CURRENCY_MISMATCH',
      attempts: 1,
      messageId: key,
    });
    expect(parked!.message).toMatchObject({ call: 'credit', key, playerId: ana });

    // Bo's round comes after; his credits, owed after hers, are delivered.
    const second = await playOne(bo, [
      { type: 'player', amount: 1_000 },
      { type: 'banker', amount: 2_000 },
    ]);
    await closeAndDeal(second);
    await credited(bo, 2);
    // The passes that delivered Bo's credits did not send Ana's again: it was sent once.
    expect(wallet.sentUnder(key!)).toBe(1);
    expect((await wallet.books.status(key!)).state).toBe('refused');

    // The outbox's process restarts (distributed: the wallet service, whose outbox the gateway's
    // takes over while it is down). The outbox that runs next reads the park from the log: Bo's
    // next credit is delivered, and Ana's is still not sent again.
    if (DEPLOYMENT === 'distributed') {
      const walletService = harness.cluster!.get('wallet');
      await walletService.stop();
      await walletService.start();
    } else {
      await harness.restart();
    }
    const third = await playOne(bo, [{ type: 'player', amount: 1_000 }]);
    await closeAndDeal(third);
    await credited(bo, 3);
    expect(wallet.sentUnder(key!)).toBe(1);

    // Retried before the fix: sent once more under its key, refused, parked again.
    expect(expectStatus(await retry(parked!.id), 202)).toMatchObject({ status: 'retrying' });
    const again = await parkedUntil('operator-wallet-outbox', ana, ([v]) => v?.timesParked === 2);
    expect(again[0]).toMatchObject({ status: 'parked', code: 'CURRENCY_MISMATCH', attempts: 2 });
    expect(wallet.sentUnder(key!)).toBe(2);

    // The fix: the account is in euros again. The retry sends the same key; the wallet applies
    // it, and the credit is delivered and the parked message resolved.
    await wallet.open(ana, START - 1_000, 'EUR');
    expectStatus(await retry(parked!.id), 202);
    await parkedUntil('operator-wallet-outbox', ana, ([v]) => v?.status === 'resolved');
    await credited(ana, 1);
    const round = await settled(harness.api, first);
    const payout = round.settlement!.lines.reduce((sum, line) => sum + line.payout, 0);
    expect(await wallet.balance(ana)).toBe(START - 1_000 + payout);
    // Nothing is left to retry.
    const done = await retry(parked!.id);
    expect(done.status).toBe(409);
    expect(done.body).toMatchObject({ code: 'NOT_PARKED' });
  }, 120_000);

  // The fun wallet is filled to the largest exact balance through the one-process System: no
  // route can (FUN_BALANCE is bounded at 10^15 since), and the distributed run has no System.
  it.runIf(DEPLOYMENT === 'single')(
    "the feed parks a fun win Croupier's fun wallet refuses, and the records after it become calls (one process: fills a fun wallet past what any route grants)",
    async () => {
      const { system } = harness;
      const fin = `fin-${randomUUID().slice(0, 8)}`;
      const as = (id: string, role: 'player' | 'operator'): CommandContext => ({
        actor: { id, role },
        correlationId: randomUUID(),
        causationId: null,
        now: () => new Date(),
      });
      const me = as(fin, 'player');
      const sessionId = `s-${fin}`;
      await system.rounds.openSession(
        {
          sessionId,
          config: presetConfig('touch', { currency: PLAY_MONEY_CURRENCY }),
          session: { ownerId: fin, idleTimeoutMs: 3_600_000, fun: true },
        },
        me,
      );
      const funWallet = () => system.wallets.getWallet(fin, 'fun');
      // Fin plays until he wins, his fun wallet full before each round (as an unbounded
      // FUN_BALANCE allowed, issue 24): the win's payout would take it past 2^53 - 1.
      let won: string | null = null;
      for (let played = 0; played < 200 && won === null; played++) {
        await system.wallets.grantPlayMoney(
          { playerId: fin, topUpTo: Number.MAX_SAFE_INTEGER },
          me,
        );
        const { round } = await system.rounds.sessionRound(sessionId, me);
        await system.rounds.placeBets(round.roundId, fin, [{ type: 'player', amount: 1_000 }], me);
        await system.rounds.dealAsPlayer(round.roundId, fin, 0, me);
        const done = await settled(harness.api, round.roundId);
        if (done.settlement!.lines.some((line) => line.result === 'win')) won = round.roundId;
        // A lost or pushed stake is closed before the next top-up, which a late payout would
        // overflow too.
        else
          await vi.waitFor(async () => {
            expect((await funWallet()).openStakes).toBe(0);
          });
      }
      expect(won).not.toBeNull();
      const [parked] = await parkedUntil('operator-wallet-feed', fin, (list) => list.length > 0);
      expect(parked).toMatchObject({ status: 'parked', code: 'BALANCE_LIMIT', attempts: 1 });
      expect(parked!.message).toMatchObject({ type: 'RoundSettled' });

      // A real player's round after it: the feed went on, his credit is asked and delivered.
      const cy = await player('cy');
      const after = await playOne(cy, [{ type: 'banker', amount: 1_000 }]);
      await closeAndDeal(after);
      await credited(cy, 1);
      expect((await funWallet()).openStakes).toBe(1);

      // The fix: the fun wallet has room again (a play-money stake on the next round); the
      // retry applies the win.
      const { round } = await system.rounds.sessionRound(sessionId, me);
      await system.rounds.placeBets(
        round.roundId,
        fin,
        [{ type: 'banker', amount: 40_000, bankerMode: 'commission' }],
        me,
      );
      expectStatus(await retry(parked!.id), 202);
      await parkedUntil('operator-wallet-feed', fin, ([v]) => v?.status === 'resolved');
      expect((await funWallet()).openStakes).toBe(1);
    },
    120_000,
  );
});
