import {
  auditRound,
  auditOperatorWallet,
  auditWallet,
  checkpointVerificationSchema,
  publishedCheckpointSchema,
  exportShoe,
  replayShoe,
  roundAuditSchema,
  shoeExportSchema,
  shoeReplaySchema,
  significantEventSchema,
  walletAuditSchema,
} from '@croupier/audit';
import {
  DomainError,
  isoTimestampSchema,
  playerIdSchema,
  roundIdSchema,
  shoeIdSchema,
  tableIdSchema,
} from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import {
  loadOperatorWalletEvidence,
  loadRoundEvidence,
  loadShoeEvidence,
  loadWalletEvidence,
} from './audit-evidence.js';
import { loadCheckpoint, verifyCheckpoint } from './checkpoint-evidence.js';
import { consoleRoutes } from './console-routes.js';
import { gameRecallCsv } from './game-recall-csv.js';
import type { System } from './system.js';

const REGULATORS = ['regulator', 'operator'] as const;
const hexSchema = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits');

/**
 * The audit surface: round audits for disputes, shoe replays and exports for regulators,
 * game recall as CSV, the significant-events log, rebuilding the read models, and the
 * operator console that shows them.
 */
export function auditRoutes(app: HttpApp, system: System): void {
  consoleRoutes(app);
  disputeRoutes(app, system);
  shoeRoutes(app, system);
  checkpointRoutes(app, system);
  recordRoutes(app, system);
  rebuildRoutes(app, system);
}

/** A round's audit, a player's wallet audited from its first movement (real and play money). */
function disputeRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/audit/rounds/:roundId',
    {
      config: { roles: ['regulator', 'operator', 'supervisor'], problems: ['ROUND_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          "A round's audit: its event trail (who, when, what), cards with shoe positions, third-card decisions, bets with their settlement lines, wallet movements, and the verification verdict",
        params: z.object({ roundId: roundIdSchema }),
        response: { 200: roundAuditSchema },
      },
    },
    async (request) => {
      // The call ledger names the players whose only calls for the round made no bet (seamless).
      const calls = system.wallet.operatorCalls;
      const evidence = await loadRoundEvidence(system.store, request.params.roundId, async (id) => {
        await system.readModels.syncToHead([calls.name]);
        return calls.playersOf(id);
      });
      if (evidence === null)
        throw new DomainError('ROUND_NOT_FOUND', `no round "${request.params.roundId}"`);
      return auditRound(evidence);
    },
  );

  app.get(
    '/v1/audit/wallets/:playerId',
    {
      config: { roles: ['regulator', 'operator', 'supervisor'], problems: ['WALLET_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          "A player's wallet audited from its first movement: each deposit, withdrawal, debit, payout, refund, adjustment and commission with the record that justifies it, and a verdict naming every movement nothing justifies or that comes before what justifies it. In seamless mode, the player's calls to the operator's wallet, each stake against its round",
        params: z.object({ playerId: playerIdSchema }),
        response: { 200: walletAuditSchema },
      },
    },
    async (request) => {
      const { playerId } = request.params;
      const evidence = await loadWalletEvidence(system.store, playerId);
      if (evidence !== null) return auditWallet(evidence);
      // Seamless mode: the operator's wallet holds the money; Croupier's records are its calls.
      const seamless = await loadOperatorWalletEvidence(system.store, playerId);
      if (seamless !== null) return auditOperatorWallet(seamless);
      throw new DomainError('WALLET_NOT_FOUND', `no wallet "${playerId}"`);
    },
  );

  app.get(
    '/v1/audit/wallets/:playerId/play-money',
    {
      config: { roles: ['regulator', 'operator', 'supervisor'], problems: ['WALLET_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          "A player's play-money wallet (fun mode, currency FUN) audited from its first movement: each grant must top the balance up to exactly its fun balance, each stake and game credit stands on its round, and nothing of real money (a deposit, a withdrawal, commission, an unmarked movement) is in it",
        params: z.object({ playerId: playerIdSchema }),
        response: { 200: walletAuditSchema },
      },
    },
    async (request) => {
      const { playerId } = request.params;
      const evidence = await loadWalletEvidence(system.store, playerId, 'fun');
      if (evidence === null)
        throw new DomainError('WALLET_NOT_FOUND', `no play-money wallet "${playerId}"`);
      return auditWallet(evidence);
    },
  );
}

/** A shoe replayed from its events alone, and exported for verification offline. */
function shoeRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/audit/shoes/:shoeId/replay',
    {
      config: { roles: REGULATORS, problems: ['SHOE_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          'Replays a shoe from its events alone: seed and commitment, burn, cut card, every card, every round and payout, hash chains and the ShoeClosed digest',
        params: z.object({ shoeId: shoeIdSchema }),
        querystring: z.strictObject({
          commitment: hexSchema
            .optional()
            .describe('The commitment the operator published when the shoe was shuffled'),
          digest: hexSchema
            .optional()
            .describe('The digest the operator published when the shoe closed'),
        }),
        response: { 200: shoeReplaySchema },
      },
    },
    async (request) => {
      const { commitment, digest } = request.query;
      return replayShoe(await shoeEvidence(system, request.params.shoeId), {
        published: {
          ...(commitment === undefined ? {} : { commitment }),
          ...(digest === undefined ? {} : { digest }),
        },
      });
    },
  );

  app.get(
    '/v1/audit/shoes/:shoeId/export',
    {
      config: { roles: REGULATORS, problems: ['SHOE_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          'A self-contained export of a shoe (every event, with verification instructions): `casino verify FILE` checks it offline',
        params: z.object({ shoeId: shoeIdSchema }),
        response: { 200: shoeExportSchema },
      },
    },
    async (request, reply) => {
      const evidence = await shoeEvidence(system, request.params.shoeId);
      void reply.header(
        'content-disposition',
        `attachment; filename="shoe-${request.params.shoeId}.json"`,
      );
      return exportShoe(evidence);
    },
  );
}

/** The notary's published checkpoints, and a checkpoint verified against the store. */
function checkpointRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/audit/checkpoints/:which',
    {
      config: { roles: REGULATORS, problems: ['CHECKPOINT_NOT_FOUND'] },
      schema: {
        tags: ['audit'],
        summary:
          'A signed checkpoint of every stream head, as the operator publishes it (`latest`, or by sequence number): the head that commits to all history, its signature and the key that made it',
        params: z.object({
          which: z.union([z.literal('latest'), z.coerce.number().int().positive()]),
        }),
        response: { 200: publishedCheckpointSchema },
      },
    },
    async (request) => {
      const { which } = request.params;
      const found = await loadCheckpoint(system.store, which);
      if (found === null)
        throw new DomainError(
          'CHECKPOINT_NOT_FOUND',
          which === 'latest' ? 'no checkpoint recorded yet' : `no checkpoint ${which}`,
        );
      return found;
    },
  );

  app.post(
    '/v1/audit/checkpoints/verify',
    {
      config: { roles: REGULATORS, problems: [] },
      schema: {
        tags: ['audit'],
        summary:
          'Checks the whole store against a checkpoint the operator published: the notary stream must lead to its signed head, and every stream head it recorded must still hold the recorded hash',
        body: z.strictObject({
          checkpoint: publishedCheckpointSchema,
          keyId: z
            .string()
            .regex(/^[0-9a-f]{16}$/)
            .optional()
            .describe('The key id the operator published: the checkpoint must be signed with it'),
        }),
        response: { 200: checkpointVerificationSchema },
      },
    },
    async (request) => verifyCheckpoint(system.store, request.body.checkpoint, request.body.keyId),
  );
}

/** Game recall as CSV and the significant-events log. */
function recordRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/players/:playerId/history.csv',
    {
      // An unknown player has an empty recall, not a 404.
      config: { roles: ['operator', 'supervisor', 'regulator'], problems: [] },
      schema: {
        tags: ['players'],
        summary:
          "A player's game recall as CSV (GLI-19): date and time, table, cards, result, stakes, payouts, commission, balance before and after, status, game-cycle id, paytable id",
        params: z.object({ playerId: playerIdSchema }),
        querystring: z.strictObject({
          limit: z.coerce.number().int().min(1).max(100).default(100),
        }),
        produces: ['text/csv'],
      },
    },
    async (request, reply) => {
      const records = await system.history.history(request.params.playerId, request.query.limit);
      // Each table's currency, for the amounts a person reads (a table keeps one for ever).
      const currencies = new Map<string, string | null>();
      for (const tableId of new Set(records.map((record) => record.tableId)))
        currencies.set(
          tableId,
          await system.rounds.getTable(tableId).then(
            (table) => table.config?.currency ?? null,
            () => null,
          ),
        );
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="game-recall-${request.params.playerId}.csv"`,
        )
        .send(gameRecallCsv(records, (tableId) => currencies.get(tableId) ?? null));
    },
  );

  app.get(
    '/v1/significant-events',
    {
      // A read of an index: nothing to refuse beyond the query's schema.
      config: { roles: ['operator', 'supervisor', 'regulator'], problems: [] },
      schema: {
        tags: ['audit'],
        summary:
          'Significant events by time and table: voids, pauses, card corrections, resettlements, table configuration and dealer changes, operator shoe closes, scanner shoes dealt past their cut card unreported (`cut-card-passed`), balance adjustments',
        querystring: z.strictObject({
          from: isoTimestampSchema.optional(),
          to: isoTimestampSchema.optional(),
          tableId: tableIdSchema.optional(),
          limit: z.coerce.number().int().min(1).max(5000).default(500),
        }),
        response: {
          200: z.object({ events: z.array(significantEventSchema), truncated: z.boolean() }),
        },
      },
    },
    async (request) => {
      const { from, to, tableId, limit } = request.query;
      // A read of the significant events' index (a durable read model), not of the log.
      return system.significantEvents.list({
        ...(from === undefined ? {} : { from: Date.parse(from) }),
        ...(to === undefined ? {} : { to: Date.parse(to) }),
        ...(tableId === undefined ? {} : { tableId }),
        limit,
      });
    },
  );
}

/** Rebuilding the read models from the log, swapped in when done. */
function rebuildRoutes(app: HttpApp, system: System): void {
  app.post(
    '/v1/admin/rebuild',
    {
      // A replay refuses nothing: it only fails (500) when the store does.
      config: { roles: ['operator'], problems: [] },
      schema: {
        tags: ['admin'],
        summary:
          'Rebuilds every read model the gateway runs (tables and roads, game histories, pending debits, commission owed, the seat ledger, significant events, dealing deadlines) from the whole log into a new generation while the live one serves reads, then swaps it in',
        response: {
          200: z.object({
            projections: z.array(z.string()),
            position: z.string().nullable(),
            durationMs: z.number(),
            tables: z.number().int(),
          }),
        },
      },
    },
    async () => {
      const started = performance.now();
      // Every model this process runs, whoever added it (the fault watchdog's deadlines, the
      // seamless wallet's owed calls): one left out would keep its old generation. All of them in
      // one pass over the log (docs/adr/0047).
      const names = system.readModels.status().map((model) => model.name);
      const { position } = await system.readModels.rebuildAll(names);
      return {
        projections: names,
        // 0: the log is empty, no event applied.
        position: position === 0n ? null : position.toString(),
        durationMs: Math.round(performance.now() - started),
        tables: (await system.board.list()).length,
      };
    },
  );
}

async function shoeEvidence(system: System, shoeId: string) {
  const evidence = await loadShoeEvidence(system.store, shoeId);
  if (evidence === null) throw new DomainError('SHOE_NOT_FOUND', `no shoe "${shoeId}"`);
  return evidence;
}
