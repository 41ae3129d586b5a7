import type {
  CardSource,
  DrawnCard,
  PlacedBet,
  RoundId,
  RoundRules,
  RoundStatus,
  SettledSpot,
  SettlementLine,
  Adjustment,
  ShoeId,
  TableId,
} from '@croupier/contracts';
import type { Card } from '@croupier/baccarat';

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
      /** An auto-dealt round: when its dealer closes betting (ISO 8601). */
      bettingClosesAt?: string;
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
  /**
   * When the auto-dealer closes betting (ms since the epoch), as the round recorded it; null on a
   * round dealt by hand, and once the round has been paused: its dealer gives it a new window
   * after the resume, which no record names.
   */
  readonly bettingClosesAt: number | null;
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
  bettingClosesAt: null,
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
