import {
  DomainError,
  type Dealing,
  type ShoeSummary,
  type TableConfig,
  type TableId,
} from '@croupier/contracts';
import { activeBets, type RoundState } from '../domain/round.decider.js';
import type { TableState } from '../domain/table.decider.js';

/*
 * When a table opens its next round, starts a new shoe or closes the current one: the shoe
 * lifecycle as pure functions of what the round service has read. The service reads, asks here,
 * and carries out the answer; nothing here does I/O. Refusals name the next step in `details.next`
 * (`burn-shoe`, `close-shoe`), which the HTTP layer turns into a hint; messages stay in the
 * domain's words.
 */

/** What the round service reads about a table before its shoe or round changes. */
export interface TableShoe {
  readonly table: TableState;
  /** The table's latest shoe, or null before its first. */
  readonly shoe: ShoeSummary | null;
  /** The number of the shoe's latest round, 0 before its first. */
  readonly lastNumber: number;
  /** That round, or null before the shoe's first. */
  readonly lastRound: RoundState | null;
}

/** An open table: what a new shoe and a new round are made from. */
export interface OpenTable {
  readonly tableId: TableId;
  readonly config: TableConfig;
  readonly dealerId: string | null;
  readonly shiftId: string;
  /** How its rounds advance: an auto-dealt table's rounds record when betting closes. */
  readonly dealing: Dealing | null;
}

/** What opening the table's next round takes. */
export type NextRound =
  /** The current shoe deals it. */
  | {
      readonly step: 'open-round';
      readonly table: OpenTable;
      readonly shoe: ShoeSummary;
      readonly number: number;
    }
  /** A new shoe (number `shoeNumber`), after closing the finished one if any, deals round 1. */
  | {
      readonly step: 'new-shoe';
      readonly table: OpenTable;
      readonly close: ShoeSummary | null;
      readonly shoeNumber: number;
    };

/** What starting the table's next shoe takes: closing the finished one first, if any. */
export interface NextShoe {
  readonly table: OpenTable;
  readonly close: ShoeSummary | null;
  readonly shoeNumber: number;
}

/**
 * Why a finished shoe is closed: `exhausted` when it ran out of cards before its cut card was
 * reported (the round it left waiting was voided), else `completed`.
 */
export function closeReasonOf(shoe: ShoeSummary): 'completed' | 'exhausted' {
  return shoe.cardsLeft === 0 && shoe.lastRoundNumber === null && shoe.shufflePolicy === 'shoe'
    ? 'exhausted'
    : 'completed';
}

/** A round is finished when complete or voided. */
export function isFinished(round: RoundState): boolean {
  return round.status === 'completed' || round.status === 'voided';
}

/**
 * A finished round is settled when its money is too: paid, or every bet refunded, or (voided
 * after it was paid) every bet resettled to its stake (ADR 0009; a bet that pushed needs no
 * resettlement, so it is what each bet now stands at that counts, not that one was recorded).
 */
export function isSettled(round: RoundState): boolean {
  if (round.status === 'completed') return round.settlementId !== null;
  if (round.status === 'voided') {
    if (round.settlementId !== null) return stakesGivenBack(round);
    return activeBets(round).every((bet) => round.refundedBetIds.has(bet.betId));
  }
  return false;
}

/** Every bet of a paid round stands at its stake with no commission: what a void resettles to. */
function stakesGivenBack(round: RoundState): boolean {
  const standing = new Map<string, { stake: number; payout: number; commission: number }>();
  for (const line of round.settledLines) standing.set(line.betId, line);
  for (const adjustment of round.adjustments) standing.set(adjustment.betId, adjustment);
  return [...standing.values()].every((bet) => bet.payout === bet.stake && bet.commission === 0);
}

/**
 * Whether the shoe deals the round of this number (it is not past its cut card, and it has
 * cards left: a scanner shoe whose cut card was never reported may run out).
 */
export function shoeDeals(shoe: ShoeSummary, roundNumber: number): boolean {
  if (shoe.status !== 'dealing' && shoe.status !== 'awaiting-burn') return false;
  if (shoe.cardsLeft === 0) return false;
  if (shoe.shufflePolicy === 'every-round') return roundNumber === 1;
  return shoe.lastRoundNumber === null || roundNumber <= shoe.lastRoundNumber;
}

/** The table, refused unless it is open. */
export function openTableOf(table: TableState): OpenTable {
  if (table.status !== 'open' || table.config === null || table.shiftId === null)
    throw new DomainError('TABLE_CLOSED', `table ${table.tableId} is closed`);
  return {
    tableId: table.tableId,
    config: table.config,
    dealerId: table.dealerId,
    shiftId: table.shiftId,
    dealing: table.dealing,
  };
}

/**
 * The table's next round: the next number in the current shoe, or round 1 of a new shoe once the
 * current one is finished (its last round settled; it is closed first, revealing its seed).
 * Refused while the table's latest round is still being played or settled, and while the shoe
 * waits for its burn card.
 */
export function nextRoundOf({ table, shoe, lastNumber, lastRound }: TableShoe): NextRound {
  const open = openTableOf(table);
  if (shoe === null || shoe.status === 'closed')
    return { step: 'new-shoe', table: open, close: null, shoeNumber: (shoe?.number ?? 0) + 1 };
  const deals = shoeDeals(shoe, lastNumber + 1);
  if (lastRound !== null) {
    const roundId = lastRound.roundId;
    if (!isFinished(lastRound))
      throw new DomainError('ROUND_IN_PROGRESS', `round ${roundId} is still being played`, {
        roundId,
      });
    if (!deals && !isSettled(lastRound))
      throw new DomainError(
        'ROUND_IN_PROGRESS',
        `the shoe's last round ${roundId} is being settled`,
        {
          roundId,
        },
      );
  }
  if (shoe.status === 'awaiting-burn') {
    throw new DomainError('INVALID_DEAL', `burn shoe ${shoe.shoeId} before its first round`, {
      shoeId: shoe.shoeId,
      next: 'burn-shoe',
    });
  }
  if (deals) return { step: 'open-round', table: open, shoe, number: lastNumber + 1 };
  return { step: 'new-shoe', table: open, close: shoe, shoeNumber: shoe.number + 1 };
}

/** Round 1 of a new shoe is refused while the shoe waits for its burn card (a scanner shoe). */
export function requireBurnt(shoe: ShoeSummary): void {
  if (shoe.status === 'awaiting-burn') {
    throw new DomainError('INVALID_DEAL', `a new shoe ${shoe.shoeId} is in: burn it first`, {
      shoeId: shoe.shoeId,
      next: 'burn-shoe',
    });
  }
}

/**
 * The table's next shoe (a dealer bringing in a new shoe). The current shoe must be finished
 * (its last round settled; it is closed first, revealing its seed) or closed; one still in play
 * is refused: close it first.
 */
export function nextShoeOf({ table, shoe, lastNumber, lastRound }: TableShoe): NextShoe {
  const open = openTableOf(table);
  if (shoe === null || shoe.status === 'closed')
    return { table: open, close: null, shoeNumber: (shoe?.number ?? 0) + 1 };
  if (lastRound === null || shoeDeals(shoe, lastNumber + 1)) {
    throw new DomainError(
      'SHOE_NOT_FINISHED',
      `shoe ${shoe.shoeId} is still in play: close it first`,
      {
        shoeId: shoe.shoeId,
        next: 'close-shoe',
      },
    );
  }
  if (!isFinished(lastRound) || !isSettled(lastRound)) {
    throw new DomainError(
      'ROUND_IN_PROGRESS',
      `the shoe's last round ${lastRound.roundId} is still being played or settled`,
      { roundId: lastRound.roundId },
    );
  }
  return { table: open, close: shoe, shoeNumber: shoe.number + 1 };
}

/** The shoe an operator may close early: the table's current one, once its last round is over. */
export function shoeToCloseOf({ table, shoe, lastRound }: TableShoe): ShoeSummary {
  if (shoe === null) throw new DomainError('SHOE_NOT_FOUND', `table ${table.tableId} has no shoe`);
  if (lastRound !== null && !isFinished(lastRound)) {
    throw new DomainError('ROUND_IN_PROGRESS', `finish or void round ${lastRound.roundId} first`, {
      roundId: lastRound.roundId,
    });
  }
  return shoe;
}
