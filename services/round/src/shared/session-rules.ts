import { DomainError, type CommandContext } from '@croupier/contracts';
import type { TableState } from '../domain/table.decider.js';

/*
 * Who may play and deal a table. A shared table takes every player's bets and is dealt by its
 * dealers (or its auto-dealer); a session table (003, 004) is one player's against the house:
 * only its owner bets on it and deals it. Supervisors keep their fault powers (pause, resume,
 * void) on both; the system (the idle timeout) finishes a session's round.
 */

/** Refuses a player's bets on a session table that is not theirs. */
export function requireMayPlay(table: TableState | null, playerId: string): void {
  const session = table?.session ?? null;
  if (session !== null && session.ownerId !== playerId)
    throw new DomainError('FORBIDDEN', `table ${table!.tableId} is another player's session`);
}

/**
 * Refuses to open, close or deal a round for anyone but the table's dealers: on a session table
 * its owner (and the system), on a shared table dealers and supervisors (the route's roles).
 */
export function requireMayDeal(table: TableState | null, context: CommandContext): void {
  const { actor } = context;
  const session = table?.session ?? null;
  if (actor.role === 'system') return;
  if (session === null) {
    if (actor.role === 'player')
      throw new DomainError('FORBIDDEN', 'a player deals only their own session');
    return;
  }
  if (actor.role !== 'player' || actor.id !== session.ownerId)
    // Not named: a refusal never tells one player who another is.
    throw new DomainError(
      'FORBIDDEN',
      `table ${table!.tableId} is a player's session: only its owner deals it`,
    );
}

/**
 * Refuses a player reading a round of another player's session: a session is its owner's, as
 * GET /v1/sessions/:sessionId is. Staff read every round.
 */
export function requireMayWatch(
  table: TableState | null,
  viewer: { readonly id: string; readonly role: string },
): void {
  const session = table?.session ?? null;
  if (session !== null && viewer.role === 'player' && viewer.id !== session.ownerId)
    throw new DomainError('FORBIDDEN', `table ${table!.tableId} is another player's session`);
}
