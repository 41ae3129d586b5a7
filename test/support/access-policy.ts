import type { Role } from '@croupier/contracts';

/**
 * Who may call what: the intended policy of every route of Croupier, written out by hand as
 * "METHOD /route-template". The authorization matrix test checks the running API against it,
 * and that it names every route (a new route fails that test until its row is written); the
 * fuzz test reads the route list from it in the distributed deployment.
 */

const EVERYONE = ['player', 'dealer', 'supervisor', 'operator', 'regulator'] as const;
const STAFF_AND_SELF = ['player', 'supervisor', 'operator', 'regulator'] as const;
const DEALING = ['dealer', 'supervisor'] as const;

export interface Rule {
  /** Roles that may call it, or 'public' (no token needed). */
  readonly roles: readonly Role[] | 'public';
  /** A player may call it only for their own :playerId. */
  readonly selfOnly?: true;
  /**
   * A player may call it only on their own session's round (the service refuses them with 403
   * FORBIDDEN elsewhere): the matrix's round is on a shared table, so there a player may not.
   */
  readonly ownSessionOnly?: true;
}

const PUBLIC: Rule = { roles: 'public' };
const SYSTEM: Rule = { roles: ['system'] };

export const ACCESS_POLICY: Readonly<Record<string, Rule>> = {
  // Probes, documentation and the console page (its API calls need a token).
  'GET /health': PUBLIC,
  'GET /ready': PUBLIC,
  'GET /docs': PUBLIC,
  'GET /docs/': PUBLIC,
  'GET /docs/static/index.html': PUBLIC,
  'GET /docs/static/swagger-initializer.js': PUBLIC,
  'GET /docs/json': PUBLIC,
  'GET /docs/yaml': PUBLIC,
  'GET /console': PUBLIC,
  'GET /console/console.js': PUBLIC,
  'GET /console/console.css': PUBLIC,
  'GET /console/floor.js': PUBLIC,
  'GET /console/charts.js': PUBLIC,
  'GET /console/floor.css': PUBLIC,
  'GET /console/roads.js': PUBLIC,
  'GET /console/money.js': PUBLIC,
  'GET /console/actions.js': PUBLIC,
  // Business figures: the operator's and the regulator's (METRICS_PUBLIC is off by default).
  'GET /metrics': { roles: ['operator', 'regulator'] },

  'POST /v1/tables': { roles: ['operator'] },
  'GET /v1/tables': { roles: EVERYONE },
  'GET /v1/tables/:tableId': { roles: EVERYONE },
  'GET /v1/tables/:tableId/roads': { roles: EVERYONE },
  'GET /v1/tables/:tableId/paytable': { roles: EVERYONE },
  'GET /v1/tables/:tableId/history': { roles: EVERYONE },
  // A player sits down and leaves as themselves (002's numbered seats).
  'GET /v1/tables/:tableId/seats': { roles: EVERYONE },
  'POST /v1/tables/:tableId/seats/:seat': { roles: ['player'] },
  'DELETE /v1/tables/:tableId/seats/:seat': { roles: ['player'] },
  // A player's own table (003, 004): the service refuses another player's session (FORBIDDEN).
  'POST /v1/sessions': { roles: ['player'] },
  'GET /v1/sessions/:sessionId': { roles: ['player', 'supervisor', 'operator', 'regulator'] },
  'POST /v1/sessions/:sessionId/rounds': { roles: ['player'] },
  'POST /v1/sessions/:sessionId/deal': { roles: ['player'] },
  'POST /v1/sessions/:sessionId/close': { roles: ['player', 'supervisor', 'operator'] },
  'POST /v1/tables/:tableId/close': { roles: ['operator'] },
  'POST /v1/tables/:tableId/dealer': { roles: ['supervisor', 'operator'] },
  'POST /v1/tables/:tableId/shoes': { roles: DEALING },
  'POST /v1/tables/:tableId/shoes/current/close': { roles: ['supervisor', 'operator'] },
  'POST /v1/tables/:tableId/rounds': { roles: DEALING },

  'GET /v1/rounds/:roundId': { roles: EVERYONE },
  // A player bets, clears and rebets as themselves: the player id is the token's subject.
  'POST /v1/rounds/:roundId/bets': { roles: ['player'] },
  'DELETE /v1/rounds/:roundId/bets': { roles: ['player'] },
  'DELETE /v1/rounds/:roundId/bets/:betId': { roles: ['player'] },
  'POST /v1/rounds/:roundId/rebet': { roles: ['player'] },
  'POST /v1/rounds/:roundId/close-betting': { roles: DEALING },
  // A player deals only their own session (the service refuses them every other table).
  'POST /v1/rounds/:roundId/deal': { roles: [...DEALING, 'player'], ownSessionOnly: true },
  'POST /v1/rounds/:roundId/confirm': { roles: DEALING },
  'POST /v1/rounds/:roundId/cut-card': { roles: DEALING },
  'POST /v1/rounds/:roundId/cards': { roles: DEALING },
  'POST /v1/rounds/:roundId/pause': { roles: DEALING },
  'POST /v1/rounds/:roundId/resume': { roles: ['supervisor'] },
  'POST /v1/rounds/:roundId/void': { roles: ['supervisor'] },
  'POST /v1/rounds/:roundId/cards/:shoePosition/correction': { roles: ['supervisor'] },

  'GET /v1/shoes/:shoeId': { roles: EVERYONE },
  'POST /v1/shoes/:shoeId/burn': { roles: DEALING },

  'POST /v1/wallets/:playerId/deposits': { roles: ['operator'] },
  'POST /v1/wallets/:playerId/withdrawals': { roles: ['operator'] },
  'GET /v1/wallets/:playerId': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/wallets/:playerId/transactions': { roles: STAFF_AND_SELF, selfOnly: true },
  // Fun mode (ADR 0030): a player tops up their own play money; an operator anyone's.
  'POST /v1/wallets/:playerId/play-money': { roles: ['player', 'operator'], selfOnly: true },
  'GET /v1/wallets/:playerId/play-money': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/wallets/:playerId/play-money/transactions': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/players/:playerId/history': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/players/:playerId/history.csv': { roles: ['operator', 'supervisor', 'regulator'] },

  'GET /v1/audit/rounds/:roundId': { roles: ['regulator', 'operator', 'supervisor'] },
  'GET /v1/audit/shoes/:shoeId/replay': { roles: ['regulator', 'operator'] },
  'GET /v1/audit/shoes/:shoeId/export': { roles: ['regulator', 'operator'] },
  'GET /v1/audit/wallets/:playerId': { roles: ['regulator', 'operator', 'supervisor'] },
  'GET /v1/audit/wallets/:playerId/play-money': { roles: ['regulator', 'operator', 'supervisor'] },
  'GET /v1/audit/checkpoints/:which': { roles: ['regulator', 'operator'] },
  'POST /v1/audit/checkpoints/verify': { roles: ['regulator', 'operator'] },
  'GET /v1/significant-events': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/supervision/feed': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/supervision/paused-rounds': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/settlements': { roles: ['operator', 'regulator'] },
  'GET /v1/operator-wallet/calls': { roles: ['operator', 'regulator'] },
  'GET /v1/settlements/players/:playerId': { roles: ['operator', 'regulator'] },
  // The back office's floor (issue 26): staff who run or watch it.
  'GET /v1/floor/sessions': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/floor/figures': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/floor/figures/hourly': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/floor/exposure': { roles: ['operator', 'supervisor', 'regulator'] },
  // Reports for the regulator and the finance team (the operator's back office).
  'GET /v1/reports/daily': { roles: ['operator', 'regulator'] },
  'GET /v1/reports/daily.csv': { roles: ['operator', 'regulator'] },
  'GET /v1/reports/rtp': { roles: ['operator', 'regulator'] },
  'POST /v1/admin/rebuild': { roles: ['operator'] },
  'GET /v1/admin/parked-messages': { roles: ['operator'] },
  'POST /v1/admin/parked-messages/:id/retry': { roles: ['operator'] },

  // Service to service: service tokens only.
  'POST /internal/v1/tables/:tableId/shoes': SYSTEM,
  'GET /internal/v1/shoes/:shoeId': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/draw': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/seal': SYSTEM,
  'GET /internal/v1/shoes/:shoeId/rounds/:roundId/cards': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cards': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/correction': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cut-card': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/burn': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/close': SYSTEM,
  'POST /internal/v1/wallets/:playerId/stakes': SYSTEM,
  'POST /internal/v1/wallets/:playerId/stakes/:betId/refund': SYSTEM,
};
