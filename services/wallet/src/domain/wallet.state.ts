import {
  foldCommissionDebt,
  PLAY_MONEY_CURRENCY,
  type PlayerId,
  type RoundId,
  type WalletEvent,
} from '@croupier/contracts';

export interface OpenStake {
  readonly roundId: RoundId;
  readonly amount: number;
}

export interface WalletState {
  readonly exists: boolean;
  readonly playerId: PlayerId;
  /** The wallet's one currency: `FUN` for a fun wallet (play money, ADR 0030). */
  readonly currency: string | null;
  /** Sum of all movements, minor units. */
  readonly balance: number;
  readonly openStakes: ReadonlyMap<string, OpenStake>;
  /**
   * The bet ids of stakes given back (StakeRefunded): never taken, so nothing their round
   * resettles later is the wallet's to adjust.
   */
  readonly refundedStakes: ReadonlySet<string>;
  /**
   * Amount of each deposit and withdrawal by its reference, keyed `deposit:REF`, `withdrawal:REF`;
   * a fun wallet's play-money grants by number, `grant:N`.
   */
  readonly references: ReadonlyMap<string, number>;
  /** Commission owed per table dealer shift (accrued, not yet collected), keyed `table/shift`. */
  readonly commissionOwed: ReadonlyMap<string, number>;
}

export const initialWalletState = (): WalletState => ({
  exists: false,
  playerId: '',
  currency: null,
  balance: 0,
  openStakes: new Map(),
  refundedStakes: new Set(),
  references: new Map(),
  commissionOwed: new Map(),
});

export const shiftKey = (tableId: string, shiftId: string): string => `${tableId}/${shiftId}`;

/** What the player can spend: the balance less commission owed. */
export function available(state: WalletState): number {
  let owed = 0;
  for (const amount of state.commissionOwed.values()) owed += amount;
  return state.balance - owed;
}

const withoutStake = (stakes: ReadonlyMap<string, OpenStake>, betId: string) => {
  const next = new Map(stakes);
  next.delete(betId);
  return next;
};

export function evolveWallet(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'FundsDeposited':
      return {
        ...state,
        exists: true,
        playerId: event.data.playerId,
        currency: state.currency ?? event.data.currency,
        balance: state.balance + event.data.amount,
        references: new Map(state.references).set(
          `deposit:${event.data.reference}`,
          event.data.amount,
        ),
      };
    case 'PlayMoneyGranted':
      return {
        ...state,
        exists: true,
        playerId: event.data.playerId,
        currency: PLAY_MONEY_CURRENCY,
        balance: state.balance + event.data.amount,
        references: new Map(state.references).set(`grant:${event.data.grant}`, event.data.amount),
      };
    case 'FundsWithdrawn':
      return {
        ...state,
        balance: state.balance - event.data.amount,
        references: new Map(state.references).set(
          `withdrawal:${event.data.reference}`,
          event.data.amount,
        ),
      };
    case 'StakeDebited': {
      const openStakes = new Map(state.openStakes);
      openStakes.set(event.data.betId, { roundId: event.data.roundId, amount: event.data.amount });
      return { ...state, balance: state.balance - event.data.amount, openStakes };
    }
    case 'PayoutCredited':
      return {
        ...state,
        balance: state.balance + event.data.amount,
        openStakes: withoutStake(state.openStakes, event.data.betId),
      };
    case 'StakeRefunded':
      return {
        ...state,
        balance: state.balance + event.data.amount,
        openStakes: withoutStake(state.openStakes, event.data.betId),
        refundedStakes: new Set(state.refundedStakes).add(event.data.betId),
      };
    case 'CommissionAccrued':
    case 'CommissionCollected':
    case 'PayoutAdjusted': {
      const commissionOwed = new Map(state.commissionOwed);
      const givenBack = foldCommissionDebt(commissionOwed, event);
      const moved =
        event.type === 'CommissionCollected'
          ? -event.data.amount
          : event.type === 'PayoutAdjusted'
            ? event.data.delta + givenBack
            : 0;
      return { ...state, balance: state.balance + moved, commissionOwed };
    }
  }
}
