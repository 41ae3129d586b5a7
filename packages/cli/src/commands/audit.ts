import { auditRound, type RoundAudit } from '@croupier/audit';
import { roundIdSchema } from '@croupier/contracts';
import { loadRoundEvidence } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions } from '../options.js';
import {
  apiToken,
  callApi,
  reportingUnavailable,
  STORE_UNAVAILABLE,
  withStore,
} from './audit-access.js';
import { roundText } from './audit-text.js';

export const auditCommand: Command = {
  name: 'audit',
  summary:
    'audit a round: its event trail, cards, third-card decisions, bets, payouts, wallet movements and a verdict (exit 1 if it does not verify)',
  usage: 'croupier audit round ROUND_ID [--json] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      json: { type: 'boolean', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
    });
    const [what, roundId, ...rest] = positionals;
    if (what !== 'round' || roundId === undefined || rest.length > 0)
      throw new UsageError('give what to audit: audit round ROUND_ID');
    if (!roundIdSchema.safeParse(roundId).success)
      throw new UsageError(
        `"${roundId}" is not a round id (<table>.<shoe>.<round>, e.g. live.1.12)`,
      );
    return reportingUnavailable(io.stderr, async () => {
      let audit: RoundAudit;
      if (values.url !== undefined) {
        const token = await apiToken(values.token, 'regulator');
        audit = (await callApi(values.url, `/v1/audit/rounds/${roundId}`, token))
          .body as RoundAudit;
      } else {
        const evidence = await withStore((store) => loadRoundEvidence(store, roundId));
        if (evidence === null) {
          io.stderr(`no round "${roundId}" in the event store\n`);
          return STORE_UNAVAILABLE;
        }
        audit = auditRound(evidence);
      }
      io.stdout(values.json ? `${JSON.stringify(audit, null, 2)}\n` : roundText(audit));
      return audit.verdict.ok ? 0 : 1;
    });
  },
};
