import type { HttpApp } from '@croupier/http';
import { betRoutes } from './bets/routes.js';
import { boardRoutes } from './board/routes.js';
import type { TableBoard } from './board/table-board.js';
import { dealingRoutes } from './dealing/routes.js';
import { faultRoutes } from './faults/routes.js';
import { rebetRoutes } from './rebet/routes.js';
import type { RoundService } from './round-service.js';
import { seatRoutes } from './seats/routes.js';
import type { SeatLedger } from './seats/seat-ledger.js';
import { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './sessions/idle-timeouts.js';
import { sessionRoutes } from './sessions/routes.js';
import { tableRoutes } from './tables/routes.js';

export { BET_ROUTES } from './bets/routes.js';

export interface RoundRoutesDeps {
  readonly rounds: RoundService;
  readonly board: TableBoard;
  /** The accrued commission owed per seat (002's seat ledger). */
  readonly seatLedger: SeatLedger;
  /** Called after a table opens, so the process can start its auto-dealer. */
  readonly onTableOpened?: (tableId: string) => void;
  /** A player's session closes after this long without a command (SESSION_IDLE_TIMEOUT_MS). */
  readonly sessionIdleTimeoutMs?: number;
}

/**
 * Tables and rounds: the round service's HTTP surface, each capability's routes registered by
 * its own folder.
 */
export function roundRoutes(app: HttpApp, deps: RoundRoutesDeps): void {
  const { rounds, board } = deps;
  const reads = rounds.context;
  sessionRoutes(app, {
    rounds: reads,
    sessions: rounds.sessions,
    board,
    sessionIdleTimeoutMs: deps.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  });
  tableRoutes(app, { tables: rounds.tables, onTableOpened: deps.onTableOpened });
  boardRoutes(app, { rounds: reads, board });
  seatRoutes(app, { rounds: reads, seats: rounds.seats, ledger: deps.seatLedger });
  betRoutes(app, { bets: rounds.bets });
  rebetRoutes(app, { rebets: rounds.rebets });
  dealingRoutes(app, { rounds: reads, dealing: rounds.dealing, sessions: rounds.sessions });
  faultRoutes(app, { rounds: reads, faults: rounds.faults });
}
