import { z } from 'zod';
import { roundIdSchema, shoeIdSchema, tableIdSchema } from '../ids.js';
import { cardSourceSchema } from '../table-config.js';
import { cardSchema, eventSchema, handSchema, shoePositionSchema } from './common.js';

const hex = (bytes: number) =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `must be ${bytes} bytes of lowercase hex`);

export const shoeShuffled = eventSchema(
  'ShoeShuffled',
  z
    .object({
      shoeId: shoeIdSchema,
      tableId: tableIdSchema,
      number: z.number().int().positive(),
      decks: z.number().int().min(1).max(8),
      cardSource: cardSourceSchema,
      shufflePolicy: z.enum(['shoe', 'every-round']),
      burn: z.boolean(),
      /** Index of the first card behind the cut card; null without one. */
      cutCardIndex: z.number().int().positive().nullable(),
      /** rng shoes: the shuffle algorithm, sha256(seed || parameters), and the seed sealed
       * (AES-256-GCM under the server's seed key) so the server can deal after a restart. */
      algorithm: z.string().nullable(),
      commitment: hex(32).nullable(),
      sealedSeed: z.string().nullable(),
    })
    .strict(),
);

export const cardBurned = eventSchema(
  'CardBurned',
  z
    .object({
      shoeId: shoeIdSchema,
      position: shoePositionSchema,
      /** null for a card burned face down on a scanner table (nobody saw it). */
      card: cardSchema.nullable(),
      /** The first burned card, shown, whose value sets how many more are burned. */
      shown: z.boolean(),
    })
    .strict(),
);

export const drawnCardSchema = z
  .object({ position: shoePositionSchema, card: cardSchema, hand: handSchema })
  .strict();
export type DrawnCard = z.infer<typeof drawnCardSchema>;

export const cardsDrawn = eventSchema(
  'CardsDrawn',
  z
    .object({
      shoeId: shoeIdSchema,
      roundId: roundIdSchema,
      roundNumber: z.number().int().positive(),
      cards: z.array(drawnCardSchema).min(1).max(6),
    })
    .strict(),
);

export const shoeCardCorrected = eventSchema(
  'CardCorrected',
  z
    .object({
      shoeId: shoeIdSchema,
      roundId: roundIdSchema,
      position: shoePositionSchema,
      previous: cardSchema,
      card: cardSchema,
      reason: z.string().min(1).max(500),
    })
    .strict(),
);

export const cutCardReached = eventSchema(
  'CutCardReached',
  z
    .object({
      shoeId: shoeIdSchema,
      /** The shoe position the cut card stood before. */
      position: shoePositionSchema,
      roundNumber: z.number().int().positive(),
      lastRoundNumber: z.number().int().positive(),
    })
    .strict(),
);

/**
 * The shoe draws no more cards for this round (it is being voided mid-deal, ADR 0033), and names
 * the cards it drew for it: the round's void records them. Drawing for a sealed round is refused.
 */
export const roundSealed = eventSchema(
  'RoundSealed',
  z
    .object({
      shoeId: shoeIdSchema,
      roundId: roundIdSchema,
      cards: z.array(drawnCardSchema).max(6),
    })
    .strict(),
);

export const digestEntrySchema = z
  .object({ stream: z.string(), revision: z.string().regex(/^\d+$/), hash: hex(32) })
  .strict();
export type DigestEntry = z.infer<typeof digestEntrySchema>;

export const shoeCloseReasonSchema = z.enum(['completed', 'operator', 'exhausted']);
export type ShoeCloseReason = z.infer<typeof shoeCloseReasonSchema>;

export const shoeClosed = eventSchema(
  'ShoeClosed',
  z
    .object({
      shoeId: shoeIdSchema,
      /**
       * `completed`: its last round is over. `operator`: closed early. `exhausted`: a scanner shoe
       * dealt its last card with a round still waiting for one (its cut card was never reported);
       * that round is voided and refunded (docs/adr/0004).
       */
      reason: shoeCloseReasonSchema,
      roundsDealt: z.number().int().nonnegative(),
      /** rng shoes: the seed, revealed, so anyone can recompute the order and the commitment. */
      seed: hex(32).nullable(),
      /** sha256 over the canonical JSON of `streams`: the last hash of the shoe's streams. */
      digest: z
        .object({
          algorithm: z.literal('sha256/jcs'),
          streams: z.array(digestEntrySchema),
          value: hex(32),
        })
        .strict(),
    })
    .strict(),
);

export const shoeEventSchema = z.discriminatedUnion('type', [
  shoeShuffled,
  cardBurned,
  cardsDrawn,
  shoeCardCorrected,
  cutCardReached,
  roundSealed,
  shoeClosed,
]);
export type ShoeEvent = z.infer<typeof shoeEventSchema>;
