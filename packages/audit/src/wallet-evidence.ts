import type { RecordedEvent } from '@croupier/eventstore';

/**
 * The wallet events a round causes: what a round audit reads from the wallet streams. A payout
 * adjusted after a resettlement (ADR 0009) is one: the audit checks it against the resettlement.
 */
export const ROUND_WALLET_EVENT_TYPES = [
  'StakeDebited',
  'PayoutCredited',
  'StakeRefunded',
  'CommissionAccrued',
  'PayoutAdjusted',
] as const;

const field = (event: RecordedEvent, name: 'roundId' | 'betId'): string | undefined => {
  const value = (event.data as Record<string, unknown> | null)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * Groups wallet events by the round they belong to: by their `roundId`, and commission accrued
 * (which names only the bet) by the round its bet was debited for.
 */
export function walletEventsByRound(
  events: readonly RecordedEvent[],
): Map<string, RecordedEvent[]> {
  const roundOfBet = new Map<string, string>();
  for (const event of events) {
    const roundId = field(event, 'roundId');
    const betId = field(event, 'betId');
    if (roundId !== undefined && betId !== undefined && roundId !== '')
      roundOfBet.set(betId, roundId);
  }
  const grouped = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const betId = field(event, 'betId');
    const roundId =
      field(event, 'roundId') ?? (betId === undefined ? undefined : roundOfBet.get(betId));
    if (roundId === undefined) continue;
    const list = grouped.get(roundId) ?? [];
    list.push(event);
    grouped.set(roundId, list);
  }
  return grouped;
}

/** Whether a wallet event belongs to one of these rounds (or to one of these bets). */
export function isWalletEventOf(
  event: RecordedEvent,
  roundIds: ReadonlySet<string>,
  betIds: ReadonlySet<string> = new Set(),
): boolean {
  if (!(ROUND_WALLET_EVENT_TYPES as readonly string[]).includes(event.type)) return false;
  const roundId = field(event, 'roundId');
  if (roundId !== undefined) return roundIds.has(roundId);
  const betId = field(event, 'betId');
  return betId !== undefined && betIds.has(betId);
}
