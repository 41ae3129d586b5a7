import { handTotal, rankOf, type Card } from './cards.js';
import { InvalidDealError, isNaturalTotal, nextCardRecipient } from './dealing.js';

export type Winner = 'player' | 'banker' | 'tie';

/**
 * Everything the paytables look at, and nothing else. Settlement, the exact analyzer and the
 * simulator all price bets from this one shape.
 */
export interface RoundOutcome {
  readonly winner: Winner;
  readonly playerTotal: number;
  readonly bankerTotal: number;
  readonly playerCardCount: 2 | 3;
  readonly bankerCardCount: 2 | 3;
  /** The hand's first two cards total 8 or 9. */
  readonly playerNatural: boolean;
  readonly bankerNatural: boolean;
  /** The hand's first two cards have the same rank. */
  readonly playerPair: boolean;
  readonly bankerPair: boolean;
  /** The hand's first two cards have the same rank and suit (possible with two or more decks). */
  readonly playerPerfectPair: boolean;
  readonly bankerPerfectPair: boolean;
}

export interface RoundResult extends RoundOutcome {
  readonly player: readonly Card[];
  readonly banker: readonly Card[];
}

export function winnerOf(playerTotal: number, bankerTotal: number): Winner {
  if (playerTotal > bankerTotal) return 'player';
  if (bankerTotal > playerTotal) return 'banker';
  return 'tie';
}

/** Evaluates a complete round. Throws `InvalidDealError` if the hands break the drawing rules. */
export function evaluateRound(player: readonly Card[], banker: readonly Card[]): RoundResult {
  if (nextCardRecipient(player, banker) !== null) {
    throw new InvalidDealError(
      `the round is not complete: Player [${player.join(' ')}], Banker [${banker.join(' ')}]`,
    );
  }
  const [p1, p2] = player as [Card, Card];
  const [b1, b2] = banker as [Card, Card];
  const playerTotal = handTotal(player);
  const bankerTotal = handTotal(banker);
  return {
    player: [...player],
    banker: [...banker],
    winner: winnerOf(playerTotal, bankerTotal),
    playerTotal,
    bankerTotal,
    playerCardCount: player.length as 2 | 3,
    bankerCardCount: banker.length as 2 | 3,
    playerNatural: isNaturalTotal(handTotal([p1, p2])),
    bankerNatural: isNaturalTotal(handTotal([b1, b2])),
    playerPair: rankOf(p1) === rankOf(p2),
    bankerPair: rankOf(b1) === rankOf(b2),
    playerPerfectPair: p1 === p2,
    bankerPerfectPair: b1 === b2,
  };
}
