import { DomainError, tableIdSchema } from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp, type Principal } from '@croupier/http';
import { z } from 'zod';
import type { TableState } from '../domain/table.decider.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import { EVERYONE, tableParams } from '../shared/route-parts.js';
import type { SeatDebt, SeatLedger } from './seat-ledger.js';
import type { Seats } from './seats.js';

export interface SeatRoutesDeps {
  readonly rounds: Pick<RoundContext, 'getTable'>;
  readonly seats: Seats;
  /** The accrued commission owed per seat (002's pit): the seats' read shows it. */
  readonly ledger: SeatLedger;
}

/** Minor units owed: in this dealer shift, and what the shift's end (a dealer change) collects. */
const owedSchema = z.object({
  shift: z.number().int().nonnegative(),
  atDealerChange: z.number().int().nonnegative(),
});
const seatsViewSchema = z.object({
  tableId: z.string(),
  /** The table's currency: every amount below is in its minor units. */
  currency: z.string().nullable(),
  seats: z.array(
    z.object({
      seat: z.number().int(),
      taken: z.boolean(),
      playerId: z.string().nullable(),
      /**
       * Accrued commission the seat owes, in all and per player who owes it there (a seat changes
       * hands: each keeps their own debt). Null at a table that deducts commission, and for a
       * player reading a seat not theirs.
       */
      commission: owedSchema
        .extend({ players: z.array(owedSchema.extend({ playerId: z.string() })) })
        .nullable(),
    }),
  ),
  /**
   * The table's ledger (staff): the running shift and its dealer, and the seats' totals. Null at
   * a table that deducts commission, and for a player.
   */
  commission: owedSchema
    .extend({
      shiftId: z.string().nullable(),
      dealerId: z.string().nullable(),
    })
    .nullable(),
});
type SeatsView = z.infer<typeof seatsViewSchema>;

/**
 * Adds up the debts: `shift`, those of the running shift; `atDealerChange`, every shift's, which
 * is what the collector takes when the dealer changes (all but the shift the change starts, which
 * owes nothing yet; ADR 0008).
 */
function owedOf(debts: readonly SeatDebt[], shiftId: string | null) {
  let shift = 0;
  let atDealerChange = 0;
  for (const debt of debts) {
    atDealerChange += debt.amount;
    if (debt.shiftId === shiftId) shift += debt.amount;
  }
  return { shift, atDealerChange };
}

function seatsView(table: TableState, debts: readonly SeatDebt[], viewer: Principal): SeatsView {
  const accrued = table.config?.commission === 'accrued';
  const player = viewer.role === 'player';
  const seats = Array.from({ length: table.config?.seats ?? 0 }, (_, index) => {
    const seat = index + 1;
    const occupant = table.seats.get(seat) ?? null;
    // A player sees which seats are taken, and by whom and what is owed only at their own.
    const own = occupant !== null && occupant === viewer.id;
    const shown = !player || own ? occupant : null;
    const owing = debts.filter(
      (debt) => debt.seat === seat && (!player || debt.playerId === viewer.id),
    );
    const players = [...new Set(owing.map((debt) => debt.playerId))].map((playerId) => ({
      playerId,
      ...owedOf(
        owing.filter((debt) => debt.playerId === playerId),
        table.shiftId,
      ),
    }));
    const commission =
      accrued && (!player || own) ? { ...owedOf(owing, table.shiftId), players } : null;
    return { seat, taken: occupant !== null, playerId: shown, commission };
  });
  return {
    tableId: table.tableId,
    currency: table.config?.currency ?? null,
    seats,
    commission:
      accrued && !player
        ? {
            shiftId: table.shiftId,
            dealerId: table.dealerId,
            ...owedOf(debts, table.shiftId),
          }
        : null,
  };
}
const seatParams = z.object({
  tableId: tableIdSchema,
  seat: z.coerce.number().int().min(1).max(9),
});

/** Seats (002): which are taken, sitting down, leaving. */
export function seatRoutes(app: HttpApp, deps: SeatRoutesDeps): void {
  const { rounds, seats, ledger } = deps;
  /** The seats as the viewer may see them, with the commission owed as the ledger holds it now. */
  const view = async (table: TableState, viewer: Principal) =>
    seatsView(
      table,
      table.config?.commission === 'accrued' ? await ledger.debts(table.tableId) : [],
      viewer,
    );
  app.get(
    '/v1/tables/:tableId/seats',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.getTable },
      schema: {
        tags: ['seats'],
        summary:
          "The table's numbered seats (002), which are taken, and its seat ledger: the accrued commission each seat owes in the running dealer shift and what a dealer change will collect (every shift's), per player, in minor units of the table's currency. Staff see every seat and the table's totals; a player sees their own seat's",
        params: tableParams,
        response: { 200: seatsViewSchema },
      },
    },
    async (request) => view(await rounds.getTable(request.params.tableId), principalOf(request)),
  );

  app.post(
    '/v1/tables/:tableId/seats/:seat',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.takeSeat },
      schema: {
        tags: ['seats'],
        summary:
          'Sit down at a numbered seat (002): one player per seat, one seat per player; your bets at this table carry it, and the commission your Banker wins accrue is owed by it',
        params: seatParams,
        response: { 201: seatsViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { tableId, seat } = request.params;
      const table = await seats.takeSeat(tableId, principal.id, seat, contextOf(request));
      return reply.status(201).send(await view(table, principal));
    },
  );

  app.delete(
    '/v1/tables/:tableId/seats/:seat',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.leaveSeat },
      schema: {
        tags: ['seats'],
        summary: 'Leave your seat; bets already placed from it stand and settle as placed',
        params: seatParams,
        response: { 200: seatsViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tableId, seat } = request.params;
      const current = await rounds.getTable(tableId);
      if (current.seats.get(seat) !== principal.id)
        throw new DomainError('NOT_SEATED', `${principal.id} does not sit at seat ${seat}`);
      return view(await seats.leaveSeat(tableId, principal.id, contextOf(request)), principal);
    },
  );
}
