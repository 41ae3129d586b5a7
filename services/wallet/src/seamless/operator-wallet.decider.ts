import { deterministicId, type Decider } from '@croupier/application';
import {
  DomainError,
  type OperatorWalletEvent,
  type PlayerId,
  type RoundId,
} from '@croupier/contracts';
import { mayRefund, type RefundReason, type StakeStanding } from '../domain/stake-standing.js';

/**
 * Seamless mode's record of one player's dealings with the operator's wallet (ADR 0026). The
 * balance is the operator's; this decider only keeps the calls straight: a bet's stake is asked
 * for under a key, confirmed or failed, and once confirmed closed by exactly one credit request
 * (its settlement) or one rollback request (its refund). A stake that became a bet is closed
 * by its round only, and an adjustment moves only a stake that was taken (ADR 0034). Keys are
 * made by the caller (see `debitKeyOf`, `rollbackKeyOf`), so a retried step asks under the same
 * key.
 */
export type OperatorWalletCommand =
  | {
      type: 'RequestDebits';
      playerId: PlayerId;
      roundId: RoundId;
      currency: string;
      stakes: readonly { betId: string; amount: number }[];
    }
  | {
      type: 'ConfirmDebit';
      betId: string;
      key: string;
      transactionId: string;
      via: 'answer' | 'status';
    }
  | {
      type: 'FailDebit';
      betId: string;
      key: string;
      outcome: 'refused' | 'unresolved';
      code: string;
    }
  | {
      type: 'RequestRollback';
      roundId: RoundId;
      betId: string;
      amount: number;
      reason: RefundReason;
      /**
       * What the stake's round records of it, read when the rollback is asked for: a rollback
       * before any bet (`bet-rejected`, `orphaned-debit`) stands only on the round's release.
       */
      standing?: StakeStanding | undefined;
    }
  | {
      type: 'RequestCredit';
      roundId: RoundId;
      betId: string;
      amount: number;
      currency: string;
      key: string;
      kind: 'settlement' | 'adjustment';
      settlementId: string;
      stake: number;
    }
  | { type: 'MarkDelivered'; key: string; call: 'credit' | 'rollback'; transactionId: string };

export interface OperatorDebit {
  readonly roundId: RoundId;
  readonly amount: number;
  readonly currency: string;
  readonly key: string;
  readonly attempt: number;
  readonly status: 'requested' | 'confirmed' | 'failed';
  /** How a confirmed stake was closed: by its payout's credit or by a rollback. */
  readonly closedBy: 'credit' | 'rollback' | null;
  /** Why a failed debit failed: the wallet's code, or `UNAVAILABLE` when it did not answer. */
  readonly failure: string | null;
}

export interface OperatorWalletState {
  readonly playerId: PlayerId;
  /** The latest debit of each bet id. */
  readonly debits: ReadonlyMap<string, OperatorDebit>;
  /** Credits and rollbacks requested, by key: true once the wallet confirmed them. */
  readonly calls: ReadonlyMap<string, boolean>;
}

export const initialOperatorWalletState = (): OperatorWalletState => ({
  playerId: '',
  debits: new Map(),
  calls: new Map(),
});

/** The key a bet's debit is asked under: one per attempt, the same on every retry of it. */
export const debitKeyOf = (input: {
  playerId: string;
  roundId: string;
  betId: string;
  attempt: number;
}): string =>
  deterministicId(
    'operator-debit',
    input.playerId,
    input.roundId,
    input.betId,
    String(input.attempt),
  );

/** The key of a debit's rollback: one per debit, whoever asks for it and how often. */
export const rollbackKeyOf = (debitKey: string): string =>
  deterministicId('operator-rollback', debitKey);

function evolve(state: OperatorWalletState, event: OperatorWalletEvent): OperatorWalletState {
  const debits = new Map(state.debits);
  const change = (betId: string, patch: Partial<OperatorDebit>) => {
    const debit = debits.get(betId);
    if (debit !== undefined) debits.set(betId, { ...debit, ...patch });
  };
  switch (event.type) {
    case 'OperatorDebitRequested': {
      const { betId, roundId, amount, currency, key, attempt, playerId } = event.data;
      debits.set(betId, {
        roundId,
        amount,
        currency,
        key,
        attempt,
        status: 'requested',
        closedBy: null,
        failure: null,
      });
      return { ...state, playerId, debits };
    }
    case 'OperatorDebitConfirmed':
      change(event.data.betId, { status: 'confirmed' });
      return { ...state, debits };
    case 'OperatorDebitFailed':
      change(event.data.betId, { status: 'failed', failure: event.data.code });
      return { ...state, debits };
    case 'OperatorRollbackRequested':
      if (event.data.reason !== 'debit-unresolved')
        change(event.data.betId, { closedBy: 'rollback' });
      return { ...state, debits, calls: new Map(state.calls).set(event.data.key, false) };
    case 'OperatorCreditRequested':
      if (event.data.kind === 'settlement') change(event.data.betId, { closedBy: 'credit' });
      return { ...state, debits, calls: new Map(state.calls).set(event.data.key, false) };
    case 'OperatorCallDelivered':
      return { ...state, calls: new Map(state.calls).set(event.data.key, true) };
  }
}

export const operatorWalletDecider: Decider<
  OperatorWalletCommand,
  OperatorWalletEvent,
  OperatorWalletState
> = {
  decide: (command: OperatorWalletCommand, state: OperatorWalletState): OperatorWalletEvent[] => {
    switch (command.type) {
      case 'RequestDebits':
        return requestDebits(command, state);
      case 'ConfirmDebit':
      case 'FailDebit': {
        const debit = state.debits.get(command.betId);
        if (debit === undefined || debit.key !== command.key || debit.status !== 'requested')
          return [];
        const common = {
          playerId: state.playerId,
          roundId: debit.roundId,
          betId: command.betId,
          amount: debit.amount,
          key: debit.key,
        };
        if (command.type === 'ConfirmDebit')
          return [
            {
              type: 'OperatorDebitConfirmed',
              data: { ...common, transactionId: command.transactionId, via: command.via },
            },
          ];
        const failed: OperatorWalletEvent = {
          type: 'OperatorDebitFailed',
          data: { ...common, outcome: command.outcome, code: command.code },
        };
        if (command.outcome === 'refused') return [failed];
        // No answer: the debit is given up, and rolled back in case it arrives or arrived.
        return [
          failed,
          {
            type: 'OperatorRollbackRequested',
            data: {
              ...common,
              currency: debit.currency,
              key: rollbackKeyOf(debit.key),
              debitKey: debit.key,
              reason: 'debit-unresolved',
            },
          },
        ];
      }
      case 'RequestRollback': {
        const debit = state.debits.get(command.betId);
        if (debit === undefined || debit.status !== 'confirmed' || debit.closedBy !== null)
          return [];
        if (debit.roundId !== command.roundId || debit.amount !== command.amount)
          throw new DomainError(
            'ID_CONFLICT',
            `betId ${command.betId}: its stake was debited for round ${debit.roundId}, ${debit.amount}`,
            { field: 'betId' },
          );
        // Not released by its round: it stands as a bet, or may still become one (a concurrent
        // request for the same bet shares this debit's key). Its round closes it.
        if (!mayRefund(command.reason, command.standing)) return [];
        return [
          {
            type: 'OperatorRollbackRequested',
            data: {
              playerId: state.playerId,
              roundId: debit.roundId,
              betId: command.betId,
              amount: debit.amount,
              currency: debit.currency,
              key: rollbackKeyOf(debit.key),
              debitKey: debit.key,
              reason: command.reason,
            },
          },
        ];
      }
      case 'RequestCredit': {
        if (state.calls.has(command.key)) return [];
        const debit = state.debits.get(command.betId);
        // A payout closes a confirmed stake of its round, once: never one refunded or never
        // confirmed (a bet of transfer mode, before the switch, is not this wallet's to pay).
        // An adjustment (a resettlement's delta) moves only a stake that was taken: never one
        // rolled back, whose bet gets nothing back of a stake it no longer holds.
        const taken =
          debit !== undefined && debit.status === 'confirmed' && debit.roundId === command.roundId;
        if (command.kind === 'settlement' && !(taken && debit.closedBy === null)) return [];
        if (command.kind === 'adjustment' && !(taken && debit.closedBy !== 'rollback')) return [];
        return [
          {
            type: 'OperatorCreditRequested',
            data: {
              playerId: state.playerId,
              roundId: command.roundId,
              betId: command.betId,
              amount: command.amount,
              currency: command.currency,
              key: command.key,
              kind: command.kind,
              settlementId: command.settlementId,
              stake: command.stake,
            },
          },
        ];
      }
      case 'MarkDelivered':
        if (state.calls.get(command.key) !== false) return [];
        return [
          {
            type: 'OperatorCallDelivered',
            data: {
              playerId: state.playerId,
              key: command.key,
              call: command.call,
              transactionId: command.transactionId,
            },
          },
        ];
    }
  },
  evolve,
  initialState: initialOperatorWalletState,
};

/**
 * Asks the operator's wallet for each stake not asked yet (a stake whose last attempt failed is
 * asked again under a new key); a bet id that names another round, amount or a closed debit is
 * ID_CONFLICT, and nothing is asked.
 */
function requestDebits(
  command: Extract<OperatorWalletCommand, { type: 'RequestDebits' }>,
  state: OperatorWalletState,
): OperatorWalletEvent[] {
  const { playerId, roundId, currency } = command;
  const conflicts = command.stakes.filter((stake) => {
    const debit = state.debits.get(stake.betId);
    return (
      debit !== undefined &&
      (debit.roundId !== roundId || debit.amount !== stake.amount || debit.closedBy !== null)
    );
  });
  if (conflicts.length > 0) {
    const betIds = conflicts.map((stake) => stake.betId);
    throw new DomainError(
      'ID_CONFLICT',
      `betId ${betIds.join(', ')}: already used by another bet; a new bet needs a new id`,
      { field: 'betId', betIds },
    );
  }
  return command.stakes.flatMap((stake): OperatorWalletEvent[] => {
    const debit = state.debits.get(stake.betId);
    // Asked already (in flight or confirmed): the caller resolves it under its key.
    if (debit !== undefined && debit.status !== 'failed') return [];
    const attempt = (debit?.attempt ?? 0) + 1;
    return [
      {
        type: 'OperatorDebitRequested',
        data: {
          playerId,
          roundId,
          betId: stake.betId,
          amount: stake.amount,
          currency,
          key: debitKeyOf({ playerId, roundId, betId: stake.betId, attempt }),
          attempt,
        },
      },
    ];
  });
}
