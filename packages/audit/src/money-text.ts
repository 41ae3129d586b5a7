import { formatMoney } from '@croupier/contracts';

/**
 * Amounts as a person reads them, in the currency of the money they count (`formatMoney`: 2000000
 * EUR is "20,000.00 EUR"); where no currency is known, the minor units said as such.
 */
export interface Money {
  (amount: number): string;
  /** A change: "+1.50 EUR", "−1.50 EUR". */
  signed(amount: number): string;
}

export function moneyIn(currency: string | null): Money {
  if (currency === null) {
    const bare = (amount: number) => `${amount} (minor units)`;
    return Object.assign(bare, {
      signed: (amount: number) =>
        `${amount > 0 ? `+${amount}` : amount < 0 ? `\u2212${-amount}` : '±0'} (minor units)`,
    });
  }
  return Object.assign((amount: number) => formatMoney(amount, currency), {
    signed: (amount: number) => formatMoney(amount, currency, { signed: true }),
  });
}

/** The currency a round is played in, as its `RoundOpened` names it; null without one. */
export function roundCurrencyOf(events: readonly { type: string; data: unknown }[]): string | null {
  const opened = events.find((event) => event.type === 'RoundOpened');
  const currency = (opened?.data as { currency?: unknown } | undefined)?.currency;
  return typeof currency === 'string' ? currency : null;
}
