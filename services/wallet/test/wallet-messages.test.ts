import { randomUUID } from 'node:crypto';
import { CommandHandler, DEFAULT_RETRY, systemContext } from '@croupier/application';
import { walletMessageSchema, type WalletMessage } from '@croupier/contracts';
import { MemoryEventStore } from '@croupier/eventstore';
import { InProcessBus } from '@croupier/messaging';
import { describe, expect, it } from 'vitest';
import {
  startWalletOutbox,
  walletMessagePage,
  WalletService,
  type WalletView,
} from '../src/index.js';

const context = systemContext('wallet-messages-test');
const ROUND = 'live.1.1';

/** Every kind of movement a transfer-mode wallet records, on two players. */
async function movements(wallets: WalletService): Promise<void> {
  await wallets.deposit(
    { playerId: 'ana', amount: 10_000, currency: 'EUR', reference: 'd1' },
    context,
  );
  await wallets.deposit(
    { playerId: 'bo', amount: 5_000, currency: 'EUR', reference: 'd2' },
    context,
  );
  const [won, refused, voided, adjusted] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const stakes = [
    { betId: won, amount: 1_000 },
    { betId: refused, amount: 500 },
    { betId: adjusted, amount: 2_000 },
  ];
  await wallets.debitStakes({ playerId: 'ana', roundId: ROUND, currency: 'EUR', stakes }, context);
  await wallets.debitStakes(
    { playerId: 'bo', roundId: ROUND, currency: 'EUR', stakes: [{ betId: voided, amount: 700 }] },
    context,
  );
  const settlementId = randomUUID();
  await wallets.creditPayout(
    'ana',
    {
      type: 'CreditPayout',
      currency: 'EUR',
      settlementId,
      roundId: ROUND,
      betId: won,
      amount: 1_950,
      result: 'win',
      accruedCommission: null,
    },
    context,
  );
  await wallets.creditPayout(
    'ana',
    {
      type: 'CreditPayout',
      currency: 'EUR',
      settlementId,
      roundId: ROUND,
      betId: adjusted,
      amount: 4_000,
      result: 'win',
      accruedCommission: null,
    },
    context,
  );
  await wallets.refundStake(
    { playerId: 'ana', roundId: ROUND, betId: refused, amount: 500, reason: 'bet-rejected' },
    context,
  );
  await wallets.refundStake(
    { playerId: 'bo', roundId: ROUND, betId: voided, amount: 700, reason: 'orphaned-debit' },
    context,
  );
  await wallets.adjustPayout(
    'ana',
    {
      type: 'AdjustPayout',
      currency: 'EUR',
      resettlementId: randomUUID(),
      roundId: ROUND,
      betId: adjusted,
      delta: -4_000,
      commissionDelta: 0,
      tableId: 'live',
      shiftId: randomUUID(),
      reason: 'correction',
    },
    context,
  );
  await wallets.withdraw({ playerId: 'bo', amount: 1_234, reference: 'w1' }, context);
}

/** A mirror written from docs/settlement-messages.md: add `amount` once per messageId. */
function mirrorOf(messages: readonly WalletMessage[]): Map<string, number> {
  const applied = new Set<string>();
  const balances = new Map<string, number>();
  for (const message of messages) {
    if (applied.has(message.messageId)) continue;
    applied.add(message.messageId);
    balances.set(message.playerId, (balances.get(message.playerId) ?? 0) + message.amount);
  }
  return balances;
}

describe('the public settlement messages (version 2)', () => {
  it('are one per wallet event, numbered without gaps, and a mirror of them equals the balances', async () => {
    const store = new MemoryEventStore();
    const wallets = new WalletService(new CommandHandler(store, { retry: DEFAULT_RETRY }));
    await movements(wallets);
    const page = await walletMessagePage(store, 0n, 1_000);
    expect(page.more).toBe(false);
    for (const message of page.messages) walletMessageSchema.parse(message);
    expect(page.messages.map((m) => `${m.playerId}:${m.kind}`)).toEqual([
      'ana:deposit',
      'bo:deposit',
      'ana:debit',
      'ana:debit',
      'ana:debit',
      'bo:debit',
      'ana:payout',
      'ana:payout',
      'ana:refund',
      'bo:refund',
      'ana:adjustment',
      'bo:withdrawal',
    ]);
    const views = new Map<string, WalletView>();
    for (const player of ['ana', 'bo']) {
      views.set(player, await wallets.getWallet(player));
      const own = page.messages.filter((m) => m.playerId === player);
      expect(own.map((m) => m.sequence)).toEqual(own.map((_, i) => i + 1));
      expect(own.at(-1)?.balance).toBe(views.get(player)?.balance);
    }
    expect(mirrorOf([...page.messages, ...page.messages.slice(3)])).toEqual(
      new Map([...views].map(([player, view]) => [player, view.balance])),
    );
    const refunds = page.messages.filter((m) => m.kind === 'refund').map((m) => m.reason);
    expect(refunds).toEqual(['bet-rejected', 'orphaned-debit']);
    const payout = page.messages.find((m) => m.kind === 'payout');
    expect(payout).toMatchObject({ stake: 1_000, amount: 1_950, result: 'win' });
  });

  it("name the round's table on every message of a bet, and no table on deposits and withdrawals", async () => {
    const store = new MemoryEventStore();
    const wallets = new WalletService(new CommandHandler(store, { retry: DEFAULT_RETRY }));
    await movements(wallets);
    const { messages } = await walletMessagePage(store, 0n, 1_000);
    const tables = new Map<string, Set<string | null>>();
    for (const message of messages)
      tables.set(message.kind, (tables.get(message.kind) ?? new Set()).add(message.tableId));
    expect(Object.fromEntries([...tables].map(([kind, ids]) => [kind, [...ids]]))).toEqual({
      deposit: [null],
      withdrawal: [null],
      debit: ['live'],
      payout: ['live'],
      refund: ['live'],
      adjustment: ['live'],
    });
  });

  it('are published by the wallet outbox as the reconciliation API lists them, in pages of any size', async () => {
    const store = new MemoryEventStore();
    const wallets = new WalletService(new CommandHandler(store, { retry: DEFAULT_RETRY }));
    await movements(wallets);
    const bus = new InProcessBus<WalletMessage>();
    const published: WalletMessage[] = [];
    await bus.consume((message) => {
      published.push(message);
      return Promise.resolve();
    });
    const outbox = startWalletOutbox(store, bus, () => undefined);
    await expect.poll(() => published.length, { timeout: 5_000 }).toBe(12);
    await outbox.stop();
    const paged: WalletMessage[] = [];
    for (let from = 0n, more = true; more;) {
      const page = await walletMessagePage(store, from, 5);
      paged.push(...page.messages);
      from = BigInt(page.next);
      more = page.more;
    }
    expect(paged).toEqual(published);
  });
});
