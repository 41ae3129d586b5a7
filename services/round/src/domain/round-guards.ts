import {
  BetRejectedError,
  InvalidDealError,
  type Card,
  type Hand,
  nextCardRecipient,
} from '@croupier/baccarat';
import { DomainError, type CardSource } from '@croupier/contracts';
import type { CardAt, RoundCommand, RoundState } from './round.state.js';

/** What every capability's decisions on a round ask of it first: the round's guards. */

/**
 * Runs a bet-set rule of packages/baccarat and answers its refusal as the round's: the rule's own
 * code, naming the field. Every change to a player's bets passes here, so no sequence of changes
 * (place, remove one chip, rebet) can leave a set the rules would refuse (issue 24).
 */
export function judged<T>(rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    if (error instanceof BetRejectedError) {
      throw new DomainError(error.code, error.message, { field: error.field });
    }
    throw error;
  }
}

export function replaceCard(hand: readonly CardAt[], shoePosition: number, card: Card): CardAt[] {
  return hand.map((c) => (c.shoePosition === shoePosition ? { ...c, card } : c));
}

export const cardsOf = (hand: readonly CardAt[]): Card[] => hand.map((c) => c.card);

export function requireOpen(state: RoundState): void {
  if (state.status === 'none') throw new DomainError('ROUND_NOT_FOUND', 'no such round');
}

export function requireNotPaused(state: RoundState): void {
  if (state.paused) throw new DomainError('ROUND_PAUSED', `round ${state.roundId} is paused`);
}

export function requireNotFinished(state: RoundState): void {
  if (state.status === 'completed' || state.status === 'voided') {
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} is ${state.status}`);
  }
}

/**
 * Refuses a round that takes no card from a shoe of this source now. The service asks it before
 * the shoe draws (the shoe's stream is another's, so the refusal must come first) and decide asks
 * it again when the cards arrive: one rule, in one place. A completed round is not refused here:
 * an rng deal retried after it completed is answered with the round as it is.
 */
export function requireTakesCards(state: RoundState, source: CardSource): void {
  requireOpen(state);
  if (state.cardSource !== source) {
    throw new DomainError(
      'WRONG_CARD_SOURCE',
      source === 'rng'
        ? 'a scanner table posts each card it reads'
        : 'an rng table deals its own cards',
    );
  }
  if (state.status === 'betting')
    throw new DomainError('ROUND_NOT_DEALING', 'close betting before dealing');
  requireNotPaused(state);
  if (state.status === 'voided')
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} was voided`);
}

/**
 * Whether the shoe may have drawn cards the round has not recorded: its deal started and it is
 * neither completed nor voided. Such a round is voided only with the cards its shoe sealed.
 */
export function dealUnderWay(state: RoundState): boolean {
  return state.dealStarted && state.status !== 'completed' && state.status !== 'voided';
}

/**
 * Where the next scanned card goes: the hand the third-card rule gives it and its place among the
 * round's cards, or the refusal (INVALID_DEAL once the rule wants no more cards).
 */
export function nextScannedCard(state: RoundState): { hand: Hand; index: number } {
  requireTakesCards(state, 'scanner');
  const hand = nextCardRecipient(cardsOf(state.player), cardsOf(state.banker));
  if (hand === null)
    throw new DomainError('INVALID_DEAL', `round ${state.roundId} needs no more cards`);
  return { hand, index: state.player.length + state.banker.length };
}

/** A supervisor's correction of a scanned card: which card, what it becomes, and why. */
export type CardCorrectionRequest = Omit<Extract<RoundCommand, { type: 'CorrectCard' }>, 'type'>;

/**
 * Refuses a correction the round cannot take: asked before the shoe records it, and by decide.
 * Returns the card being replaced (the same card again changes nothing and is not refused).
 */
export function requireCorrectable(state: RoundState, correction: CardCorrectionRequest): CardAt {
  requireOpen(state);
  if (state.status === 'voided')
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} was voided`);
  if (state.cardSource !== 'scanner')
    throw new DomainError('WRONG_CARD_SOURCE', 'only scanned cards can be corrected');
  const { shoePosition, card } = correction;
  const old = [...state.player, ...state.banker].find((c) => c.shoePosition === shoePosition);
  if (old === undefined) {
    throw new DomainError(
      'INVALID_CORRECTION',
      `no card of round ${state.roundId} came from shoe position ${shoePosition}`,
    );
  }
  if (old.card === card) return old;
  const player = replaceCard(state.player, shoePosition, card);
  const banker = replaceCard(state.banker, shoePosition, card);
  let due: Hand | null;
  try {
    due = nextCardRecipient(cardsOf(player), cardsOf(banker));
  } catch (error) {
    if (error instanceof InvalidDealError) {
      throw new DomainError(
        'INVALID_CORRECTION',
        `with ${card} at position ${shoePosition} the cards already dealt break the third-card rule (${error.message}); void the round instead`,
      );
    }
    throw error;
  }
  // A completed round can only take a correction that leaves it complete: its result is
  // corrected, and settlement pays the difference (never by editing the settlement).
  if (state.status === 'completed' && due !== null) {
    throw new DomainError(
      'INVALID_CORRECTION',
      `with ${card} at position ${shoePosition} the round would need another card; void the round instead`,
    );
  }
  return old;
}

/** Whether a round waits for a card (closed, or dealing with more due) and is not paused. */
export function waitsForCard(state: RoundState): boolean {
  return !state.paused && (state.status === 'closed' || state.status === 'dealing');
}
