import { deterministicId } from '@croupier/application';
import {
  isPlayMoney,
  parseRoundId,
  SETTLEMENT_MESSAGE_SCHEMA_V2,
  shiftEndIdOf,
  STREAM_PREFIXES,
  streams,
  walletEventSchema,
  type WalletMessage,
} from '@croupier/contracts';
import type { EventStore, RecordedEvent, Subscription } from '@croupier/eventstore';
import { messageOriginOf, type WalletMessageBus } from '@croupier/messaging';
import { evolveWallet, initialWalletState, type WalletState } from '../domain/wallet.decider.js';

/**
 * The wallet outbox's subscription: every event of every wallet stream, each a movement of a
 * player's money (or of the commission they owe), each one public message. Real money only:
 * fun wallets (`fun-wallet-<player>`, play money, ADR 0030) are not `wallet-` streams, so play
 * money is never published, nor served by the reconciliation API.
 */
export const WALLET_OUTBOX_SUBSCRIPTION = {
  name: 'wallet-outbox',
  filter: { streamPrefix: STREAM_PREFIXES.wallet },
} as const;

const owed = (state: WalletState): number => {
  let total = 0;
  for (const amount of state.commissionOwed.values()) total += amount;
  return total;
};

/**
 * The public message of one wallet event, given the wallet as it was just before it. The balance
 * and the commission owed come from the wallet's own fold (`evolveWallet`), so a mirror that
 * applies `amount` holds exactly `balance`. A message naming a round names its table too, read
 * from the round id (`<tableId>.<shoe>.<round>`, ADR 0005): a consumer should not have to parse
 * ids to group money by table.
 */
export function walletMessageOf(event: RecordedEvent, before: WalletState): WalletMessage {
  const record = walletEventSchema.parse({ type: event.type, data: event.data });
  if (isPlayMoney(before.currency) || record.type === 'PlayMoneyGranted' || 'fun' in record.data)
    throw new Error(
      `${event.stream}@${event.revision} is play money (ADR 0030): it has no public message`,
    );
  const after = evolveWallet(before, record);
  const base = {
    schema: SETTLEMENT_MESSAGE_SCHEMA_V2,
    messageId: deterministicId('wallet-message', event.id),
    playerId: record.data.playerId,
    sequence: Number(event.revision) + 1,
    // A wallet's first event is its first deposit, which names the currency.
    currency: after.currency ?? 'XXX',
    amount: after.balance - before.balance,
    balance: after.balance,
    commissionOwed: owed(after),
    commissionOwedDelta: owed(after) - owed(before),
    roundId: null,
    tableId: null,
    betId: null,
    stake: null,
    result: null,
    reason: null,
    reference: null,
    settlementId: null,
    shiftId: null,
    ...messageOriginOf(event),
  } as const;
  switch (record.type) {
    case 'FundsDeposited':
      return { ...base, kind: 'deposit', reference: record.data.reference };
    case 'FundsWithdrawn':
      return { ...base, kind: 'withdrawal', reference: record.data.reference };
    case 'StakeDebited':
      return {
        ...base,
        kind: 'debit',
        roundId: record.data.roundId,
        tableId: parseRoundId(record.data.roundId).tableId,
        betId: record.data.betId,
        stake: record.data.amount,
      };
    case 'PayoutCredited':
      return {
        ...base,
        kind: 'payout',
        roundId: record.data.roundId,
        tableId: parseRoundId(record.data.roundId).tableId,
        betId: record.data.betId,
        stake: before.openStakes.get(record.data.betId)?.amount ?? null,
        result: record.data.result,
        settlementId: record.data.settlementId,
      };
    case 'StakeRefunded':
      return {
        ...base,
        kind: 'refund',
        roundId: record.data.roundId,
        tableId: parseRoundId(record.data.roundId).tableId,
        betId: record.data.betId,
        stake: record.data.amount,
        reason: record.data.reason,
      };
    case 'PayoutAdjusted':
      return {
        ...base,
        kind: 'adjustment',
        roundId: record.data.roundId,
        tableId: record.data.tableId,
        betId: record.data.betId,
        reason: record.data.reason === 'void' ? 'voided' : 'corrected',
        settlementId: record.data.resettlementId,
        shiftId: record.data.shiftId,
      };
    case 'CommissionAccrued':
      return {
        ...base,
        kind: 'commission-accrued',
        tableId: record.data.tableId,
        betId: record.data.betId,
        settlementId: record.data.settlementId,
        shiftId: record.data.shiftId,
      };
    case 'CommissionCollected':
      return {
        ...base,
        kind: 'commission-collected',
        tableId: record.data.tableId,
        settlementId: shiftEndIdOf(record.data),
        shiftId: record.data.shiftId,
      };
  }
}

/**
 * Each wallet's state just before a given event of it: from the state left by the event before
 * (kept for the wallets seen last), else folded from the stream. Events of one wallet come in
 * revision order to a subscription, so a folded stream is read once per wallet and process.
 */
export class WalletFolds {
  private readonly latest = new Map<string, { revision: bigint; state: WalletState }>();

  constructor(
    private readonly store: EventStore,
    private readonly capacity = 50_000,
  ) {}

  /** The public message of `event`, and the wallet state after it remembered for the next one. */
  async messageOf(event: RecordedEvent): Promise<WalletMessage> {
    const before = await this.before(event);
    const message = walletMessageOf(event, before);
    const after = evolveWallet(
      before,
      walletEventSchema.parse({ type: event.type, data: event.data }),
    );
    this.remember(event.stream, event.revision, after);
    return message;
  }

  private async before(event: RecordedEvent): Promise<WalletState> {
    const known = this.latest.get(event.stream);
    if (known !== undefined && known.revision === event.revision - 1n) return known.state;
    if (event.revision === 0n) return initialWalletState();
    const earlier = await this.store.readStream(event.stream, { limit: Number(event.revision) });
    let state = initialWalletState();
    for (const previous of earlier)
      state = evolveWallet(
        state,
        walletEventSchema.parse({ type: previous.type, data: previous.data }),
      );
    return state;
  }

  private remember(stream: string, revision: bigint, state: WalletState): void {
    this.latest.delete(stream);
    this.latest.set(stream, { revision, state });
    // Forget the wallet seen longest ago: it is folded again if it moves.
    if (this.latest.size > this.capacity) {
      const oldest = this.latest.keys().next().value;
      if (oldest !== undefined) this.latest.delete(oldest);
    }
  }
}

/** A page of public messages after a global position (the reconciliation API). */
export interface WalletMessagePage {
  /** The cursor the page was read after. */
  readonly from: string;
  /** Pass as `from` for the next page (the last event read; `from` again when none). */
  readonly next: string;
  /** True when the page stopped at the limit: more may follow now. */
  readonly more: boolean;
  readonly messages: WalletMessage[];
}

/**
 * The public messages in global order after `from`, at most `limit`, as the wallet outbox
 * publishes them. Only committed events are read: a movement still being committed appears on
 * a later page, which is why a consumer catching up lets the newest positions settle first.
 */
export async function walletMessagePage(
  store: EventStore,
  from: bigint,
  limit: number,
): Promise<WalletMessagePage> {
  const events = await store.readAll({
    after: from,
    limit,
    filter: WALLET_OUTBOX_SUBSCRIPTION.filter,
  });
  const folds = new WalletFolds(store);
  const messages: WalletMessage[] = [];
  for (const event of events) messages.push(await folds.messageOf(event));
  const last = events.at(-1);
  return {
    from: from.toString(),
    next: (last?.position ?? from).toString(),
    more: events.length === limit,
    messages,
  };
}

/** A page of one player's public messages by `sequence` (the reconciliation API). */
export interface PlayerMessagePage {
  readonly playerId: string;
  /** The first sequence asked for. */
  readonly fromSequence: number;
  /** Pass as `fromSequence` for the next page: after the last message read (`fromSequence` when none). */
  readonly nextSequence: number;
  /** True when the page stopped at the limit: more may follow now. */
  readonly more: boolean;
  readonly messages: WalletMessage[];
}

/**
 * One player's public messages from `fromSequence` on, at most `limit`: a mirror missing a
 * player's sequence 7 asks for it by number instead of paging the whole store from a position.
 * A player's sequence is their wallet stream's revision + 1, so the page is a read of that one
 * stream; a player with no wallet has no messages (an empty page, as for a sequence not yet
 * reached).
 */
export async function playerMessagePage(
  store: EventStore,
  playerId: string,
  fromSequence: number,
  limit: number,
): Promise<PlayerMessagePage> {
  const events = await store.readStream(streams.wallet(playerId), {
    from: BigInt(fromSequence - 1),
    limit,
  });
  const folds = new WalletFolds(store);
  const messages: WalletMessage[] = [];
  for (const event of events) messages.push(await folds.messageOf(event));
  return {
    playerId,
    fromSequence,
    nextSequence: (messages.at(-1)?.sequence ?? fromSequence - 1) + 1,
    more: events.length === limit,
    messages,
  };
}

/**
 * The wallet outbox: publishes every wallet event to the public queue. Its checkpoint moves only
 * after the bus accepted the message, so none is lost; a re-send after a crash carries the same
 * message id. It is a subscription of its own: however far behind the public queue's readers
 * are, or however many there are, Croupier's wallet takes its credits from its own queue.
 */
export function startWalletOutbox(
  store: EventStore,
  bus: WalletMessageBus,
  onError: (error: unknown) => void,
): Subscription {
  const folds = new WalletFolds(store);
  return store.subscribe({
    name: WALLET_OUTBOX_SUBSCRIPTION.name,
    from: 'start',
    filter: WALLET_OUTBOX_SUBSCRIPTION.filter,
    checkpoints: 'per-page',
    onError,
    handler: async (event) => {
      await bus.publish([await folds.messageOf(event)]);
    },
  });
}
