import { deterministicId, type Aggregate, type CommandHandler } from '@croupier/application';
import {
  DomainError,
  eventTypesOf,
  isPlayMoney,
  PLAY_MONEY_CURRENCY,
  shiftEndIdOf,
  walletEventSchema,
  walletStreamOf,
  type CommandContext,
  type PlayerId,
  type WalletEvent,
  type WalletPort,
} from '@croupier/contracts';
import { DEFAULT_MAX_BALANCE, type BalanceLimits } from './balance-limits.js';
import { beforeBet, stakeStandingOf } from './round-stakes.js';
import { moneyHolder, type MoneyHolder } from '@croupier/contracts';
import {
  available,
  walletDecider,
  type WalletCommand,
  type WalletState,
} from '../domain/wallet.decider.js';
import { walletSnapshots } from '../domain/wallet.snapshot.js';

export const walletAggregate: Aggregate<WalletCommand, WalletEvent, WalletState> = {
  name: 'wallet',
  writes: eventTypesOf(walletEventSchema),
  decider: walletDecider,
  parse: (recorded) => walletEventSchema.parse({ type: recorded.type, data: recorded.data }),
  // A wallet stream only grows: a process that has not cached it starts from its last snapshot.
  snapshot: walletSnapshots,
};

/** Each wallet event names the fact it records, so a retried step never records it twice. */
function walletEventId(event: WalletEvent): string {
  switch (event.type) {
    case 'FundsDeposited':
    case 'FundsWithdrawn':
      return deterministicId(event.type, event.data.playerId, event.data.reference);
    case 'PlayMoneyGranted':
      return deterministicId(event.type, event.data.playerId, String(event.data.grant));
    case 'StakeDebited':
    case 'StakeRefunded':
      return deterministicId(event.type, event.data.betId);
    case 'PayoutCredited':
    case 'CommissionAccrued':
      return deterministicId(event.type, event.data.settlementId, event.data.betId);
    case 'CommissionCollected':
      return deterministicId(
        event.type,
        shiftEndIdOf(event.data),
        event.data.playerId,
        event.data.shiftId,
        // One collection per seat (002); a collection without a seat keeps its id as it was.
        ...(event.data.seat === undefined ? [] : [String(event.data.seat)]),
        // After the close, one per bet settled late: each collects what was owed then.
        ...(event.data.accrued === undefined
          ? []
          : [event.data.accrued.settlementId, event.data.accrued.betId]),
      );
    case 'PayoutAdjusted':
      return deterministicId(event.type, event.data.resettlementId, event.data.betId);
  }
}

/** Which of a player's two wallets: real money, or play money (fun mode, ADR 0030). */
export type Money = 'real' | 'fun';

const moneyOf = (currency: string | undefined): Money => (isPlayMoney(currency) ? 'fun' : 'real');

export interface WalletView {
  readonly playerId: PlayerId;
  readonly currency: string | null;
  readonly balance: number;
  /** Balance less commission owed on accrued-commission tables. */
  readonly available: number;
  readonly commissionOwed: number;
  /** The commission owed, per table and seat (002: each seat owes what its Banker wins accrued). */
  readonly commissionOwedBySeat: { tableId: string; seat: number; amount: number }[];
  readonly openStakes: number;
  readonly version: string | null;
}

export interface WalletTransaction {
  readonly type: WalletEvent['type'];
  readonly amount: number;
  /** Signed change of the balance. */
  readonly change: number;
  readonly balanceAfter: number;
  readonly roundId: string | null;
  readonly betId: string | null;
  readonly reference: string | null;
  readonly at: string;
  readonly revision: string;
}

export function viewOf(
  playerId: PlayerId,
  state: WalletState,
  revision: bigint | null,
): WalletView {
  let owed = 0;
  const bySeat = new Map<string, { tableId: string; seat: number; amount: number }>();
  for (const [key, amount] of state.commissionOwed) {
    owed += amount;
    const [tableId, , seat] = key.split('/') as [string, string, string];
    const entry = bySeat.get(`${tableId}/${seat}`) ?? { tableId, seat: Number(seat), amount: 0 };
    bySeat.set(`${tableId}/${seat}`, { ...entry, amount: entry.amount + amount });
  }
  return {
    playerId,
    currency: state.currency,
    balance: state.balance,
    available: available(state),
    commissionOwed: owed,
    commissionOwedBySeat: [...bySeat.values()],
    openStakes: state.openStakes.size,
    version: revision?.toString() ?? null,
  };
}

/** The wallet service's command side. */
export class WalletService implements WalletPort {
  private readonly maxBalance: BalanceLimits;
  private readonly money: MoneyHolder;

  /**
   * `money`: what the wallet that holds the players' money allows, picked where the process is
   * composed. Where the operator's wallet holds the balances (seamless mode), deposits and
   * withdrawals are refused here before anything is recorded. Default: this wallet (transfer).
   */
  constructor(
    private readonly commands: CommandHandler,
    options: { readonly maxBalance?: BalanceLimits; readonly money?: MoneyHolder } = {},
  ) {
    this.maxBalance = options.maxBalance ?? (() => DEFAULT_MAX_BALANCE);
    this.money = options.money ?? moneyHolder('transfer');
  }

  private refuseWhereTheOperatorHoldsBalances(
    movement: 'deposits' | 'withdrawals',
    playerId: PlayerId,
  ): void {
    if (this.money.holdsBalances) return;
    throw new DomainError(
      'HELD_BY_OPERATOR_WALLET',
      `${movement} are refused in ${this.money.mode} mode: the operator's wallet holds the players' money`,
      { playerId, walletMode: this.money.mode },
    );
  }

  /**
   * Runs a command on the player's wallet of that money: play money on their fun wallet, real
   * money on their real one (ADR 0030). Each wallet refuses the other kind of money too.
   */
  private run(playerId: PlayerId, money: Money, command: WalletCommand, context: CommandContext) {
    return this.commands.handle(
      walletAggregate,
      walletStreamOf(playerId, money === 'fun' ? PLAY_MONEY_CURRENCY : null),
      command,
      context,
      { eventIds: (events) => events.map(walletEventId) },
    );
  }

  async deposit(
    input: { playerId: PlayerId; amount: number; currency: string; reference: string },
    context: CommandContext,
  ): Promise<WalletView> {
    this.refuseWhereTheOperatorHoldsBalances('deposits', input.playerId);
    const { state, revision } = await this.run(
      input.playerId,
      moneyOf(input.currency),
      { type: 'Deposit', ...input, maxBalance: this.maxBalance(input.currency) },
      context,
    );
    return viewOf(input.playerId, state, revision);
  }

  async withdraw(
    input: { playerId: PlayerId; amount: number; reference: string },
    context: CommandContext,
  ): Promise<WalletView> {
    this.refuseWhereTheOperatorHoldsBalances('withdrawals', input.playerId);
    // A withdrawal names no currency: it is of real money, from the real wallet, always.
    const { state, revision } = await this.run(
      input.playerId,
      'real',
      { type: 'Withdraw', amount: input.amount, reference: input.reference },
      context,
    );
    return viewOf(input.playerId, state, revision);
  }

  async debitStakes(
    input: Parameters<WalletPort['debitStakes']>[0],
    context: CommandContext,
  ): ReturnType<WalletPort['debitStakes']> {
    // Croupier's wallet answers at once: the betting close bounds nothing here.
    const { bettingClosesAt: _closes, ...debit } = input;
    const { events, state } = await this.run(
      input.playerId,
      moneyOf(input.currency),
      { type: 'DebitStakes', ...debit },
      context,
    );
    // The decider debits each stake not open yet. One still not open after it was debited by an
    // earlier bet under the same id, since closed: the store kept that id's debit, not a new one.
    const spent = input.stakes.filter((stake) => !state.openStakes.has(stake.betId));
    if (spent.length > 0) {
      const betIds = spent.map((stake) => stake.betId);
      throw new DomainError(
        'ID_CONFLICT',
        `betId ${betIds.join(', ')} already named a bet that is settled or refunded; a new bet needs a new id`,
        { field: 'betId', betIds },
      );
    }
    const debited = new Set(
      events.flatMap((event) => (event.type === 'StakeDebited' ? [event.data.betId] : [])),
    );
    // All or none: a refusal is thrown above, before anything moved.
    return { debited: input.stakes.filter((stake) => debited.has(stake.betId)), refusal: null };
  }

  async refundStake(
    input: Parameters<WalletPort['refundStake']>[0],
    context: CommandContext,
  ): ReturnType<WalletPort['refundStake']> {
    const { playerId, ...refund } = input;
    const standing = beforeBet(refund.reason)
      ? await stakeStandingOf(this.commands, input)
      : undefined;
    const { events } = await this.run(
      playerId,
      moneyOf(refund.currency),
      { type: 'RefundStake', ...refund, standing },
      context,
    );
    return { refunded: events.length > 0 };
  }

  async creditPayout(
    playerId: PlayerId,
    command: Extract<WalletCommand, { type: 'CreditPayout' }>,
    context: CommandContext,
  ): Promise<void> {
    await this.run(playerId, moneyOf(command.currency), command, context);
  }

  async adjustPayout(
    playerId: PlayerId,
    command: Extract<WalletCommand, { type: 'AdjustPayout' }>,
    context: CommandContext,
  ): Promise<void> {
    await this.run(playerId, moneyOf(command.currency), command, context);
  }

  async collectCommission(
    playerId: PlayerId,
    command: Extract<WalletCommand, { type: 'CollectCommission' }>,
    context: CommandContext,
  ): Promise<void> {
    // Commission accrues at seated tables only, and those play real money.
    await this.run(playerId, 'real', command, context);
  }

  /**
   * Fun mode (ADR 0030): tops the player's fun wallet up to `topUpTo` play money (FUN_BALANCE),
   * recorded as PlayMoneyGranted; a wallet holding that much already is left as it is.
   */
  async grantPlayMoney(
    input: { playerId: PlayerId; topUpTo: number },
    context: CommandContext,
  ): Promise<WalletView> {
    const { state, revision } = await this.run(
      input.playerId,
      'fun',
      { type: 'GrantPlayMoney', ...input },
      context,
    );
    return viewOf(input.playerId, state, revision);
  }

  /** The player's real wallet, or their fun wallet (play money). */
  async getWallet(playerId: PlayerId, money: Money = 'real'): Promise<WalletView> {
    const { state, revision } = await this.commands.load(
      walletAggregate,
      walletStreamOf(playerId, money === 'fun' ? PLAY_MONEY_CURRENCY : null),
    );
    return viewOf(playerId, state, revision);
  }

  /** The wallet's movements, newest first, each with the balance after it (`FUN`: play money). */
  async transactions(
    playerId: PlayerId,
    limit = 50,
    money: Money = 'real',
  ): Promise<WalletTransaction[]> {
    const recorded = await this.commands.store.readStream(
      walletStreamOf(playerId, money === 'fun' ? PLAY_MONEY_CURRENCY : null),
    );
    // The wallet's own fold gives each movement's effect, commission adjustments included.
    let state = walletDecider.initialState();
    const all = recorded.map((r): WalletTransaction => {
      const event = walletAggregate.parse(r);
      const before = state.balance;
      state = walletDecider.evolve(state, event);
      const d = event.data as Partial<Record<'roundId' | 'betId' | 'reference', string>> & {
        amount?: number;
        delta?: number;
      };
      return {
        type: event.type,
        amount: d.amount ?? d.delta ?? 0,
        change: state.balance - before,
        balanceAfter: state.balance,
        roundId: d.roundId ?? null,
        betId: d.betId ?? null,
        reference: d.reference ?? null,
        at: (r.metadata as { occurredAt?: string }).occurredAt ?? r.recordedAt.toISOString(),
        revision: r.revision.toString(),
      };
    });
    return all.slice(-limit).reverse();
  }
}
