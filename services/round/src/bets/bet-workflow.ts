import { randomId } from '@croupier/application';
import {
  DomainError,
  PLAY_MONEY_CURRENCY,
  type RoundId,
  type StakeOf,
  type StakeRefusal,
} from '@croupier/contracts';
import {
  releaseKey,
  roundDecider,
  type BetRequest,
  type RoundState,
} from '../domain/round.decider.js';
import type { PendingDebit } from './pending-debits.js';

/**
 * The bet workflow: the one place where money moves for a bet before its round settles it. Pure:
 * it answers what the last step's recipient said with the next step to send, and the runner
 * (bet-workflow-runner.ts) sends it, to the wallet or to the round, and brings back the answer.
 *
 *   1. validate   the round's decider judges the bets; if it refuses, nothing moves
 *   2. debit      the wallet debits each stake for this round, bet id and amount; if it refuses
 *                 some, those it did debit are released and refunded as in step 4
 *   3. place      the round records the bets (BetPlaced)
 *   4. release    if the round refused them, it records that it will never take those ids
 *                 (StakeReleased), and only then are their stakes refunded, to this round
 *   5. sweep      a debit whose bet never came (the process died between 2 and 3) is released
 *                 and refunded the same way, once its round takes no more bets
 *
 * Each step names the round, the bet id and the amount, and the wallet refuses a step that names
 * another round or amount for an open stake. A compensation refunds only the stakes its own
 * request debited, and only through the round. A stake that became a bet is closed only by its
 * round (settlement, void, resettlement): step 4 releases no stake whose bet the round holds,
 * and once released, no bet can be placed under the id, so a refund and a bet can never both
 * stand for one stake. The wallet refunds no stake before any bet unless its round released it.
 */

type Reason = 'bet-rejected' | 'orphaned-debit';

/** What the workflow is told: a request, or what the recipient of its last step answered. */
export type BetWorkflowInput =
  /** A player asks for bets on a round, as the round stands (cached or read). */
  | {
      readonly type: 'BetsRequested';
      readonly roundId: RoundId;
      readonly playerId: string;
      readonly bets: readonly BetRequest[];
      readonly rebetOf: RoundId | null;
      readonly round: RoundState;
    }
  /** The sweep found a stake debited long ago that no round recorded as a bet. */
  | { readonly type: 'OrphanFound'; readonly debit: PendingDebit; readonly round: RoundState }
  | {
      readonly type: 'StakesDebited';
      readonly debited: readonly StakeOf[];
      readonly refusal: StakeRefusal | null;
    }
  /** The debit call threw: a refusal before anything moved, or the wallet unreachable. */
  | { readonly type: 'DebitFailed'; readonly error: unknown }
  | { readonly type: 'BetsPlaced'; readonly round: RoundState }
  /** The round refused the bets after the debit (betting closed meanwhile, an id taken …). */
  | { readonly type: 'BetsRefused'; readonly error: DomainError }
  /** The append did not answer (the store unreachable): the bets may or may not stand. */
  | { readonly type: 'PlacingFailed'; readonly error: unknown }
  | { readonly type: 'StakesReleased'; readonly round: RoundState }
  | { readonly type: 'StakesRefunded'; readonly refunded: number };

/** What the workflow sends: to the wallet, to the round, or its answer to the caller. */
export type BetWorkflowStep =
  | {
      readonly type: 'DebitStakes';
      readonly playerId: string;
      readonly roundId: RoundId;
      readonly currency: string;
      readonly stakes: readonly StakeOf[];
      /** When the round's betting closes, if its dealer scheduled it (ms since the epoch). */
      readonly bettingClosesAt: number | null;
    }
  | {
      readonly type: 'PlaceBets';
      readonly roundId: RoundId;
      readonly playerId: string;
      readonly bets: readonly BetRequest[];
      readonly rebetOf: RoundId | null;
    }
  | {
      readonly type: 'ReleaseStakes';
      readonly roundId: RoundId;
      readonly playerId: string;
      readonly stakes: readonly StakeOf[];
      readonly reason: Reason;
    }
  | {
      readonly type: 'RefundStakes';
      readonly roundId: RoundId;
      readonly playerId: string;
      /** Absent when the round is unknown and the stake is not play money: real money. */
      readonly currency?: string;
      readonly stakes: readonly StakeOf[];
      readonly reason: Reason;
    }
  /** The bets stand: the caller is answered with the round. */
  | { readonly type: 'Placed'; readonly round: RoundState }
  /** The request failed with this error, after every stake it moved went back. */
  | { readonly type: 'Failed'; readonly error: unknown }
  /** The sweep is done with a debit: `refunded` stakes went back (0 or 1). */
  | { readonly type: 'Swept'; readonly refunded: number };

export interface BetWorkflowState {
  /** The request, once told (its bets go to the round as asked). */
  readonly request: {
    readonly roundId: RoundId;
    readonly playerId: string;
    readonly bets: readonly BetRequest[];
    readonly rebetOf: RoundId | null;
  } | null;
  /** Every stake the request asked for (to name them in an error). */
  readonly stakes: readonly StakeOf[];
  /** The stakes this request debited: the only ones it may give back. */
  readonly debited: readonly StakeOf[];
  readonly reason: Reason;
  /** The error the caller gets once the stakes are back; null while none. */
  readonly error: unknown;
  /** The sweep's run (it answers with a count, not a round or an error). */
  readonly sweeping: boolean;
}

const initialState = (): BetWorkflowState => ({
  request: null,
  stakes: [],
  debited: [],
  reason: 'bet-rejected',
  error: null,
  sweeping: false,
});

function decide(input: BetWorkflowInput, state: BetWorkflowState): BetWorkflowStep[] {
  switch (input.type) {
    case 'BetsRequested': {
      // 1. The decider judges the bets (a refusal is thrown: nothing moves) and gives each bet
      // the amount its stake must be.
      const { roundId, playerId, bets, rebetOf, round } = input;
      const stakes = roundDecider
        .decide({ type: 'PlaceBets', playerId, bets, rebetOf }, round)
        .flatMap((event): StakeOf[] =>
          event.type === 'BetPlaced'
            ? [{ betId: event.data.betId, amount: event.data.amount }]
            : [],
        );
      // The debit's budget ends when betting does: a stake confirmed later could not become a bet.
      const { currency, bettingClosesAt } = round;
      return [{ type: 'DebitStakes', playerId, roundId, currency, stakes, bettingClosesAt }];
    }
    case 'StakesDebited': {
      // 3. Every stake is open for this round: record the bets.
      if (input.refusal === null) return [{ type: 'PlaceBets', ...requestOf(state) }];
      // Refused in part (an operator's wallet answers each stake on its own): what this request
      // debited goes back through the round, as in step 4 (ADR 0034).
      return giveBack(state, input.debited, refusalError(input.refusal));
    }
    case 'DebitFailed':
      return [failed(state, input.error)];
    case 'BetsPlaced':
      return [{ type: 'Placed', round: input.round }];
    case 'BetsRefused':
      // 4. The round refused: the stakes this request debited go back now.
      return giveBack(state, state.debited, input.error);
    case 'PlacingFailed':
      // Not a refusal: the bets may have been placed. The sweep (step 5) gives the stakes back
      // if they were not, once the round takes no more bets.
      return [failed(state, input.error)];
    case 'OrphanFound': {
      // 5. Its bet may still be on its way while the round takes bets.
      if (input.round.status === 'betting') return [{ type: 'Swept', refunded: 0 }];
      const { roundId, playerId, betId, amount, fun } = input.debit;
      const stakes = [{ betId, amount }];
      if (input.round.status !== 'none')
        return [{ type: 'ReleaseStakes', roundId, playerId, stakes, reason: 'orphaned-debit' }];
      // No such round: it can never hold the bet, and has no stream to record a release. Its
      // currency is unknown but for the debit's play-money mark.
      return [
        {
          type: 'RefundStakes',
          roundId,
          playerId,
          ...(fun ? { currency: PLAY_MONEY_CURRENCY } : {}),
          stakes,
          reason: 'orphaned-debit',
        },
      ];
    }
    case 'StakesReleased': {
      // The round released the stakes it does not hold as this player's bets (it may have placed
      // one meanwhile, from an identical request that won the race): those, and only those, are
      // refunded. A release recorded earlier is refunded again, which the wallet makes a no-op
      // once done: a crash between the two steps loses nothing.
      const { roundId, playerId } = requestOf(state);
      const stakes = state.debited.filter(
        (stake) =>
          input.round.releasedStakes.get(releaseKey(stake.betId, playerId))?.amount ===
          stake.amount,
      );
      const currency = input.round.currency;
      return [{ type: 'RefundStakes', roundId, playerId, currency, stakes, reason: state.reason }];
    }
    case 'StakesRefunded':
      return state.sweeping
        ? [{ type: 'Swept', refunded: input.refunded }]
        : [failed(state, state.error)];
  }
}

function evolve(
  state: BetWorkflowState,
  message: BetWorkflowInput | BetWorkflowStep,
): BetWorkflowState {
  switch (message.type) {
    case 'BetsRequested': {
      const { roundId, playerId, bets, rebetOf } = message;
      return { ...state, request: { roundId, playerId, bets, rebetOf } };
    }
    case 'OrphanFound': {
      const { roundId, playerId, betId, amount } = message.debit;
      return {
        ...state,
        request: { roundId, playerId, bets: [], rebetOf: null },
        debited: [{ betId, amount }],
        reason: 'orphaned-debit',
        sweeping: true,
      };
    }
    case 'DebitStakes':
      return { ...state, stakes: message.stakes };
    case 'StakesDebited':
      return {
        ...state,
        debited: message.debited,
        error: message.refusal === null ? null : refusalError(message.refusal),
      };
    case 'BetsRefused':
      return { ...state, error: message.error };
    default:
      return state;
  }
}

/** The bet workflow as a pure function pair; the runner sends its steps (bet-workflow-runner.ts). */
export const betWorkflow = { decide, evolve, initialState };

function requestOf(state: BetWorkflowState): NonNullable<BetWorkflowState['request']> {
  if (state.request === null) throw new Error('the bet workflow was told no request');
  return state.request;
}

/** Gives the stakes this request debited back through the round, then fails with `error`. */
function giveBack(
  state: BetWorkflowState,
  debited: readonly StakeOf[],
  error: unknown,
): BetWorkflowStep[] {
  if (debited.length === 0) return [failed(state, error)];
  const { roundId, playerId } = requestOf(state);
  return [{ type: 'ReleaseStakes', roundId, playerId, stakes: debited, reason: state.reason }];
}

const failed = (state: BetWorkflowState, error: unknown): BetWorkflowStep => ({
  type: 'Failed',
  error: namingBetIds(error, state.stakes),
});

const refusalError = (refusal: StakeRefusal): DomainError =>
  new DomainError(refusal.code, refusal.message, refusal.details);

/** Bet requests as clients send them: each gets an id if it came without one. */
export function betRequestsOf(
  bets: readonly (Omit<BetRequest, 'betId'> & { betId?: string | undefined })[],
): BetRequest[] {
  if (bets.length === 0)
    throw new DomainError('VALIDATION_ERROR', 'bets: at least one bet is required');
  return bets.map((bet) => ({ ...bet, betId: bet.betId ?? randomId() }));
}

/**
 * A bet id that another record already holds (in another wallet or round) surfaces from the store
 * as an ID_CONFLICT without a field: name the bet ids, as the player gave them.
 */
function namingBetIds(error: unknown, stakes: readonly StakeOf[]): unknown {
  if (!(error instanceof DomainError) || error.code !== 'ID_CONFLICT' || 'field' in error.details)
    return error;
  const betIds = stakes.map((stake) => stake.betId);
  return new DomainError(
    'ID_CONFLICT',
    `betId ${betIds.join(', ')}: already used by another bet; a new bet needs a new id`,
    { field: 'betId', betIds },
  );
}
