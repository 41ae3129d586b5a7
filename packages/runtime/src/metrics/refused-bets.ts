import type { ErrorCode } from '@croupier/contracts';
import type { HttpAppOptions } from '@croupier/http';
import { Counter, type Registry } from 'prom-client';

/**
 * Bet requests refused, by stable error code: the problems answered on the routes by which a
 * player places bets. Only the process that serves those routes sees its refusals, so this
 * counter is per process, not read from the log (most refusals leave no event).
 */
export class RefusedBets {
  private readonly refused: Counter<'code'>;
  private readonly betRoutes: ReadonlySet<string>;

  /** `betRoutes`: the route templates, POSTed to, that place bets. */
  constructor(registry: Registry, betRoutes: Iterable<string>) {
    this.betRoutes = new Set(betRoutes);
    this.refused = new Counter({
      name: 'croupier_bets_refused_total',
      help: 'Bet requests refused, by stable error code (BETTING_CLOSED, INSUFFICIENT_FUNDS, ...)',
      labelNames: ['code'],
      registers: [registry],
    });
  }

  /** Counts a refused bet request (pass as the app's `onProblem`). */
  readonly onProblem: NonNullable<HttpAppOptions['onProblem']> = (request, problem) => {
    if (request.method === 'POST' && this.betRoutes.has(request.routeOptions.url ?? ''))
      this.refused.inc({ code: problem.code satisfies ErrorCode });
  };
}
