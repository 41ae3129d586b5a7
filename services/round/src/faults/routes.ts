import { contextOf, type HttpApp } from '@croupier/http';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import { dealerCommand, reasonSchema, roundParams, roundViewerOf } from '../shared/route-parts.js';
import { roundViewSchema } from '../shared/views.js';
import type { Faults } from './faults.js';

/** Faults: a round paused, resumed, voided (every bet refunded). */
export function faultRoutes(
  app: HttpApp,
  deps: { readonly rounds: Pick<RoundContext, 'getRoundAs'>; readonly faults: Faults },
): void {
  const { faults } = deps;
  const view = roundViewerOf(deps.rounds);

  dealerCommand(
    app,
    view,
    'resume',
    'Resume a paused round',
    ['supervisor'],
    ROUND_PROBLEMS.resume,
    (id, request) => faults.resume(id, contextOf(request)),
  );
  for (const [path, summary, roles, problems] of [
    [
      'pause',
      'Pause a round (a fault at the table); the supervisor resumes or voids it',
      ['dealer', 'supervisor'],
      ROUND_PROBLEMS.pause,
    ],
    ['void', 'Void a round: every bet is refunded', ['supervisor'], ROUND_PROBLEMS.void],
  ] as const) {
    app.post(
      `/v1/rounds/:roundId/${path}`,
      {
        config: { roles, problems },
        schema: {
          tags: ['rounds'],
          summary,
          params: roundParams,
          body: reasonSchema,
          response: { 200: roundViewSchema },
        },
      },
      async (request) => {
        const { roundId } = request.params;
        if (path === 'pause') await faults.pause(roundId, request.body.reason, contextOf(request));
        else await faults.void(roundId, request.body.reason, contextOf(request));
        return view(request, roundId);
      },
    );
  }
}
