import { systemContext } from '@croupier/application';
import { DomainError } from '@croupier/contracts';
import { z } from 'zod';
import type { TableBoard } from '../board/table-board.js';
import type { Sessions } from './sessions.js';

/** A session's idle timeout when the deployment sets none: 15 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 15 * 60_000;

/** The setting of every process that serves sessions (the gateway, the round service). */
export const sessionEnvironmentShape = {
  /**
   * A player's session (003, 004) closes after this long without a command from its player or
   * a dealing step; its unfinished round is finished by the rules first (ADR 0004).
   */
  SESSION_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(DEFAULT_SESSION_IDLE_TIMEOUT_MS),
};

/**
 * Closes the sessions idle past their timeout: one pass over the open sessions of the table
 * board. Idle time counts from the store's time of the session's last event caused by a person
 * (system steps, such as this one's own void, do not count), so a restart or another process
 * continues a closing where it stopped, and a session closing while its refunds are recorded is
 * finished on a later pass. Answers how many sessions it closed.
 */
export async function closeIdleSessions(
  rounds: Pick<Sessions, 'closeSessionStep'>,
  board: TableBoard,
  now: number = Date.now(),
): Promise<number> {
  let closed = 0;
  for (const table of await board.list()) {
    const session = table.session;
    if (!session || table.status === 'closed') continue;
    if (now - (table.lastActivityAt ?? 0) < session.idleTimeoutMs) continue;
    try {
      const step = await rounds.closeSessionStep(
        table.tableId,
        `inactive for ${session.idleTimeoutMs} ms: session timed out`,
        systemContext('session-timeout'),
      );
      if (step === 'closed') closed++;
    } catch (error) {
      // Another process closing the same session meanwhile: the next pass sees it closed.
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return closed;
}
