// @ts-check

/**
 * Money as a person reads it (the console's twin of `formatMoney` in @croupier/contracts, held to
 * it by services/gateway/test/console-money.test.ts): minor units moved past the point by the
 * currency's minor-unit exponent, never divided, so no float touches an amount.
 * `exponents`: code → exponent; the server appends the contracts' table to this module as it
 * serves it, as `MINOR_UNIT_EXPONENTS`.
 *
 * @param {number} amount minor units
 * @param {string | null} currency
 * @param {Readonly<Record<string, number>>} exponents
 */
export function formatMoney(amount, currency, exponents) {
  if (!Number.isSafeInteger(amount)) return String(amount);
  const sign = amount < 0 ? '\u2212' : '';
  const digits = String(Math.abs(amount));
  const exponent =
    currency !== null && Object.hasOwn(exponents, currency) ? exponents[currency] : null;
  if (exponent === null || exponent === undefined) {
    return `${sign}${digits} minor units${currency === null ? '' : ` of ${currency}`}`;
  }
  if (exponent === 0) return `${sign}${grouped(digits)} ${currency}`;
  const padded = digits.padStart(exponent + 1, '0');
  return `${sign}${grouped(padded.slice(0, -exponent))}.${padded.slice(-exponent)} ${currency}`;
}

/** @param {string} digits "2000000" → "2,000,000" */
const grouped = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
