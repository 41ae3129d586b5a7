import {
  DomainError,
  PRESET_NAMES,
  dealingSchema,
  parseTableConfig,
  playerIdSchema,
  presetConfig,
  tableIdSchema,
  type TableConfig,
} from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import { withNextStepHint } from '../shared/next-steps.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import { reasonText, tableParams, tableViewSchema } from '../shared/route-parts.js';
import { roundView, roundViewSchema } from '../shared/views.js';
import type { Tables } from './tables.js';

export interface TableRoutesDeps {
  readonly tables: Tables;
  /** Called after a table opens, so the process can start its auto-dealer. */
  readonly onTableOpened?: ((tableId: string) => void) | undefined;
}

/** Tables: opened, closed, their dealer changed, their shoes started and closed, rounds opened. */
export function tableRoutes(app: HttpApp, deps: TableRoutesDeps): void {
  const { tables } = deps;
  app.post(
    '/v1/tables',
    {
      config: { roles: ['operator'], problems: ROUND_PROBLEMS.openTable },
      schema: {
        tags: ['tables'],
        summary: 'Open a table from a preset (with overrides) or a full configuration',
        body: z
          .object({
            tableId: tableIdSchema,
            preset: z.enum(PRESET_NAMES as [string, ...string[]]).optional(),
            config: z.record(z.string(), z.unknown()).optional(),
            dealing: dealingSchema.default({ mode: 'manual', bettingWindowMs: 15_000 }),
          })
          .strict(),
        response: { 201: tableViewSchema.partial() },
      },
    },
    async (request, reply) => {
      const { tableId, preset, config, dealing } = request.body;
      if (tableId.startsWith('s-'))
        throw new DomainError(
          'VALIDATION_ERROR',
          'tableId: ids starting "s-" name players\' sessions',
          {
            field: 'tableId',
          },
        );
      if (preset === undefined && config === undefined) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'body: give a preset, a config, or both (config then overrides the preset)',
        );
      }
      const tableConfig: TableConfig =
        preset === undefined ? parseTableConfig(config) : presetConfig(preset, config ?? {});
      if (dealing.mode === 'auto' && tableConfig.cardSource !== 'rng') {
        throw new DomainError(
          'VALIDATION_ERROR',
          'dealing.mode: only an rng table can deal by itself',
          { field: 'dealing.mode' },
        );
      }
      await tables.openTable({ tableId, config: tableConfig, dealing }, contextOf(request));
      deps.onTableOpened?.(tableId);
      return reply.status(201).send({
        tableId,
        name: tableConfig.name,
        preset: tableConfig.preset ?? null,
        status: 'open',
        dealing,
      });
    },
  );

  app.post(
    '/v1/tables/:tableId/close',
    {
      config: { roles: ['operator'], problems: ROUND_PROBLEMS.closeTable },
      schema: {
        tags: ['tables'],
        summary:
          'Close a table: no new round opens; a round still taking bets is voided (its bets refunded), one past betting is dealt and settled; the last dealer shift ends (accrued commission is collected)',
        params: tableParams,
        body: z.object({ reason: reasonText }).strict(),
      },
    },
    async (request) => {
      const table = await tables.closeTable(
        request.params.tableId,
        request.body.reason,
        contextOf(request),
      );
      return { tableId: table.tableId, status: table.status };
    },
  );

  app.post(
    '/v1/tables/:tableId/dealer',
    {
      config: { roles: ['supervisor', 'operator'], problems: ROUND_PROBLEMS.changeDealer },
      schema: {
        tags: ['tables'],
        summary: 'Change the dealer: ends a dealer shift (accrued commission is collected)',
        params: tableParams,
        // The same rule as the events that record it: a dealer id is an id, like a player's.
        body: z.object({ dealerId: playerIdSchema }).strict(),
      },
    },
    async (request) => {
      const table = await tables.changeDealer(
        request.params.tableId,
        request.body.dealerId,
        contextOf(request),
      );
      return { tableId: table.tableId, dealerId: table.dealerId, shiftId: table.shiftId };
    },
  );

  app.post(
    '/v1/tables/:tableId/shoes',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.startShoe },
      schema: {
        tags: ['shoes'],
        summary:
          "Start the table's next shoe: shuffled, its commitment published (burn it next on a scanner table). The current shoe must be finished or closed",
        params: tableParams,
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const shoe = await withNextStepHint(tableId, tables.startShoe(tableId, contextOf(request)));
      return reply.status(201).send(shoe);
    },
  );

  app.post(
    '/v1/tables/:tableId/shoes/current/close',
    {
      config: { roles: ['supervisor', 'operator'], problems: ROUND_PROBLEMS.closeCurrentShoe },
      schema: {
        tags: ['shoes'],
        summary: "Close the table's current shoe now, revealing its seed",
        params: tableParams,
      },
    },
    async (request) => tables.closeCurrentShoe(request.params.tableId, contextOf(request)),
  );

  app.post(
    '/v1/tables/:tableId/rounds',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.openRound },
      schema: {
        tags: ['rounds'],
        summary: "Open the table's next round (a new shoe when the current one is finished)",
        params: tableParams,
        response: { 201: roundViewSchema },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const round = await withNextStepHint(tableId, tables.openRound(tableId, contextOf(request)));
      return reply.status(201).send(roundView(round, principalOf(request)));
    },
  );
}
