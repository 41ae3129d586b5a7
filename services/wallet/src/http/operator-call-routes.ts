import type { ProjectionRunner } from '@croupier/application';
import { isoTimestampSchema, playerIdSchema } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import {
  OPERATOR_CALL_CURSOR_PATTERN,
  parseOperatorCallCursor,
  type OperatorCallLedger,
} from '../seamless/operator-call-ledger.js';

export const operatorCallSchema = z.object({
  key: z.string(),
  call: z.enum(['debit', 'credit', 'rollback']),
  playerId: z.string(),
  roundId: z.string(),
  betId: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  state: z.enum(['sent', 'confirmed', 'refused', 'unresolved', 'rolled-back', 'parked']),
  requestedAt: z.string(),
  resolvedAt: z.string().nullable(),
  transactionId: z.string().nullable(),
  code: z.string().nullable(),
  attempt: z.number().int().nullable(),
  kind: z.enum(['settlement', 'adjustment']).nullable(),
  settlementId: z.string().nullable(),
  reason: z
    .enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit', 'debit-unresolved'])
    .nullable(),
  debitKey: z.string().nullable(),
  rollbackKey: z.string().nullable(),
});

export const operatorCallPageSchema = z.object({
  /** The cursor the page was read after. */
  after: z.string(),
  /** Pass as `after` for the next page (the last call listed; `after` again when none). */
  next: z.string(),
  /** True when the page stopped at the limit: more calls may follow now. */
  more: z.boolean(),
  calls: z.array(operatorCallSchema),
});
export type OperatorCallPageBody = z.infer<typeof operatorCallPageSchema>;

/**
 * Reconciliation in seamless mode: the calls Croupier made to the operator's wallet (debits,
 * credits, rollbacks) and where each stands, per player and period, paged by a cursor. The
 * seamless counterpart of `GET /v1/settlements`, which has nothing for these players: no
 * movement of Croupier's wallet exists for them. Empty in transfer mode.
 */
export function operatorCallRoutes(
  app: HttpApp,
  deps: { calls: OperatorCallLedger; readModels: ProjectionRunner },
): void {
  app.get(
    '/v1/operator-wallet/calls',
    {
      // A read of an index: nothing to refuse beyond the query's schema.
      config: { roles: ['operator', 'regulator'], problems: [] },
      schema: {
        tags: ['settlements'],
        summary:
          "Seamless mode: the calls Croupier made to the operator's wallet (debit, credit, rollback) and their outcome, per player and period, for the operator to reconcile",
        description:
          'Every call with its idempotency `key`, amount, round, bet and `state` (`sent`, ' +
          '`confirmed`, `refused`, `unresolved`, `rolled-back`, `parked`), in the order Croupier ' +
          'recorded the requests, those recorded at or after `from` and before `to`, of ' +
          '`playerId` when given, after the cursor `after` (`0` for the start), at most `limit`. ' +
          'Continue with `after=next` while `more`.',
        querystring: z.strictObject({
          playerId: playerIdSchema.optional(),
          from: isoTimestampSchema.optional(),
          to: isoTimestampSchema.optional(),
          after: z
            .string()
            .regex(OPERATOR_CALL_CURSOR_PATTERN, "must be 0 or a page's next")
            .default('0'),
          limit: z.coerce.number().int().min(1).max(1_000).default(100),
        }),
        response: { 200: operatorCallPageSchema },
      },
    },
    async (request) => {
      const { playerId, from, to, after, limit } = request.query;
      // Read-your-writes: every call recorded before this request is listed.
      await deps.readModels.syncToHead([deps.calls.name]);
      return deps.calls.page({
        playerId,
        ...(from === undefined ? {} : { from: Date.parse(from) }),
        ...(to === undefined ? {} : { to: Date.parse(to) }),
        after: parseOperatorCallCursor(after),
        limit,
      });
    },
  );
}
