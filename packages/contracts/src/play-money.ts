import { z } from 'zod';
import { streams, type PlayerId } from './ids.js';

/**
 * Play money (003's fun mode, docs/adr/0030). A fun session plays in the currency `FUN`, which no
 * real money is ever in: its stakes are debited from, and its payouts credited to, a wallet of
 * its own (`fun-wallet-<player>`), topped up by a grant, never by a deposit, and never withdrawn.
 * Every event that records a play-money amount carries the mark: `currency: "FUN"` where the
 * event names a currency, `fun: true` where it does not.
 */
export const PLAY_MONEY_CURRENCY = 'FUN';

/** Whether amounts in this currency are play money. */
export const isPlayMoney = (currency: string | null | undefined): boolean =>
  currency === PLAY_MONEY_CURRENCY;

/** A real-money currency: an ISO 4217 code, and never the play-money code `FUN`. */
export const realCurrencySchema = z
  .string()
  .regex(
    /^(?!FUN$)[A-Z]{3}$/,
    'must be an ISO 4217 code such as EUR; FUN is play money, never real money',
  );

/** The mark of a play-money event that names no currency: present (true) on play money only. */
export const funMarkSchema = z.literal(true).optional();

/** `{ fun: true }` for play money, nothing for real money: spread into an event's data. */
export const funMarkOf = (currency: string | null | undefined): { fun?: true } =>
  isPlayMoney(currency) ? { fun: true } : {};

/** The wallet stream that holds a player's money in this currency: play money has its own. */
export const walletStreamOf = (playerId: PlayerId, currency: string | null | undefined): string =>
  isPlayMoney(currency) ? streams.funWallet(playerId) : streams.wallet(playerId);
