import type { HistoryRecord } from './player-history.js';

/**
 * Game recall as CSV (GLI-19 records): one row per game cycle with its date and time, table,
 * cards, result, stakes, payouts, commission, balance before and after, status, game-cycle id
 * (the round id) and paytable id. Amounts are integer minor units of the table's currency.
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
] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading formula character would be run by a spreadsheet; a quote mark keeps it text.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function betsOf(record: HistoryRecord): string {
  return record.bets
    .map(
      (bet) =>
        `${bet.type} ${bet.amount}: ${bet.result ?? 'open'}${bet.payout === null ? '' : ` ${bet.payout}`}`,
    )
    .join('; ');
}

/** The player's game records as CSV text, header first, oldest record last as given. */
export function gameRecallCsv(records: readonly HistoryRecord[]): string {
  const rows = records.map((record) => [
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
    betsOf(record),
  ]);
  return [GAME_RECALL_COLUMNS, ...rows]
    .map((row) => row.map((value) => csvField(value)).join(','))
    .join('\r\n')
    .concat('\r\n');
}
