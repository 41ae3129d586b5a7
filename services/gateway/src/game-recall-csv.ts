import { formatMoney } from '@croupier/contracts';
import type { HistoryRecord } from './player-history.js';

/**
 * Game recall as CSV (GLI-19 records): one row per game cycle with its date and time, table,
 * cards, result, stakes, payouts, commission, balance before and after, status, game-cycle id
 * (the round id) and paytable id. Amounts are integer minor units of the table's currency; the
 * `*_text` columns (appended) give them as a person reads them, in that currency ("20,000.00 EUR").
 * A round changed after settlement (voided, its result corrected) shows its final figures in
 * the main columns and its first settlement in the `original_*` ones (docs/audit.md).
 */
export const GAME_RECALL_COLUMNS = [
  'game_cycle_id',
  'started_at',
  'finished_at',
  'table_id',
  'shoe_id',
  'round_number',
  'paytable_id',
  'status',
  'player_cards',
  'player_total',
  'banker_cards',
  'banker_total',
  'result',
  'stakes',
  'payouts',
  'refunded',
  'commission',
  'balance_before',
  'balance_after',
  'bets',
  // Disputes after settlement (appended, so the columns above keep their places).
  'adjusted',
  'original_player_cards',
  'original_banker_cards',
  'original_result',
  'original_payouts',
  'original_commission',
  'original_balance_after',
  'adjustment',
  'adjusted_at',
  'corrections',
  // Money as a person reads it (appended): the integer columns above stay as they are.
  'currency',
  'stakes_text',
  'payouts_text',
  'refunded_text',
  'commission_text',
  'balance_before_text',
  'balance_after_text',
] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading formula character would be run by a spreadsheet; a quote mark keeps it text.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** An amount for a person: in the currency when it is known, else the minor units as they are. */
const moneyIn =
  (currency: string | null) =>
  (amount: number): string =>
    currency === null ? String(amount) : formatMoney(amount, currency);

function betsOf(record: HistoryRecord, money: (amount: number) => string): string {
  return record.bets
    .map((bet) => {
      const paid = `${bet.result ?? 'open'}${bet.payout === null ? '' : ` ${money(bet.payout)}`}`;
      const was =
        bet.original === null ? '' : ` (was ${bet.original.result} ${money(bet.original.payout)})`;
      return `${bet.type} ${money(bet.amount)}: ${paid}${was}`;
    })
    .join('; ');
}

function correctionsOf(record: HistoryRecord): string {
  return record.corrections
    .map((c) => `${c.shoePosition}: ${c.previous} -> ${c.card} (${c.reason})`)
    .join('; ');
}

/** When the wallet last applied an adjustment of the round, if it has. */
function adjustedAt(record: HistoryRecord): string | null {
  const times = record.adjustments.flatMap((a) => (a.at === null ? [] : [a.at]));
  return times.length === 0 ? null : times.reduce((last, at) => (at > last ? at : last));
}

/**
 * The player's game records as CSV text, header first, oldest record last as given;
 * `currencyOf` names each table's currency (null: unknown, the text columns then stay empty).
 */
export function gameRecallCsv(
  records: readonly HistoryRecord[],
  currencyOf: (tableId: string) => string | null = () => null,
): string {
  const rows = records.map((record) => {
    const currency = currencyOf(record.tableId);
    const money = moneyIn(currency);
    const text = (amount: number) => (currency === null ? null : money(amount));
    return [
      record.roundId,
      record.startedAt,
      record.finishedAt,
      record.tableId,
      record.shoeId,
      record.number,
      record.paytableId,
      record.status,
      record.result?.player.cards.join(' ') ?? null,
      record.result?.player.total ?? null,
      record.result?.banker.cards.join(' ') ?? null,
      record.result?.banker.total ?? null,
      record.result?.winner ?? null,
      record.stakes,
      record.payout,
      record.refunded,
      record.commission,
      record.balanceBefore,
      record.balanceAfter,
      betsOf(record, money),
      String(record.adjusted),
      record.original?.result?.player.cards.join(' ') ?? null,
      record.original?.result?.banker.cards.join(' ') ?? null,
      record.original?.result?.winner ?? null,
      record.original?.payout ?? null,
      record.original?.commission ?? null,
      record.original?.balanceAfter ?? null,
      record.adjusted ? record.adjustments.reduce((sum, a) => sum + a.delta, 0) : null,
      adjustedAt(record),
      correctionsOf(record),
      currency,
      text(record.stakes),
      text(record.payout),
      text(record.refunded),
      text(record.commission),
      text(record.balanceBefore),
      text(record.balanceAfter),
    ];
  });
  return [GAME_RECALL_COLUMNS, ...rows]
    .map((row) => row.map((value) => csvField(value)).join(','))
    .join('\r\n')
    .concat('\r\n');
}
