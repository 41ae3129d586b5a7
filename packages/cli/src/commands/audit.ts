import {
  auditOperatorWallet,
  auditRound,
  auditWallet,
  type RoundAudit,
  type WalletAudit,
} from '@croupier/audit';
import { playerIdSchema, roundIdSchema } from '@croupier/contracts';
import {
  anchorOf,
  loadOperatorWalletEvidence,
  loadRoundEvidence,
  loadWalletEvidence,
} from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { checkpointOption, parseOptions, REPORT_OPTIONS } from '../options.js';
import {
  apiToken,
  callApi,
  reportingUnavailable,
  STORE_UNAVAILABLE,
  withStore,
} from './audit-access.js';
import { roundText, walletText } from './audit-text.js';

export const auditCommand: Command = {
  name: 'audit',
  summary:
    "audit a round (its event trail, cards, third-card decisions, bets, payouts, wallet movements) or a player's wallet from its first movement (what justifies each), with a verdict (exit 1 if it does not verify)",
  usage:
    'croupier audit round ROUND_ID | audit wallet PLAYER_ID [--play-money] [--json] [--checkpoint FILE [--key-id ID]] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      ...REPORT_OPTIONS,
      checkpoint: { type: 'string' },
      'key-id': { type: 'string' },
      'play-money': { type: 'boolean', default: false },
    });
    const anchor = await checkpointOption(values);
    if (anchor !== null && values.url !== undefined)
      throw new UsageError(
        '--checkpoint reads the notary stream of the store itself: drop --url, or check the whole store over the API with casino verify --checkpoint FILE --url URL',
      );
    const [what, roundId, ...rest] = positionals;
    if ((what !== 'round' && what !== 'wallet') || roundId === undefined || rest.length > 0)
      throw new UsageError('give what to audit: audit round ROUND_ID, or audit wallet PLAYER_ID');
    if (values['play-money'] && what !== 'wallet')
      throw new UsageError('--play-money audits a wallet: audit wallet PLAYER_ID --play-money');
    if (what === 'wallet') return auditWalletCommand(roundId, values, anchor, io);
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
        const evidence = await withStore(async (store) => {
          const loaded = await loadRoundEvidence(store, roundId);
          if (loaded === null || anchor === null) return loaded;
          return { ...loaded, anchor: await anchorOf(store, anchor.published, anchor.keyId) };
        });
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

async function auditWalletCommand(
  playerId: string,
  values: {
    json: boolean;
    url?: string | undefined;
    token?: string | undefined;
    'play-money'?: boolean | undefined;
  },
  anchor: Awaited<ReturnType<typeof checkpointOption>>,
  io: Parameters<Command['run']>[1],
): Promise<number> {
  if (!playerIdSchema.safeParse(playerId).success)
    throw new UsageError(`"${playerId}" is not a player id (1-64 of A-Za-z0-9_.@-)`);
  const fun = values['play-money'] === true;
  return reportingUnavailable(io.stderr, async () => {
    let audit: WalletAudit;
    if (values.url !== undefined) {
      const token = await apiToken(values.token, 'regulator');
      const path = `/v1/audit/wallets/${encodeURIComponent(playerId)}${fun ? '/play-money' : ''}`;
      audit = (await callApi(values.url, path, token)).body as WalletAudit;
    } else {
      // Croupier's wallet (transfer mode), its play money (fun mode), or the calls to the
      // operator's (seamless mode).
      const audited = await withStore(async (store) => {
        const anchored =
          anchor === null ? {} : { anchor: await anchorOf(store, anchor.published, anchor.keyId) };
        const loaded = await loadWalletEvidence(store, playerId, fun ? 'fun' : 'real');
        if (loaded !== null) return auditWallet({ ...loaded, ...anchored });
        if (fun) return null;
        const seamless = await loadOperatorWalletEvidence(store, playerId);
        return seamless === null ? null : auditOperatorWallet({ ...seamless, ...anchored });
      });
      if (audited === null) {
        io.stderr(`no ${fun ? 'play-money ' : ''}wallet "${playerId}" in the event store\n`);
        return STORE_UNAVAILABLE;
      }
      audit = audited;
    }
    io.stdout(values.json ? `${JSON.stringify(audit, null, 2)}\n` : walletText(audit));
    return audit.verdict.ok ? 0 : 1;
  });
}
