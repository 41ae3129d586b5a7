import { z } from 'zod';
import { playerIdSchema, tableIdSchema, uuidSchema } from '../ids.js';
import { tableConfigSchema } from '../table-config.js';
import { eventSchema } from './common.js';

/** How a table's rounds advance: by the built-in auto-dealer, or by a dealer's commands. */
export const dealingSchema = z
  .object({
    mode: z.enum(['auto', 'manual']),
    /** How long betting stays open on an auto-dealt table. */
    bettingWindowMs: z.number().int().min(0).max(600_000),
  })
  .strict();
export type Dealing = z.infer<typeof dealingSchema>;

/**
 * A player's own table (003 Baccarat Touch, 004): one player against the house, who bets and
 * deals it. Only the owner bets on it or deals it; it closes itself after `idleTimeoutMs` without
 * a command from its owner (docs/adr/0004).
 */
export const tableSessionSchema = z
  .object({
    ownerId: playerIdSchema,
    idleTimeoutMs: z.number().int().min(1_000).max(86_400_000),
    /** A fun session (ADR 0030): plays for play money (`FUN`), from the owner's fun wallet. */
    fun: z.literal(true).optional(),
  })
  .strict();
export type TableSession = z.infer<typeof tableSessionSchema>;

/**
 * A table's time is divided into dealer shifts: the first starts when it opens, each
 * DealerChanged starts the next. Accrued commission is owed per shift and collected when it ends.
 */
export const tableOpened = eventSchema(
  'TableOpened',
  z
    .object({
      tableId: tableIdSchema,
      config: tableConfigSchema,
      dealing: dealingSchema,
      shiftId: uuidSchema,
      /** Set on a player's session table; a shared table has none. */
      session: tableSessionSchema.optional(),
    })
    .strict(),
);
export const dealerChanged = eventSchema(
  'DealerChanged',
  z
    .object({
      tableId: tableIdSchema,
      dealerId: playerIdSchema,
      shiftId: uuidSchema,
      previousDealerId: playerIdSchema.nullable(),
      previousShiftId: uuidSchema,
    })
    .strict(),
);
export const tableClosed = eventSchema(
  'TableClosed',
  z.object({ tableId: tableIdSchema, reason: z.string().min(1).max(500) }).strict(),
);

/**
 * A player sits down at a numbered seat (002: 1-7 on a land-based table). One player per seat and
 * one seat per player: the seat is who owes the commission its Banker wins accrue.
 */
export const seatTaken = eventSchema(
  'SeatTaken',
  z
    .object({
      tableId: tableIdSchema,
      seat: z.number().int().min(1).max(9),
      playerId: playerIdSchema,
    })
    .strict(),
);
/** The player leaves the seat; bets already placed from it stand and settle as placed. */
export const seatLeft = eventSchema(
  'SeatLeft',
  z
    .object({
      tableId: tableIdSchema,
      seat: z.number().int().min(1).max(9),
      playerId: playerIdSchema,
    })
    .strict(),
);

export const tableEventSchema = z.discriminatedUnion('type', [
  tableOpened,
  dealerChanged,
  tableClosed,
  seatTaken,
  seatLeft,
]);
export type TableEvent = z.infer<typeof tableEventSchema>;
