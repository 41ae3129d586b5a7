// What a player's game history shows of a round: the read model's public shape.

export type HistoryStatus = 'in-progress' | 'interrupted' | 'complete' | 'voided';
export type BetOutcome = 'win' | 'lose' | 'push' | 'refunded';

export interface HistoryHand {
  readonly cards: string[];
  readonly total: number;
}

export interface HistoryResult {
  readonly winner: 'player' | 'banker' | 'tie';
  readonly player: HistoryHand;
  readonly banker: HistoryHand;
}

export interface HistoryBet {
  readonly betId: string;
  readonly type: string;
  readonly amount: number;
  /** As finally settled (a void after settlement makes it `refunded`); null while open. */
  readonly result: BetOutcome | null;
  /** What the wallet paid for it: the payout or refund, plus every adjustment since. */
  readonly payout: number | null;
  readonly commission: number;
  /** The bet as first settled, kept once a resettlement changed it; null if none did. */
  readonly original: {
    readonly result: 'win' | 'lose' | 'push';
    readonly payout: number;
    readonly commission: number;
  } | null;
}

/** A card of the round replaced by a supervisor (a misread), before or after completion. */
export interface HistoryCorrection {
  readonly at: string;
  readonly shoePosition: number;
  readonly previous: string;
  readonly card: string;
  readonly reason: string;
}

/** One resettlement of the round as it moved this player's wallet. */
export interface HistoryAdjustment {
  readonly resettlementId: string;
  readonly kind: 'void' | 'correction';
  readonly reason: string;
  /** When the wallet applied it; null until it has (the bus delivers it after the round). */
  readonly at: string | null;
  /** Sum of the player's payout differences (negative: winnings taken back). */
  readonly delta: number;
  /** Change of the commission owed on an accrued-commission table. */
  readonly commissionDelta: number;
  /** The wallet's balance just before and just after it moved; null until it has. */
  readonly balanceBefore: number | null;
  readonly balanceAfter: number | null;
}

/**
 * One player's record of one round (GLI-19 game recall), as it stands after every dispute:
 * corrected cards and result, status `voided` for a round voided after settlement, payouts
 * and commission as finally adjusted, and the original figures beside them once they changed.
 */
export interface HistoryRecord {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string | null;
  readonly status: HistoryStatus;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly stakes: number;
  /** Paid by the wallet: payouts credited plus every payout adjustment since. */
  readonly payout: number;
  readonly refunded: number;
  /** As finally settled: the settlement lines' commission, as resettled since. */
  readonly commission: number;
  /** The wallet's balance just before the round's first movement (its first stake debited). */
  readonly balanceBefore: number;
  /**
   * The wallet's balance just after the round's last movement, its payout adjustments
   * included: a resettlement moves the round's money (see docs/audit.md, game recall).
   */
  readonly balanceAfter: number;
  readonly bets: HistoryBet[];
  /** The cards and result as they stand: corrected if a supervisor corrected a card. */
  readonly result: HistoryResult | null;
  readonly corrections: HistoryCorrection[];
  /** The round changed after it was settled: voided, its result corrected, or resettled. */
  readonly adjusted: boolean;
  /** When `adjusted`: the round as first settled, before any of that. */
  readonly original: {
    readonly result: HistoryResult | null;
    readonly payout: number;
    readonly commission: number;
    /** The balance just after the round's last movement before its first adjustment. */
    readonly balanceAfter: number;
  } | null;
  readonly adjustments: HistoryAdjustment[];
}
