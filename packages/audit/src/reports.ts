import { z } from 'zod';
import { verdictSchema } from './verdict.js';

/**
 * The shapes of audit reports: what the API answers (these schemas are its OpenAPI responses),
 * what `casino audit`/`replay`/`verify` print with --json, and what the console draws.
 */

const actorSchema = z.object({ id: z.string(), role: z.string() }).nullable();
const handSchema = z.enum(['player', 'banker']);
const betResultSchema = z.enum(['win', 'lose', 'push']);
/** A resettled bet's result: a void after settlement pays every bet its stake ("refund"). */
const adjustedResultSchema = z.enum(['win', 'lose', 'push', 'refund']);

const adjustmentLineSchema = z.object({
  previousPayout: z.number().int(),
  payout: z.number().int(),
  delta: z.number().int(),
  result: adjustedResultSchema,
  previousCommission: z.number().int(),
  commission: z.number().int(),
});

/** One resettlement of a bet (ADR 0009): its line as recorded, and as the rules give it. */
export const betAdjustmentSchema = z.object({
  /** The RoundResettled that recorded it. */
  stream: z.string(),
  revision: z.string(),
  resettlementId: z.string(),
  kind: z.enum(['void', 'correction']),
  /** Null when the resettlement left the bet out. */
  recorded: adjustmentLineSchema.nullable(),
  expected: adjustmentLineSchema,
});

export const trailEntrySchema = z.object({
  stream: z.string(),
  revision: z.string(),
  position: z.string(),
  eventId: z.string(),
  type: z.string(),
  /** Who: the actor in the event's metadata. */
  actor: actorSchema,
  /** When: the event's occurred-at (the store's recorded-at is kept beside it). */
  occurredAt: z.string().nullable(),
  recordedAt: z.string(),
  /** What, in the game's words. */
  what: z.string(),
  hash: z.string().nullable(),
});
export type TrailEntry = z.infer<typeof trailEntrySchema>;

export const dealtCardSchema = z.object({
  index: z.number().int(),
  hand: handSchema,
  card: z.string(),
  shoePosition: z.number().int(),
  revision: z.string(),
});

export const cardCorrectionSchema = z.object({
  stream: z.string(),
  revision: z.string(),
  shoePosition: z.number().int(),
  previous: z.string(),
  card: z.string(),
  reason: z.string(),
  actor: actorSchema,
  occurredAt: z.string().nullable(),
});

const handResultSchema = z.object({
  cards: z.array(z.string()),
  total: z.number().int(),
  natural: z.boolean(),
  pair: z.boolean(),
  perfectPair: z.boolean(),
});

export const auditedBetSchema = z.object({
  betId: z.string(),
  playerId: z.string(),
  type: z.string(),
  amount: z.number().int(),
  bankerMode: z.string().nullable(),
  seat: z.number().int().nullable(),
  status: z.enum(['active', 'cleared']),
  /** The settlement line as recorded. */
  settlement: z
    .object({
      result: betResultSchema,
      payout: z.number().int(),
      commission: z.number().int(),
      commissionMode: z.enum(['deducted', 'accrued']),
    })
    .nullable(),
  /** The same line recomputed with the round's paytable from the recorded cards. */
  expected: z
    .object({ result: betResultSchema, payout: z.number().int(), commission: z.number().int() })
    .nullable(),
  refund: z.object({ amount: z.number().int(), reason: z.enum(['voided', 'cleared']) }).nullable(),
  /** Every resettlement of the bet after a void or a corrected result, in order. */
  adjustments: z.array(betAdjustmentSchema),
  /**
   * What the bet is paid in the end, once resettled (null if never): as the last resettlement
   * recorded it, and `expected` as the rules give it. `settlement` keeps what it was first paid.
   */
  final: z
    .object({
      result: adjustedResultSchema,
      payout: z.number().int(),
      commission: z.number().int(),
      expected: z.object({
        result: adjustedResultSchema,
        payout: z.number().int(),
        commission: z.number().int(),
      }),
    })
    .nullable(),
});

export const walletMovementSchema = z.object({
  stream: z.string(),
  revision: z.string(),
  type: z.string(),
  playerId: z.string(),
  betId: z.string(),
  amount: z.number().int(),
  detail: z.string().nullable(),
  occurredAt: z.string().nullable(),
});

export const roundStatusSchema = z.enum([
  'none',
  'betting',
  'closed',
  'dealing',
  'dealt',
  'completed',
  'voided',
]);

export const roundAuditSchema = z.object({
  roundId: z.string(),
  tableId: z.string().nullable(),
  shoeId: z.string().nullable(),
  number: z.number().int().nullable(),
  status: roundStatusSchema,
  paused: z.boolean(),
  cardSource: z.enum(['rng', 'scanner']).nullable(),
  currency: z.string().nullable(),
  paytableId: z.string().nullable(),
  /** Every event of the round, in order: who, when, what. */
  trail: z.array(trailEntrySchema),
  cards: z.array(dealtCardSchema),
  corrections: z.array(cardCorrectionSchema),
  /** The result the rules give from the cards (null until the round is complete). */
  result: z
    .object({
      winner: z.enum(['player', 'banker', 'tie']),
      player: handResultSchema,
      banker: handResultSchema,
    })
    .nullable(),
  /** Why each hand drew or stood: "Banker 5 draws: Player's third card was 6". */
  thirdCards: z.array(z.object({ hand: handSchema, draws: z.boolean(), reason: z.string() })),
  bets: z.array(auditedBetSchema),
  /**
   * The wallet movements the round caused; in seamless mode its calls to the operator's wallet
   * (requests, answers, deliveries, every player's, a bet or not); null when neither was read.
   */
  wallet: z.array(walletMovementSchema).nullable(),
  verdict: verdictSchema,
});
export type RoundAudit = z.infer<typeof roundAuditSchema>;

export const roundSummarySchema = z.object({
  roundId: z.string(),
  number: z.number().int(),
  status: roundStatusSchema,
  winner: z.enum(['player', 'banker', 'tie']).nullable(),
  player: z.array(z.string()),
  banker: z.array(z.string()),
  bets: z.number().int(),
  /** The round's currency: `staked` and `paidOut` are minor units of it. */
  currency: z.string().nullable(),
  staked: z.number().int(),
  /** What the bets are paid in the end: settlement lines, as resettled since. */
  paidOut: z.number().int(),
  /** No finding points at this round (its stream or the wallet movements it caused). */
  ok: z.boolean(),
  findings: z.number().int(),
});
export type RoundSummary = z.infer<typeof roundSummarySchema>;

export const shoeReplaySchema = z.object({
  shoeId: z.string(),
  tableId: z.string().nullable(),
  number: z.number().int().nullable(),
  status: z.enum(['missing', 'open', 'closed']),
  decks: z.number().int().nullable(),
  cardSource: z.enum(['rng', 'scanner']).nullable(),
  shufflePolicy: z.enum(['shoe', 'every-round']).nullable(),
  algorithm: z.string().nullable(),
  commitment: z.string().nullable(),
  /** The revealed seed (rng shoes, once closed). */
  seed: z.string().nullable(),
  burn: z.object({ shown: z.string().nullable(), cards: z.number().int() }).nullable(),
  cutCard: z
    .object({
      /** Index of the first card behind the cut card, as placed at the shuffle. */
      index: z.number().int().nullable(),
      position: z.number().int().nullable(),
      roundNumber: z.number().int().nullable(),
      lastRoundNumber: z.number().int().nullable(),
    })
    .nullable(),
  /** Positions used: burned and dealt cards. */
  cardsUsed: z.number().int(),
  roundsDealt: z.number().int(),
  digest: z
    .object({ value: z.string(), recomputed: z.string(), streams: z.number().int() })
    .nullable(),
  rounds: z.array(roundSummarySchema),
  corrections: z.array(cardCorrectionSchema),
  /** How many events were replayed, by stream kind. */
  events: z.object({ shoe: z.number().int(), rounds: z.number().int(), wallet: z.number().int() }),
  verdict: verdictSchema,
});
export type ShoeReplay = z.infer<typeof shoeReplaySchema>;
