import type { BetSettlement, Card, Hand } from '@croupier/baccarat';
import type { Adjustment, PlacedBet, SettlementLine } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';

/*
 * The audit's model of a round: what replaying its stream builds and what each check reads.
 * Here, apart from the replay (round-examination.ts) and the checks it runs, so the checks depend
 * on the model and the replay on the checks, never the other way round.
 */

/** A card of the round, as it stands after any correction. */
export interface DealtCard {
  /** Its place in the round: 0 for the Player's first card. */
  readonly index: number;
  readonly hand: Hand;
  readonly card: Card;
  readonly shoePosition: number;
  /** Revision of the CardDealt that dealt it. */
  readonly revision: string;
}

/** A correction of a misread card: what it was, what it became, who changed it and why. */
export interface CardCorrection {
  readonly stream: string;
  readonly revision: string;
  readonly shoePosition: number;
  readonly previous: Card;
  readonly card: Card;
  readonly reason: string;
  readonly actor: { id: string; role: string } | null;
  readonly occurredAt: string | null;
}

export interface BetExamination {
  readonly bet: PlacedBet;
  readonly status: 'active' | 'cleared';
  /** The settlement line recorded for it, if any. */
  readonly line: SettlementLine | null;
  /** What the paytable gives it, recomputed from the cards. */
  readonly expected: BetSettlement | null;
  readonly refund: { amount: number; reason: 'voided' | 'cleared' } | null;
  /** Every resettlement line of the bet, as recorded and as recomputed, in order. */
  readonly adjustments: readonly BetAdjustment[];
}

/**
 * A wallet movement a round caused: a debit, a payout, a refund, accrued commission or a payout
 * adjusted by a resettlement (its amount is the difference credited, negative when taken back).
 */
export interface WalletMovement {
  readonly stream: string;
  readonly revision: string;
  readonly type: string;
  readonly playerId: string;
  readonly betId: string;
  readonly amount: number;
  /** The payout's result or the refund's reason. */
  readonly detail: string | null;
  readonly occurredAt: string | null;
}

export interface BetState {
  bet: PlacedBet;
  status: 'active' | 'cleared';
  line: SettlementLine | null;
  expected: BetSettlement | null;
  refund: { amount: number; reason: 'voided' | 'cleared' } | null;
  /** The BetPlaced that recorded it. */
  placed?: RecordedEvent;
  /** What the rules pay it so far: its settlement recomputed, then each resettlement since. */
  paid: PaidLine | null;
  adjustments: BetAdjustment[];
}

/** What a bet is paid: by its settlement line, then by each resettlement since. */
export interface PaidLine {
  readonly result: 'win' | 'lose' | 'push' | 'refund';
  readonly payout: number;
  readonly commission: number;
}

/**
 * One line of a resettlement for a standing bet: as recorded, and as the rules give it (a void
 * pays the stake back with no commission; a corrected result pays what the corrected cards give).
 */
export interface BetAdjustment {
  /** The RoundResettled that recorded it. */
  readonly at: RecordedEvent;
  readonly resettlementId: string;
  readonly kind: 'void' | 'correction';
  readonly recorded: Adjustment | null;
  readonly expected: PaidLine & {
    readonly previousPayout: number;
    readonly previousCommission: number;
    readonly delta: number;
    /** What the wallet changes the commission owed by: accrued-commission tables only. */
    readonly commissionDelta: number;
  };
}
