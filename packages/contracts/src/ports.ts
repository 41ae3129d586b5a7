import type { Card, Hand } from '@croupier/baccarat';
import type { ErrorCode } from './errors.js';
import type { Actor } from './events/metadata.js';
import type { DrawnCard, ShoeCloseReason } from './events/shoe.js';
import type { PlayerId, RoundId, ShoeId, TableId } from './ids.js';
import type { CardSource, TableConfig } from './table-config.js';

/**
 * What services ask of one another. Each service implements its port; the gateway wires them
 * in one process, the distributed deployment over HTTP. Nothing else crosses a service boundary.
 */

/** Who is acting, why, and when: carried from the request to every event it causes. */
export interface CommandContext {
  readonly actor: Actor;
  readonly correlationId: string;
  /** The event or command that led to this one, if any. */
  readonly causationId: string | null;
  readonly now: () => Date;
}

/** Where a shoe's cut card is and whether it has come out. */
export interface CutCardState {
  /**
   * The shoe position the cut card sits before (0 is the first card): where it was placed, or,
   * once out, where it came out (a scanner shoe's dealer reports that).
   */
  readonly position: number;
  /** Cards from the end of the shoe to the cut card (the table's `cutCard` setting, once placed). */
  readonly cardsFromEnd: number;
  readonly reached: boolean;
  /** The round in which it came out; null before. */
  readonly reachedInRound: number | null;
}

export interface ShoeSummary {
  readonly shoeId: ShoeId;
  readonly tableId: TableId;
  readonly number: number;
  readonly status: 'awaiting-burn' | 'dealing' | 'closed';
  readonly decks: number;
  readonly cardSource: CardSource;
  readonly shufflePolicy: 'shoe' | 'every-round';
  /** Position of the next card. */
  readonly position: number;
  readonly cardsLeft: number;
  readonly roundsDrawn: number;
  /** Set once the cut card is out: the number of the shoe's last round. */
  readonly lastRoundNumber: number | null;
  /** The shoe's cut card; null for a shoe shuffled for one round, which has none. */
  readonly cutCard: CutCardState | null;
  readonly commitment: string | null;
}

export interface ShoePort {
  startShoe(
    input: { tableId: TableId; number: number; config: TableConfig },
    context: CommandContext,
  ): Promise<ShoeSummary>;
  getShoe(shoeId: ShoeId): Promise<ShoeSummary | null>;
  /** rng shoes: the round's cards, by the third-card rule; the same cards when asked again. */
  drawRound(
    input: { shoeId: ShoeId; roundId: RoundId; roundNumber: number },
    context: CommandContext,
  ): Promise<DrawnCard[]>;
  /**
   * scanner shoes: one card read by the dealer's card reader, for the hand the rules give it.
   * `index` is the card's place in the round (0-5), so a retried post is recognized.
   */
  drawScannedCard(
    input: {
      shoeId: ShoeId;
      roundId: RoundId;
      roundNumber: number;
      index: number;
      card: Card;
      hand: Hand;
    },
    context: CommandContext,
  ): Promise<DrawnCard>;
  /**
   * The shoe draws no more cards for the round (RoundSealed) and answers the cards it drew for
   * it, in order: what a void of a round whose deal is under way records (ADR 0033). Sealing
   * again answers the same cards; a closed shoe draws for no round and answers them as they are.
   */
  sealRound(
    input: { shoeId: ShoeId; roundId: RoundId },
    context: CommandContext,
  ): Promise<DrawnCard[]>;
  /** The cards the shoe has handed to a round, in order. */
  roundCards(shoeId: ShoeId, roundId: RoundId): Promise<DrawnCard[]>;
  correctCard(
    input: { shoeId: ShoeId; roundId: RoundId; position: number; card: Card; reason: string },
    context: CommandContext,
  ): Promise<void>;
  reportCutCard(
    input: { shoeId: ShoeId; roundId: RoundId; roundNumber: number },
    context: CommandContext,
  ): Promise<ShoeSummary>;
  burnScannedCard(
    input: { shoeId: ShoeId; shownCard: Card },
    context: CommandContext,
  ): Promise<ShoeSummary>;
  /** Closes the shoe, revealing an rng shoe's seed and sealing a digest of all its streams. */
  closeShoe(
    input: { shoeId: ShoeId; reason: ShoeCloseReason },
    context: CommandContext,
  ): Promise<ShoeSummary>;
}

/** One stake of a bet: the bet's id and the amount staked, minor units. */
export interface StakeOf {
  readonly betId: string;
  readonly amount: number;
}

/**
 * Why a wallet refused stakes: a refusal's code, message and details, as they cross a process
 * boundary beside what the same call did debit (`DomainError` carries them within a process).
 */
export interface StakeRefusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * The wallet as the bet workflow uses it. Every call names the round, the bet id and the amount it
 * acts on, and the wallet refuses a call that names another round or amount for an open stake:
 * a bet id can never be used to move the money of another bet.
 */
export interface WalletPort {
  /**
   * Debits the stakes of bets on one round. A stake already open for the same round and amount
   * is a retry and is not debited again; a bet id open for another round or amount, or already
   * closed, is ID_CONFLICT. `debited` lists the stakes this call debited (the others were
   * debited by an earlier or a concurrent call, whose caller owns them). With `refusal` null
   * every stake is open for this round. Otherwise some stake was refused, and `debited` may
   * still list stakes that moved (an operator's wallet answers each stake on its own): the
   * caller gives those back through their round, never directly, since a concurrent request
   * for the same bet may have made one of them a bet meanwhile. A refusal before anything
   * moved may also be thrown.
   */
  debitStakes(
    input: {
      playerId: PlayerId;
      roundId: RoundId;
      currency: string;
      stakes: readonly StakeOf[];
      /**
       * When the round's betting closes (ISO 8601), if its dealer scheduled it: a stake confirmed
       * after it could not become a bet, so an operator's wallet is asked within a budget that
       * ends by then (ADR 0044). Croupier's own wallet answers at once and ignores it.
       */
      bettingClosesAt?: string;
    },
    context: CommandContext,
  ): Promise<{ debited: readonly StakeOf[]; refusal: StakeRefusal | null }>;
  /**
   * Refunds a debited stake whose bet will not be settled, naming its round and amount: a stake
   * open for another round or amount is ID_CONFLICT and nothing moves. A stake not open (closed
   * already, or never debited) is left alone: `refunded` is false. So is a stake refunded as
   * `bet-rejected` or `orphaned-debit` that its round has not released (StakeReleased): the
   * round may hold it as a bet, or take one under its id yet, and then only the round closes it.
   */
  refundStake(
    input: {
      playerId: PlayerId;
      roundId: RoundId;
      /**
       * The currency the stake was debited in. Play money (FUN) is refunded to the fun wallet
       * only, and must be named; a refund naming none is of real money (ADR 0030).
       */
      currency?: string;
      betId: string;
      amount: number;
      reason: 'voided' | 'cleared' | 'bet-rejected' | 'orphaned-debit';
    },
    context: CommandContext,
  ): Promise<{ refunded: boolean }>;
}

/**
 * Seamless mode: the operator's wallet, which holds the player's balance (docs/wallet-api.openapi.json).
 * Every call carries an idempotency key: the same key sent again is answered as the first time and
 * moves no more money. A call that resolves answered (applied, or refused with a code); one that
 * rejects got no answer about the money (no answer, a timeout, a 5xx, a 4xx that is not a
 * refusal) and may or may not have been applied: only a status query by its key can tell.
 */
export interface OperatorWalletPort {
  /** Takes a bet's stake; with `budget`, gives up (no answer) by its end. */
  debit(call: OperatorDebitCall, budget?: CallBudget): Promise<OperatorWalletAnswer>;
  /** Pays a bet (0 closes a lost bet), or a resettled bet's difference (negative: taken back). */
  credit(call: OperatorCreditCall): Promise<OperatorWalletAnswer>;
  /** Gives a debit back; a debit never seen is recorded as rolled back, so it is refused if it comes late. */
  rollback(call: OperatorRollbackCall): Promise<OperatorWalletAnswer>;
  /** What became of the call sent under this key; with `budget`, no answer after its end. */
  status(key: string, budget?: CallBudget): Promise<OperatorCallStatus>;
}

/**
 * How long a call may go on, when something later than its own settings bounds it (a debit's
 * round closes betting, ADR 0044): no attempt starts after `until` (ms since the epoch) and none
 * outlasts it, but the first attempt is always made.
 */
export interface CallBudget {
  readonly until: number;
}

export interface OperatorDebitCall {
  readonly key: string;
  readonly playerId: PlayerId;
  readonly roundId: RoundId;
  readonly betId: string;
  readonly amount: number;
  readonly currency: string;
}

export interface OperatorCreditCall {
  readonly key: string;
  readonly playerId: PlayerId;
  readonly roundId: RoundId;
  readonly betId: string;
  readonly amount: number;
  readonly currency: string;
  readonly kind: 'settlement' | 'adjustment';
}

export interface OperatorRollbackCall {
  readonly key: string;
  /** The debit to give back. */
  readonly debitKey: string;
  readonly playerId: PlayerId;
  readonly roundId: RoundId;
  readonly betId: string;
  readonly amount: number;
  readonly currency: string;
}

/** The wallet's answer: applied (now, or already under this key), or refused with its code. */
export type OperatorWalletAnswer =
  | { readonly outcome: 'applied'; readonly transactionId: string; readonly balance: number }
  | { readonly outcome: 'refused'; readonly code: string; readonly detail: string };

/**
 * What the wallet knows of a key (docs/wallet-integration.md#status): `unknown` when no call under
 * it ever reached it; `rolled-back` for a debit applied and given back since; `refused` for a call
 * refused, and for a debit whose rollback came first (`ROLLED_BACK`).
 */
export type OperatorCallStatus =
  | { readonly state: 'applied'; readonly transactionId: string }
  | { readonly state: 'rolled-back'; readonly transactionId: string }
  | { readonly state: 'refused'; readonly code: string }
  | { readonly state: 'unknown' };
