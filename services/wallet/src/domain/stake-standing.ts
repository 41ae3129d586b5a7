/**
 * What a stake's round records of it (for its player, bet id and amount), read when a refund
 * before any bet (`bet-rejected`, `orphaned-debit`) is asked for:
 * - `bet`: the round holds it as the player's bet, and only the round closes it (its settlement,
 *   or its void's refund);
 * - `released`: the round released it (StakeReleased, of this amount), so no bet can ever be
 *   placed under its id;
 * - `not-released`: neither: a bet may still come under its id (a concurrent request for the same
 *   bet, on its way), or the round released another amount;
 * - `no-round`: the round does not exist, and can never hold the bet.
 */
export type StakeStanding = 'bet' | 'released' | 'not-released' | 'no-round';

/** Why a stake is refunded: its round's void or cleared bet, or before it ever became a bet. */
export type RefundReason = 'voided' | 'cleared' | 'bet-rejected' | 'orphaned-debit';

/**
 * Whether a wallet may give a stake back for `reason`. A void's or a clear's refund is the
 * round's own record (BetsRefunded) closing its bet. A refund before any bet stands only on the
 * round's release of the stake, the same guard the round applies when releasing: a stake that
 * became a bet is closed only by its round, and one not released yet may still become one. A
 * stake given back while its bet stands would leave a bet on the round with no stake behind it.
 */
export function mayRefund(reason: RefundReason, standing: StakeStanding | undefined): boolean {
  if (reason === 'voided' || reason === 'cleared') return true;
  return standing === 'released' || standing === 'no-round';
}
