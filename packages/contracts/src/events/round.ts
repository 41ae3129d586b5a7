import { z } from 'zod';
import {
  playerIdSchema,
  positiveMinorUnitsSchema,
  minorUnitsSchema,
  isoTimestampSchema,
  roundIdSchema,
  shoeIdSchema,
  tableIdSchema,
  uuidSchema,
} from '../ids.js';
import { funMarkSchema } from '../play-money.js';
import { drawnCardSchema } from './shoe.js';
import { betLimitSchema, cardSourceSchema, currencySchema } from '../table-config.js';
import {
  bankerModeSchema,
  betTypeSchema,
  cardSchema,
  eventSchema,
  handSchema,
  shoePositionSchema,
  winnerSchema,
} from './common.js';

/** The paytable and limits a round is played under, fixed when it opens. */
export const roundRulesSchema = z
  .object({
    bets: z.partialRecord(betTypeSchema, betLimitSchema),
    playerBankerDifferenceLimit: positiveMinorUnitsSchema.nullable(),
    bankerModes: z.array(bankerModeSchema).min(1),
    commission: z.enum(['deducted', 'accrued']),
    tieOdds: z.union([z.literal(8), z.literal(9)]),
    seats: z.number().int().min(1).max(9).nullable(),
  })
  .strict();
export type RoundRules = z.infer<typeof roundRulesSchema>;

export const roundOpened = eventSchema(
  'RoundOpened',
  z
    .object({
      roundId: roundIdSchema,
      tableId: tableIdSchema,
      shoeId: shoeIdSchema,
      /** The round's number in its shoe (1, 2, ...): side-bet availability depends on it. */
      number: z.number().int().positive(),
      cardSource: cardSourceSchema,
      currency: currencySchema,
      rules: roundRulesSchema,
      /** sha256 of the canonical JSON of `rules`: names the paytable for game records. */
      paytableId: z.string().regex(/^[0-9a-f]{64}$/),
      /** The dealer shift the round is played in (who dealt it; where accrued commission goes). */
      dealer: z.object({ dealerId: playerIdSchema.nullable(), shiftId: uuidSchema }).strict(),
      /**
       * When the auto-dealer closes betting: the round's opening plus its table's betting window
       * (ADR 0044). A seamless debit's budget ends by then. Absent on a round dealt by hand (a
       * dealer or a session's player closes betting when they choose) and on rounds recorded
       * before it existed.
       */
      bettingClosesAt: isoTimestampSchema.optional(),
    })
    .strict(),
);

export const placedBetSchema = z
  .object({
    betId: uuidSchema,
    playerId: playerIdSchema,
    type: betTypeSchema,
    amount: positiveMinorUnitsSchema,
    /** Banker bets only: the mode the player had selected. */
    bankerMode: bankerModeSchema.nullable(),
    seat: z.number().int().min(1).max(9).nullable(),
  })
  .strict();
export type PlacedBet = z.infer<typeof placedBetSchema>;

export const betPlaced = eventSchema(
  'BetPlaced',
  placedBetSchema
    .extend({
      roundId: roundIdSchema,
      /** Set when the bet repeats the player's previous round (rebet, x1 or x2). */
      rebetOf: roundIdSchema.nullable(),
      /** A play-money bet (a fun session, ADR 0030): absent on real money. */
      fun: funMarkSchema,
    })
    .strict(),
);

export const betsCleared = eventSchema(
  'BetsCleared',
  z
    .object({
      roundId: roundIdSchema,
      playerId: playerIdSchema,
      betIds: z.array(uuidSchema).min(1),
    })
    .strict(),
);

/**
 * The round will never take this player's bet with this id: its stake was debited, but the round
 * refused the bet (`bet-rejected`) or the bet never arrived (`orphaned-debit`, the sweep). Recorded
 * before the stake is refunded, so no bet can be placed under the id afterwards: a stake that
 * became a bet is closed only by its round, and a released one only by this refund.
 */
export const stakeReleased = eventSchema(
  'StakeReleased',
  z
    .object({
      roundId: roundIdSchema,
      playerId: playerIdSchema,
      betId: uuidSchema,
      /** The stake the wallet debited for the bet, minor units: the refund returns exactly this. */
      amount: positiveMinorUnitsSchema,
      reason: z.enum(['bet-rejected', 'orphaned-debit']),
      fun: funMarkSchema,
    })
    .strict(),
);

export const bettingClosed = eventSchema(
  'BettingClosed',
  z.object({ roundId: roundIdSchema }).strict(),
);

/**
 * The round commits to its deal before the shoe draws a card for it (ADR 0033): recorded with the
 * round's expected version, so a void decided before it stops the draw, and a void decided after
 * it knows cards may be out and takes them from the shoe's seal (RoundVoided.discarded). An rng
 * round records it once before its draw; a scanner round before its first card.
 */
export const dealStarted = eventSchema(
  'DealStarted',
  z.object({ roundId: roundIdSchema }).strict(),
);

export const cardDealt = eventSchema(
  'CardDealt',
  z
    .object({
      roundId: roundIdSchema,
      hand: handSchema,
      card: cardSchema,
      shoePosition: shoePositionSchema,
    })
    .strict(),
);

export const roundCardCorrected = eventSchema(
  'CardCorrected',
  z
    .object({
      roundId: roundIdSchema,
      shoePosition: shoePositionSchema,
      previous: cardSchema,
      card: cardSchema,
      reason: z.string().min(1).max(500),
    })
    .strict(),
);

const reason = z.string().min(1).max(500);
export const roundPaused = eventSchema(
  'RoundPaused',
  z.object({ roundId: roundIdSchema, reason }).strict(),
);
export const roundResumed = eventSchema(
  'RoundResumed',
  z.object({ roundId: roundIdSchema }).strict(),
);
export const roundVoided = eventSchema(
  'RoundVoided',
  z
    .object({
      roundId: roundIdSchema,
      reason,
      /**
       * A round voided while its deal was under way (DealStarted, not completed): the cards the
       * shoe drew for it and the round never dealt, as the shoe sealed them (RoundSealed), so the
       * round records every card the shoe handed it. Empty when it had dealt them all; absent
       * when no deal had started (no card can have left the shoe for it).
       */
      discarded: z.array(drawnCardSchema).max(6).optional(),
    })
    .strict(),
);

export const handResultSchema = z
  .object({
    cards: z.array(cardSchema).min(2).max(3),
    total: z.number().int().min(0).max(9),
    natural: z.boolean(),
    pair: z.boolean(),
    perfectPair: z.boolean(),
  })
  .strict();

export const roundCompleted = eventSchema(
  'RoundCompleted',
  z
    .object({
      roundId: roundIdSchema,
      player: handResultSchema,
      banker: handResultSchema,
      winner: winnerSchema,
    })
    .strict(),
);

/**
 * A completed round's result after a supervisor corrected one of its cards (a misread found
 * after the round completed). Settlement then resettles the round: compensating, never editing.
 */
export const roundResultCorrected = eventSchema(
  'RoundResultCorrected',
  z
    .object({
      roundId: roundIdSchema,
      /** Why: the reason the supervisor gave for the card correction. */
      reason: z.string().min(1).max(500),
      player: handResultSchema,
      banker: handResultSchema,
      winner: winnerSchema,
    })
    .strict(),
);

export const settlementLineSchema = z
  .object({
    betId: uuidSchema,
    playerId: playerIdSchema,
    type: betTypeSchema,
    bankerMode: bankerModeSchema.nullable(),
    seat: z.number().int().min(1).max(9).nullable(),
    stake: positiveMinorUnitsSchema,
    result: z.enum(['win', 'lose', 'push']),
    /** Returned to the player: stake plus winnings, the stake on a push, 0 on a loss. */
    payout: minorUnitsSchema,
    /** Commission on a Banker win: withheld (deducted) or owed by the seat (accrued). */
    commission: minorUnitsSchema,
    commissionMode: z.enum(['deducted', 'accrued']),
  })
  .strict();
export type SettlementLine = z.infer<typeof settlementLineSchema>;

/**
 * One player's spot of a settled round (docs/rules.md "Spots"): the chips on one bet type, banker
 * mode and seat, paid by the paytable once on their total and rounded down once. Each chip keeps
 * its own line; the lines' payouts and commissions are the spot's shared over its chips and sum
 * to it exactly.
 */
export const settledSpotSchema = z
  .object({
    playerId: playerIdSchema,
    type: betTypeSchema,
    bankerMode: bankerModeSchema.nullable(),
    seat: z.number().int().min(1).max(9).nullable(),
    /** The chips' total: the stake the paytable is applied to. */
    stake: positiveMinorUnitsSchema,
    result: z.enum(['win', 'lose', 'push']),
    payout: minorUnitsSchema,
    commission: minorUnitsSchema,
    /** The chips (bets) on the spot, in the order they were placed; each has a line. */
    betIds: z.array(uuidSchema).min(1),
  })
  .strict();
export type SettledSpot = z.infer<typeof settledSpotSchema>;

/** Where a round was played: carried by settlement records so their consumers need no lookup. */
const roundPlaceShape = {
  roundId: roundIdSchema,
  tableId: tableIdSchema,
  shoeId: shoeIdSchema,
  currency: currencySchema,
  /** The dealer shift the round was played in (accrued commission is owed per shift). */
  shiftId: uuidSchema,
};

export const roundSettled = eventSchema(
  'RoundSettled',
  z
    .object({
      ...roundPlaceShape,
      settlementId: uuidSchema,
      lines: z.array(settlementLineSchema),
      /**
       * The spots the lines were paid by. Absent on rounds settled before chips on a spot were
       * one stake: each of their lines was paid as a spot of its own.
       */
      spots: z.array(settledSpotSchema).optional(),
      totals: z
        .object({
          staked: minorUnitsSchema,
          paidOut: minorUnitsSchema,
          commission: minorUnitsSchema,
        })
        .strict(),
    })
    .strict(),
);

export const refundLineSchema = z
  .object({ betId: uuidSchema, playerId: playerIdSchema, amount: positiveMinorUnitsSchema })
  .strict();
export type RefundLine = z.infer<typeof refundLineSchema>;

export const betsRefunded = eventSchema(
  'BetsRefunded',
  z
    .object({
      ...roundPlaceShape,
      refundId: uuidSchema,
      reason: z.enum(['voided', 'cleared']),
      lines: z.array(refundLineSchema).min(1),
    })
    .strict(),
);

export const adjustmentSchema = z
  .object({
    betId: uuidSchema,
    playerId: playerIdSchema,
    stake: positiveMinorUnitsSchema,
    /** What the bet had been paid. */
    previousPayout: minorUnitsSchema,
    /** What it is paid now. */
    payout: minorUnitsSchema,
    /** payout - previousPayout: credited (or taken back, when negative) to the wallet. */
    delta: z.number().int(),
    result: z.enum(['win', 'lose', 'push', 'refund']),
    previousCommission: minorUnitsSchema,
    commission: minorUnitsSchema,
    commissionMode: z.enum(['deducted', 'accrued']),
    seat: z.number().int().min(1).max(9).nullable(),
  })
  .strict();
export type Adjustment = z.infer<typeof adjustmentSchema>;

/**
 * A settled round settled again: voided after settlement (every bet back to its stake) or
 * after a card correction (every bet paid by the corrected result). Each line says what the
 * bet had been paid and what it is paid now; wallets apply the difference.
 */
export const roundResettled = eventSchema(
  'RoundResettled',
  z
    .object({
      ...roundPlaceShape,
      resettlementId: uuidSchema,
      kind: z.enum(['void', 'correction']),
      reason: z.string().min(1).max(500),
      adjustments: z.array(adjustmentSchema),
    })
    .strict(),
);

export const roundEventSchema = z.discriminatedUnion('type', [
  roundOpened,
  betPlaced,
  betsCleared,
  stakeReleased,
  bettingClosed,
  dealStarted,
  cardDealt,
  roundCardCorrected,
  roundPaused,
  roundResumed,
  roundCompleted,
  roundResultCorrected,
  roundSettled,
  roundResettled,
  betsRefunded,
  roundVoided,
]);
export type RoundEvent = z.infer<typeof roundEventSchema>;
