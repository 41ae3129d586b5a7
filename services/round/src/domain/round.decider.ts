import { nextCardRecipient, type Card } from '@croupier/baccarat';
import {
  DomainError,
  type CardSource,
  type DrawnCard,
  type PlacedBet,
  type RoundEvent,
  type RoundId,
  type RoundRules,
  type RoundStatus,
  type SettledSpot,
  type SettlementLine,
  type Adjustment,
  type ShoeId,
  type TableId,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';
import { cardsOf, replaceCard } from './round-guards.js';
import { decideBets } from '../bets/bets.decide.js';
import { decideDealing } from '../dealing/dealing.decide.js';
import { decideFaults } from '../faults/faults.decide.js';

/** A bet as proposed to the round; the wallet has already been debited for it. */
export interface BetRequest {
  readonly betId: string;
  readonly type: string;
  readonly amount: unknown;
  readonly bankerMode?: string | undefined;
  readonly seat?: number | null | undefined;
}

export type RoundCommand =
  | {
      type: 'OpenRound';
      roundId: RoundId;
      tableId: TableId;
      shoeId: ShoeId;
      number: number;
      cardSource: CardSource;
      currency: string;
      rules: RoundRules;
      paytableId: string;
      dealer: { dealerId: string | null; shiftId: string };
    }
  | { type: 'PlaceBets'; playerId: string; bets: readonly BetRequest[]; rebetOf: RoundId | null }
  /**
   * Takes the player's bets off the round before betting closes: all of them, or only `betIds`
   * (one chip or one bet removed, 003). Recorded as BetsCleared either way, and refunded alike.
   */
  | { type: 'ClearBets'; playerId: string; betIds?: readonly string[] }
  /**
   * Releases debited stakes the round will never take as bets (it refused them, or they never
   * arrived): recorded before their refund, so no bet can follow under their ids.
   */
  | {
      type: 'ReleaseStakes';
      playerId: string;
      stakes: readonly { betId: string; amount: number }[];
      reason: 'bet-rejected' | 'orphaned-debit';
    }
  | { type: 'CloseBetting' }
  /**
   * The round commits to its deal before the shoe draws for it (DealStarted, ADR 0033), closing
   * betting in the same append when `closeBetting` and betting is still open. A round whose
   * deal started is voided only with the cards its shoe sealed for it.
   */
  | { type: 'StartDeal'; closeBetting?: boolean }
  | { type: 'DealCards'; cards: readonly DrawnCard[] }
  | { type: 'CorrectCard'; shoePosition: number; card: Card; reason: string }
  | { type: 'ConfirmResult' }
  | {
      type: 'PauseRound';
      reason: string;
      /**
       * The watchdog's pause of a stalled deal: what it saw when the deadline passed. Nothing is
       * paused unless the round still waits for a card with as many cards and pauses as seen, so
       * a card, a resume or another process's pause in between leaves the round alone.
       */
      stalled?: StallObservation;
    }
  | { type: 'ResumeRound' }
  | {
      type: 'VoidRound';
      reason: string;
      /**
       * The watchdog's void of a round paused too long: voided only while still in the pause it
       * saw (`pauses`, counted from the round's first), never after a resume.
       */
      pausedAs?: { readonly pauses: number };
      /**
       * The cards the round's shoe sealed for it (ShoePort.sealRound): required while its deal
       * is under way, so the void records the ones it never dealt. Once the shoe is sealed the
       * round can take no card, so the void stands even if the pause `pausedAs` names is over.
       */
      sealed?: readonly DrawnCard[];
    };

/** A round waiting for a card as the watchdog saw it: its cards and pauses so far. */
export interface StallObservation {
  readonly cards: number;
  readonly pauses: number;
}

export interface ActiveBet extends PlacedBet {
  readonly status: 'active' | 'cleared';
}

/** A debited stake the round released for refund: no bet is ever placed under its id. */
export interface ReleasedStake {
  readonly playerId: string;
  readonly betId: string;
  readonly amount: number;
}

/** Released stakes are keyed by bet id and player: the id alone is the client's to choose. */
export const releaseKey = (betId: string, playerId: string): string => `${betId}/${playerId}`;

export interface CardAt {
  readonly card: Card;
  readonly shoePosition: number;
}

export interface RoundState {
  readonly status: RoundStatus;
  readonly paused: boolean;
  /** DealStarted is recorded (or, in a round recorded before it existed, a card was dealt). */
  readonly dealStarted: boolean;
  /** RoundPaused events so far: names each pause, so a watchdog acts only on the one it saw. */
  readonly pauses: number;
  readonly roundId: RoundId;
  readonly tableId: TableId;
  readonly shoeId: ShoeId;
  readonly number: number;
  readonly cardSource: CardSource;
  readonly currency: string;
  readonly rules: RoundRules | null;
  readonly paytableId: string | null;
  readonly dealerId: string | null;
  readonly bets: ReadonlyMap<string, ActiveBet>;
  readonly player: readonly CardAt[];
  readonly banker: readonly CardAt[];
  readonly settlementId: string | null;
  readonly settledLines: readonly SettlementLine[];
  /** The spots the lines were paid by (none for a round settled before spots, ADR 0032). */
  readonly settledSpots: readonly SettledSpot[];
  /** Per-bet adjustments of every resettlement, in order (a void or a corrected result). */
  readonly adjustments: readonly Adjustment[];
  readonly refundedBetIds: ReadonlySet<string>;
  readonly releasedStakes: ReadonlyMap<string, ReleasedStake>;
}

export const initialRoundState = (): RoundState => ({
  status: 'none',
  paused: false,
  dealStarted: false,
  pauses: 0,
  roundId: '',
  tableId: '',
  shoeId: '',
  number: 0,
  cardSource: 'rng',
  currency: '',
  rules: null,
  paytableId: null,
  dealerId: null,
  bets: new Map(),
  player: [],
  banker: [],
  settlementId: null,
  settledLines: [],
  settledSpots: [],
  adjustments: [],
  refundedBetIds: new Set(),
  releasedStakes: new Map(),
});

export function activeBets(state: RoundState, playerId?: string): ActiveBet[] {
  return [...state.bets.values()].filter(
    (bet) => bet.status === 'active' && (playerId === undefined || bet.playerId === playerId),
  );
}

export {
  dealUnderWay,
  nextScannedCard,
  requireCorrectable,
  requireTakesCards,
  waitsForCard,
  type CardCorrectionRequest,
} from './round-guards.js';

export function evolveRound(state: RoundState, event: RoundEvent): RoundState {
  switch (event.type) {
    case 'RoundOpened': {
      const d = event.data;
      return {
        ...state,
        status: 'betting',
        roundId: d.roundId,
        tableId: d.tableId,
        shoeId: d.shoeId,
        number: d.number,
        cardSource: d.cardSource,
        currency: d.currency,
        rules: d.rules,
        paytableId: d.paytableId,
        dealerId: d.dealer.dealerId,
      };
    }
    case 'BetPlaced': {
      const { roundId: _round, rebetOf: _rebet, fun: _fun, ...bet } = event.data;
      const bets = new Map(state.bets);
      bets.set(bet.betId, { ...bet, status: 'active' });
      return { ...state, bets };
    }
    case 'BetsCleared': {
      const bets = new Map(state.bets);
      for (const betId of event.data.betIds) {
        const bet = bets.get(betId);
        if (bet) bets.set(betId, { ...bet, status: 'cleared' });
      }
      return { ...state, bets };
    }
    case 'StakeReleased': {
      const { playerId, betId, amount } = event.data;
      const releasedStakes = new Map(state.releasedStakes);
      releasedStakes.set(releaseKey(betId, playerId), { playerId, betId, amount });
      return { ...state, releasedStakes };
    }
    case 'BettingClosed':
      return { ...state, status: 'closed' };
    case 'DealStarted':
      return { ...state, dealStarted: true };
    case 'CardDealt': {
      const card = { card: event.data.card, shoePosition: event.data.shoePosition };
      const player = event.data.hand === 'player' ? [...state.player, card] : state.player;
      const banker = event.data.hand === 'banker' ? [...state.banker, card] : state.banker;
      const complete = nextCardRecipient(cardsOf(player), cardsOf(banker)) === null;
      return {
        ...state,
        player,
        banker,
        dealStarted: true,
        status: complete ? 'dealt' : 'dealing',
      };
    }
    case 'CardCorrected': {
      const { shoePosition, card } = event.data;
      const player = replaceCard(state.player, shoePosition, card);
      const banker = replaceCard(state.banker, shoePosition, card);
      if (state.status === 'completed') return { ...state, player, banker };
      const complete = nextCardRecipient(cardsOf(player), cardsOf(banker)) === null;
      return { ...state, player, banker, status: complete ? 'dealt' : 'dealing' };
    }
    case 'RoundPaused':
      return { ...state, paused: true, pauses: state.pauses + 1 };
    case 'RoundResumed':
      return { ...state, paused: false };
    case 'RoundCompleted':
      return { ...state, status: 'completed' };
    case 'RoundResultCorrected':
      return state;
    case 'RoundResettled':
      return { ...state, adjustments: [...state.adjustments, ...event.data.adjustments] };
    case 'RoundSettled':
      return {
        ...state,
        settlementId: event.data.settlementId,
        settledLines: event.data.lines,
        settledSpots: event.data.spots ?? [],
      };
    case 'BetsRefunded': {
      const refundedBetIds = new Set(state.refundedBetIds);
      for (const line of event.data.lines) refundedBetIds.add(line.betId);
      return { ...state, refundedBetIds };
    }
    case 'RoundVoided':
      return { ...state, status: 'voided', paused: false };
  }
}

/**
 * The round's decider: each capability decides its own commands (bets/, dealing/, faults/), on
 * the one state every slice shares, evolved here.
 */
function decide(command: RoundCommand, state: RoundState): RoundEvent[] {
  switch (command.type) {
    case 'OpenRound': {
      if (state.status !== 'none')
        throw new DomainError('ALREADY_EXISTS', `round ${command.roundId} exists`);
      const { type: _type, ...data } = command;
      return [{ type: 'RoundOpened', data }];
    }
    case 'PlaceBets':
    case 'ClearBets':
    case 'ReleaseStakes':
      return decideBets(command, state);
    case 'CloseBetting':
    case 'StartDeal':
    case 'DealCards':
    case 'CorrectCard':
    case 'ConfirmResult':
      return decideDealing(command, state);
    case 'PauseRound':
    case 'ResumeRound':
    case 'VoidRound':
      return decideFaults(command, state);
  }
}

export const roundDecider: Decider<RoundCommand, RoundEvent, RoundState> = {
  decide,
  evolve: evolveRound,
  initialState: initialRoundState,
};
