import type { RoundOutcome, Winner } from './outcome.js';
import { winnerOf } from './outcome.js';

/**
 * A round outcome packed into 14 bits, for the exact analyzer and the simulator:
 * bits 0-3 Player total, 4-7 Banker total, 8 Player has 3 cards, 9 Banker has 3 cards,
 * 10 Player pair, 11 Banker pair, 12 Player perfect pair, 13 Banker perfect pair.
 * Naturals follow from total and card count: a two-card 8 or 9 is always a natural.
 */
export const OUTCOME_CODES = 1 << 14;

export function encodeOutcome(
  playerTotal: number,
  bankerTotal: number,
  playerCards: number,
  bankerCards: number,
  playerPair: boolean,
  bankerPair: boolean,
  playerPerfectPair: boolean,
  bankerPerfectPair: boolean,
): number {
  return (
    playerTotal |
    (bankerTotal << 4) |
    ((playerCards - 2) << 8) |
    ((bankerCards - 2) << 9) |
    (playerPair ? 1 << 10 : 0) |
    (bankerPair ? 1 << 11 : 0) |
    (playerPerfectPair ? 1 << 12 : 0) |
    (bankerPerfectPair ? 1 << 13 : 0)
  );
}

export function decodeOutcome(code: number): RoundOutcome {
  const playerTotal = code & 15;
  const bankerTotal = (code >> 4) & 15;
  const playerCardCount = code & (1 << 8) ? 3 : 2;
  const bankerCardCount = code & (1 << 9) ? 3 : 2;
  const winner: Winner = winnerOf(playerTotal, bankerTotal);
  return {
    winner,
    playerTotal,
    bankerTotal,
    playerCardCount,
    bankerCardCount,
    playerNatural: playerCardCount === 2 && playerTotal >= 8,
    bankerNatural: bankerCardCount === 2 && bankerTotal >= 8,
    playerPair: (code & (1 << 10)) !== 0,
    bankerPair: (code & (1 << 11)) !== 0,
    playerPerfectPair: (code & (1 << 12)) !== 0,
    bankerPerfectPair: (code & (1 << 13)) !== 0,
  };
}

/** Whether the packed fields describe a round the rules can produce. */
export function isPlausibleOutcome(code: number): boolean {
  const o = decodeOutcome(code);
  if (o.playerTotal > 9 || o.bankerTotal > 9) return false;
  if (o.playerPerfectPair && !o.playerPair) return false;
  if (o.bankerPerfectPair && !o.bankerPair) return false;
  return true;
}
