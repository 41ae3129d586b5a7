import type { RecordedEvent } from '@croupier/eventstore';
import { z } from 'zod';
import { describeEvent } from './describe.js';
import { provenanceOf } from './parse.js';

/**
 * Significant events (GLI-19 style): what a regulator wants listed apart from ordinary play.
 * Failed logins are the day's security stream: AuthenticationFailuresRecorded (a client's failed
 * logins of one window), and AuthenticationFailed (one each) in logs written before it.
 */
export const SIGNIFICANT_EVENT_CATEGORIES = {
  RoundVoided: 'void',
  RoundPaused: 'pause',
  RoundResumed: 'resume',
  CardCorrected: 'correction',
  RoundResultCorrected: 'correction',
  RoundResettled: 'resettlement',
  TableOpened: 'configuration',
  TableClosed: 'configuration',
  DealerChanged: 'dealer-change',
  ShoeClosed: 'shoe-closed-early',
  FundsDeposited: 'balance-adjustment',
  FundsWithdrawn: 'balance-adjustment',
  CommissionCollected: 'balance-adjustment',
  PayoutAdjusted: 'balance-adjustment',
  AuthenticationFailed: 'failed-login',
  AuthenticationFailuresRecorded: 'failed-login',
  // A message a consumer could not apply (ADR 0035): money owed and not paid until an operator
  // fixes what refused it and asks for a retry.
  MessageParked: 'parked-message',
} as const;

/**
 * The categories: those of the recorded types above, and `cut-card-passed`, an alert derived from
 * a scanner shoe's events (cut-card-watch.ts, ADR 0043), recorded by no event of its own.
 */
export type SignificantCategory =
  | (typeof SIGNIFICANT_EVENT_CATEGORIES)[keyof typeof SIGNIFICANT_EVENT_CATEGORIES]
  | 'cut-card-passed';
export const SIGNIFICANT_EVENT_TYPES = Object.keys(SIGNIFICANT_EVENT_CATEGORIES);

export const significantEventSchema = z.object({
  occurredAt: z.string(),
  category: z.enum([
    'void',
    'pause',
    'resume',
    'correction',
    'resettlement',
    'configuration',
    'dealer-change',
    'shoe-closed-early',
    'balance-adjustment',
    'failed-login',
    'parked-message',
    'cut-card-passed',
  ]),
  type: z.string(),
  tableId: z.string().nullable(),
  playerId: z.string().nullable(),
  stream: z.string(),
  revision: z.string(),
  position: z.string(),
  actor: z.object({ id: z.string(), role: z.string() }).nullable(),
  summary: z.string(),
});
export type SignificantEvent = z.infer<typeof significantEventSchema>;

/** The table a stream belongs to: `table-T`, `shoe-T.k`, `round-T.k.n`. */
export function tableOfStream(stream: string): string | null {
  const match = /^(?:table|shoe|round)-([^.]+)/.exec(stream);
  return match?.[1] ?? null;
}

/**
 * The significant-event record of an event, or null for ordinary play. `currency`: that of the
 * event's money where the event does not name it (its table's, its wallet's: `CurrencyBook`), so
 * the summary reads "20,000.00 EUR", not minor units.
 */
export function significantEventOf(
  recorded: RecordedEvent,
  currency: string | null = null,
): SignificantEvent | null {
  if (!Object.hasOwn(SIGNIFICANT_EVENT_CATEGORIES, recorded.type)) return null;
  const category =
    SIGNIFICANT_EVENT_CATEGORIES[recorded.type as keyof typeof SIGNIFICANT_EVENT_CATEGORIES];
  const data = (recorded.data ?? {}) as Record<string, unknown>;
  // A shoe closing because its cut card came out is ordinary play; an operator closing it, or a
  // scanner shoe running out of cards (its cut card never reported), is not.
  if (recorded.type === 'ShoeClosed' && data['reason'] === 'completed') return null;
  // A player opening their own session table (003, 004) is play, not a change of the floor's
  // configuration; an operator opening a table is. A session closing is as ordinary, unless a
  // person other than its player (a supervisor, an operator) closed it.
  if (recorded.type === 'TableOpened' && data['session'] !== undefined) return null;
  if (recorded.type === 'TableClosed' && recorded.stream.startsWith('table-s-')) {
    const role = provenanceOf(recorded).actor?.role;
    if (role === 'player' || role === 'system') return null;
  }
  const { actor, occurredAt } = provenanceOf(recorded);
  const tableId =
    tableOfStream(recorded.stream) ??
    (typeof data['tableId'] === 'string' ? data['tableId'] : null);
  return {
    occurredAt: occurredAt ?? recorded.recordedAt.toISOString(),
    category,
    type: recorded.type,
    tableId,
    playerId: typeof data['playerId'] === 'string' ? data['playerId'] : null,
    stream: recorded.stream,
    revision: String(recorded.revision),
    position: String(recorded.position),
    actor,
    summary: describeEvent(recorded, currency),
  };
}
