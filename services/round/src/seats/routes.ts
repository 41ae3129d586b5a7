import { DomainError, tableIdSchema } from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp, type Principal } from '@croupier/http';
import { z } from 'zod';
import type { TableState } from '../domain/table.decider.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import { EVERYONE, tableParams } from '../shared/route-parts.js';
import type { Seats } from './seats.js';

export interface SeatRoutesDeps {
  readonly rounds: Pick<RoundContext, 'getTable'>;
  readonly seats: Seats;
}

const seatsView = (table: TableState, viewer: Principal) => ({
  tableId: table.tableId,
  seats: Array.from({ length: table.config?.seats ?? 0 }, (_, index) => {
    const occupant = table.seats.get(index + 1) ?? null;
    // A player sees which seats are taken, and by whom only their own.
    const shown = viewer.role !== 'player' || occupant === viewer.id ? occupant : null;
    return { seat: index + 1, taken: occupant !== null, playerId: shown };
  }),
});
const seatsViewSchema = z.object({
  tableId: z.string(),
  seats: z.array(
    z.object({ seat: z.number().int(), taken: z.boolean(), playerId: z.string().nullable() }),
  ),
});
const seatParams = z.object({
  tableId: tableIdSchema,
  seat: z.coerce.number().int().min(1).max(9),
});

/** Seats (002): which are taken, sitting down, leaving. */
export function seatRoutes(app: HttpApp, deps: SeatRoutesDeps): void {
  const { rounds, seats } = deps;
  app.get(
    '/v1/tables/:tableId/seats',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.getTable },
      schema: {
        tags: ['seats'],
        summary: "The table's numbered seats (002) and which are taken",
        params: tableParams,
        response: { 200: seatsViewSchema },
      },
    },
    async (request) =>
      seatsView(await rounds.getTable(request.params.tableId), principalOf(request)),
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
      return reply.status(201).send(seatsView(table, principal));
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
      return seatsView(await seats.leaveSeat(tableId, principal.id, contextOf(request)), principal);
    },
  );
}
