import { handTotal, pointsOf, type Card } from './cards.js';

/** The two hands of baccarat. */
export type Hand = 'player' | 'banker';

export class InvalidDealError extends Error {
  readonly code = 'INVALID_DEAL';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDealError';
  }
}

/** A two-card total of 8 or 9. */
export function isNaturalTotal(twoCardTotal: number): boolean {
  return twoCardTotal >= 8;
}

/** Player rule: 0-5 draws a third card, 6-7 stands (naturals are decided before this). */
export function playerDraws(playerTotal: number): boolean {
  return playerTotal <= 5;
}

/**
 * Banker rule (docs/rules.md). `playerThirdCard` is the point value of the Player's third
 * card, or null when the Player stood.
 */
export function bankerDraws(bankerTotal: number, playerThirdCard: number | null): boolean {
  if (playerThirdCard === null) return bankerTotal <= 5;
  switch (bankerTotal) {
    case 0:
    case 1:
    case 2:
      return true;
    case 3:
      return playerThirdCard !== 8;
    case 4:
      return playerThirdCard >= 2 && playerThirdCard <= 7;
    case 5:
      return playerThirdCard >= 4 && playerThirdCard <= 7;
    case 6:
      return playerThirdCard === 6 || playerThirdCard === 7;
    default:
      return false;
  }
}

/**
 * Which hand receives the next card, or null when the round is complete. Cards go Player, Banker,
 * Player, Banker; then a natural stops everything; then the Player rule; then the Banker rule.
 * Throws `InvalidDealError` when the hands could not have been dealt by the rules.
 */
export function nextCardRecipient(player: readonly Card[], banker: readonly Card[]): Hand | null {
  const p = player.length;
  const b = banker.length;
  if (p + b < 4) {
    if (p === b) return 'player';
    if (p === b + 1) return 'banker';
    throw new InvalidDealError(
      `first four cards go Player, Banker, Player, Banker; got ${p} and ${b}`,
    );
  }
  if (p < 2 || b < 2) {
    throw new InvalidDealError(`each hand gets two cards first; got Player ${p}, Banker ${b}`);
  }
  const playerTwo = handTotal(player.slice(0, 2));
  const bankerTwo = handTotal(banker.slice(0, 2));
  const natural = isNaturalTotal(playerTwo) || isNaturalTotal(bankerTwo);
  const playerShouldDraw = !natural && playerDraws(playerTwo);
  const playerThird = player[2];

  if (p === 2 && b === 2) {
    if (natural) return null;
    if (playerShouldDraw) return 'player';
    return bankerDraws(bankerTwo, null) ? 'banker' : null;
  }
  if (p === 3 && playerThird !== undefined && playerShouldDraw) {
    const bankerShouldDraw = bankerDraws(bankerTwo, pointsOf(playerThird));
    if (b === 2) return bankerShouldDraw ? 'banker' : null;
    if (b === 3 && bankerShouldDraw) return null;
  }
  if (p === 2 && b === 3 && !natural && !playerShouldDraw && bankerDraws(bankerTwo, null)) {
    return null;
  }
  throw new InvalidDealError(
    `the third-card rule does not deal Player [${player.join(' ')}] and Banker [${banker.join(' ')}]`,
  );
}

/** A round as dealt: both hands, and every card in the order it came out of the shoe. */
export interface DealtRound {
  readonly player: Card[];
  readonly banker: Card[];
  readonly sequence: { readonly hand: Hand; readonly card: Card }[];
}

/** Deals one round from `draw`, which yields the shoe's next card each time it is called. */
export function dealRound(draw: () => Card): DealtRound {
  const player: Card[] = [];
  const banker: Card[] = [];
  const sequence: { hand: Hand; card: Card }[] = [];
  for (let hand = nextCardRecipient(player, banker); hand !== null;) {
    const card = draw();
    (hand === 'player' ? player : banker).push(card);
    sequence.push({ hand, card });
    hand = nextCardRecipient(player, banker);
  }
  return { player, banker, sequence };
}

/** One step of the third-card rule, in words an auditor can check against the table. */
export interface ThirdCardDecision {
  readonly hand: Hand;
  readonly draws: boolean;
  readonly reason: string;
}

/** Explains why each hand drew or stood after the first four cards of a complete round. */
export function explainThirdCards(
  player: readonly Card[],
  banker: readonly Card[],
): ThirdCardDecision[] {
  if (nextCardRecipient(player, banker) !== null) {
    throw new InvalidDealError('the round is not complete');
  }
  const playerTwo = handTotal(player.slice(0, 2));
  const bankerTwo = handTotal(banker.slice(0, 2));
  if (isNaturalTotal(playerTwo) || isNaturalTotal(bankerTwo)) {
    // Each hand's line says which hand holds the natural: its own, or the other's.
    const standsOn = (hand: 'Player' | 'Banker', own: number, other: number): string =>
      isNaturalTotal(own)
        ? `${hand} natural ${own}: stands`
        : `${hand} ${own} stands: ${hand === 'Player' ? 'Banker' : 'Player'} natural ${other}`;
    return [
      { hand: 'player', draws: false, reason: standsOn('Player', playerTwo, bankerTwo) },
      { hand: 'banker', draws: false, reason: standsOn('Banker', bankerTwo, playerTwo) },
    ];
  }
  const decisions: ThirdCardDecision[] = [];
  const playerThird = player[2];
  decisions.push(
    playerThird === undefined
      ? { hand: 'player', draws: false, reason: `Player ${playerTwo} stands` }
      : { hand: 'player', draws: true, reason: `Player ${playerTwo} draws` },
  );
  const drew = banker.length === 3;
  const verb = drew ? 'draws' : 'stands';
  decisions.push({
    hand: 'banker',
    draws: drew,
    reason:
      playerThird === undefined
        ? `Banker ${bankerTwo} ${verb}: Player stood`
        : `Banker ${bankerTwo} ${verb}: Player's third card was ${pointsOf(playerThird)}`,
  });
  return decisions;
}
