import {
  rebuildProjections,
  REBUILDABLE_PROJECTIONS,
  type RebuildableProjection,
  type RebuiltProjections,
} from '@croupier/gateway';
import { formatMoney } from '@croupier/contracts';
import type { Command, CommandIo } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions, REPORT_OPTIONS } from '../options.js';
import { apiToken, callApi, reportingUnavailable, withStore } from './audit-access.js';

/** The balances added up per currency: wallets of different currencies never add up. */
function totalsByCurrency(
  wallets: readonly { currency: string | null; balance: number }[],
): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const wallet of wallets) {
    const currency = wallet.currency ?? 'none';
    totals[currency] = (totals[currency] ?? 0) + wallet.balance;
  }
  return totals;
}

/** Money for a person, or the minor units as they are where the wallet names no currency. */
const money = (amount: number, currency: string | null) =>
  currency === null ? `${amount}` : formatMoney(amount, currency);

/** What the rebuilt read models hold, in a few lines per model. */
async function summaryOf(rebuilt: RebuiltProjections, durationMs: number) {
  const board = rebuilt.board;
  const history = rebuilt.history;
  const balances = rebuilt.balances?.list() ?? null;
  const tables = board === null ? [] : await board.list();
  let records = 0;
  for (const player of history === null ? [] : rebuilt.players)
    records += (await history!.history(player, 100)).length;
  const beadPlates = new Map<string, string>();
  for (const table of tables)
    beadPlates.set(table.tableId, (await board!.roads(table.tableId))?.beadPlate.join('') ?? '');
  return {
    events: rebuilt.events,
    position: rebuilt.position?.toString() ?? null,
    durationMs,
    projections: {
      ...(board === null
        ? {}
        : {
            'table-board': tables.map((table) => ({
              tableId: table.tableId,
              name: table.name,
              status: table.status,
              currentShoeId: table.currentShoeId,
              currentRound: table.currentRound?.roundId ?? null,
              roundsCompleted: table.roundsCompleted,
              beadPlate: beadPlates.get(table.tableId) ?? '',
            })),
          }),
      ...(history === null
        ? {}
        : {
            'player-history': {
              players: rebuilt.players.length,
              records,
            },
          }),
      ...(balances === null
        ? {}
        : {
            'wallet-balances': {
              wallets: balances,
              totals: totalsByCurrency(balances),
            },
          }),
    },
    failures: rebuilt.failures,
  };
}

function printSummary(io: CommandIo, summary: Awaited<ReturnType<typeof summaryOf>>): void {
  const lines = [
    `Rebuilt from ${summary.events} event(s) in ${summary.durationMs} ms (last position ${summary.position ?? '-'}).`,
  ];
  const { projections } = summary;
  if (projections['table-board']) {
    lines.push(`table-board: ${projections['table-board'].length} table(s)`);
    for (const t of projections['table-board']) {
      lines.push(
        `  ${t.tableId} (${t.status}): shoe ${t.currentShoeId ?? '-'}, round ${t.currentRound ?? '-'}, ${t.roundsCompleted} round(s) completed; bead plate ${t.beadPlate || '-'}`,
      );
    }
  }
  if (projections['player-history']) {
    const h = projections['player-history'];
    lines.push(`player-history: ${h.players} player(s), ${h.records} game record(s) kept`);
  }
  if (projections['wallet-balances']) {
    const w = projections['wallet-balances'];
    const totals = Object.entries(w.totals)
      .map(([currency, total]) => money(total, currency === 'none' ? null : currency))
      .join(', ');
    lines.push(`wallet-balances: ${w.wallets.length} wallet(s), ${totals || 'nothing'} in all`);
    for (const wallet of w.wallets) {
      lines.push(
        `  ${wallet.playerId}: balance ${money(wallet.balance, wallet.currency)}, open stakes ${wallet.openStakes}, commission owed ${money(wallet.commissionOwed, wallet.currency)}`,
      );
    }
  }
  for (const f of summary.failures)
    lines.push(`! ${f.projection} failed on ${f.stream}@${f.revision}: ${f.error}`);
  io.stdout(`${lines.join('\n')}\n`);
}

export const rebuildCommand: Command = {
  name: 'rebuild',
  summary:
    'rebuild read models (tables and roads, game histories, wallet balances) from the event log; with --url, the running gateway rebuilds its own',
  usage: `croupier rebuild [--projection ${REBUILDABLE_PROJECTIONS.join('|')}]... [--json] [--url GATEWAY_URL [--token JWT]]`,
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      projection: { type: 'string', multiple: true },
      ...REPORT_OPTIONS,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected "${positionals.join(' ')}"`);
    const names = values.projection ?? [...REBUILDABLE_PROJECTIONS];
    for (const name of names) {
      if (!(REBUILDABLE_PROJECTIONS as readonly string[]).includes(name))
        throw new UsageError(
          `--projection must be one of ${REBUILDABLE_PROJECTIONS.join(', ')}, got "${name}"`,
        );
    }
    return reportingUnavailable(io.stderr, async () => {
      if (values.url !== undefined) {
        if (values.projection !== undefined)
          throw new UsageError(
            '--projection applies to a local rebuild; the gateway rebuilds all of its read models',
          );
        const token = await apiToken(values.token, 'operator');
        const { body } = await callApi(values.url, '/v1/admin/rebuild', token, 'POST');
        io.stdout(
          values.json
            ? `${JSON.stringify(body, null, 2)}\n`
            : `The gateway rebuilt its read models: ${JSON.stringify(body)}\n`,
        );
        return 0;
      }
      const started = performance.now();
      const rebuilt = await withStore((store) =>
        rebuildProjections(store, names as RebuildableProjection[], (events) => {
          if (io.interactive) io.stderr(`\rreplayed ${events} event(s)`);
        }),
      );
      if (io.interactive) io.stderr('\n');
      const summary = await summaryOf(rebuilt, Math.round(performance.now() - started));
      if (values.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
      else printSummary(io, summary);
      return summary.failures.length === 0 ? 0 : 1;
    });
  },
};
