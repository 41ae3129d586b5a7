import { formatMoney, minorUnitExponentOf } from '@croupier/contracts';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions } from '../options.js';
import { alignedColumns } from '../format.js';
import { apiToken, callApi, reportingUnavailable } from './audit-access.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface DailyRow {
  date: string;
  scope: string;
  id: string;
  currency: string;
  rounds: number;
  turnover: number;
  ggr: number;
  holdPercent: number | null;
}
interface RtpRow {
  scope: string;
  id: string;
  currency: string;
  betType: string;
  bets: number;
  observedRtp: number | null;
  ci95: [number, number] | null;
  exactRtp: number | null;
  exactWithinInterval: boolean | null;
}

/**
 * Money as a person reads it, without the code the `cur` column gives (12,345.00); minor units
 * as they are for a currency whose exponent is not known.
 */
const amount = (minor: number, currency: string) =>
  minorUnitExponentOf(currency) === null
    ? String(minor)
    : formatMoney(minor, currency).slice(0, -(currency.length + 1));

const percent = (value: number | null, digits = 4) =>
  value === null ? '-' : `${(value * 100).toFixed(digits)}%`;

/**
 * The back office's reports from a running gateway (docs/back-office.md): GGR and turnover per
 * day, table or game and currency (`daily`, as a table, JSON or the API's CSV), and observed RTP
 * per bet type against the exact one (`rtp`). Calls the API as `audit` does: --url, --token or
 * CROUPIER_TOKEN, or a regulator token minted from the local JWT_SECRET.
 */
export const reportCommand: Command = {
  name: 'report',
  summary: 'daily GGR and turnover, or observed RTP against exact, from a running Croupier',
  usage:
    'croupier report daily|rtp --from YYYY-MM-DD --to YYYY-MM-DD [--csv] [--json] [--url http://127.0.0.1:8080] [--token JWT]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      from: { type: 'string' },
      to: { type: 'string' },
      csv: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      token: { type: 'string' },
    });
    const [which] = positionals;
    if (which !== 'daily' && which !== 'rtp')
      throw new UsageError('say which report: croupier report daily|rtp --from DATE --to DATE');
    for (const [name, value] of [
      ['from', values.from],
      ['to', values.to],
    ] as const)
      if (value === undefined || !DATE.test(value))
        throw new UsageError(`--${name} must be a UTC date, YYYY-MM-DD`);
    if (values.csv && which !== 'daily')
      throw new UsageError('--csv: only the daily report has a CSV form');
    const query = `from=${values.from}&to=${values.to}`;
    return reportingUnavailable(io.stderr, async () => {
      const token = await apiToken(values.token, 'regulator');
      if (values.csv) {
        io.stdout((await callApi(values.url, `/v1/reports/daily.csv?${query}`, token)).text);
        return 0;
      }
      const { body } = await callApi(values.url, `/v1/reports/${which}?${query}`, token);
      if (values.json) {
        io.stdout(`${JSON.stringify(body, null, 2)}\n`);
        return 0;
      }
      if (which === 'daily') {
        const rows = (body as { rows: DailyRow[] }).rows.map((row) => [
          row.date,
          `${row.scope} ${row.id}`,
          row.currency,
          String(row.rounds),
          amount(row.turnover, row.currency),
          amount(row.ggr, row.currency),
          row.holdPercent === null ? '-' : `${row.holdPercent.toFixed(4)}%`,
        ]);
        io.stdout(
          alignedColumns(
            ['date', 'table/game', 'cur', 'rounds', 'turnover', 'ggr', 'hold'],
            rows,
            new Set([3, 4, 5, 6]),
          ),
        );
        return 0;
      }
      const rows = (body as { rows: RtpRow[] }).rows.map((row) => [
        `${row.scope} ${row.id}`,
        row.currency,
        row.betType,
        String(row.bets),
        percent(row.observedRtp),
        row.ci95 === null ? '-' : `${percent(row.ci95[0], 2)} .. ${percent(row.ci95[1], 2)}`,
        percent(row.exactRtp),
        row.exactWithinInterval === null ? '-' : row.exactWithinInterval ? 'yes' : 'NO',
      ]);
      io.stdout(
        alignedColumns(
          ['table/game', 'cur', 'bet', 'bets', 'observed', '95% interval', 'exact', 'within'],
          rows,
          new Set([3, 4, 6]),
        ),
      );
      return 0;
    });
  },
};
