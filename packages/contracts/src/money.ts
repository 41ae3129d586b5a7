import { PLAY_MONEY_CURRENCY } from './play-money.js';

/** The ISO 4217 codes whose minor unit is not the hundredth, by exponent. */
const NOT_HUNDREDTHS: Readonly<Record<number, readonly string[]>> = {
  0: [
    'BIF',
    'CLP',
    'DJF',
    'GNF',
    'ISK',
    'JPY',
    'KMF',
    'KRW',
    'PYG',
    'RWF',
    'UGX',
    'UYI',
    'VND',
  ].concat(['VUV', 'XAF', 'XOF', 'XPF']),
  3: ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'],
  4: ['CLF', 'UYW'],
};

/** Every other active ISO 4217 currency: its minor unit is the hundredth. */
const HUNDREDTHS = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN ' +
  'BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP ' +
  'GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK ' +
  'LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK ' +
  'NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD ' +
  'SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG ' +
  'YER ZAR ZMW ZWG ZWL'
).split(' ');

/**
 * The minor-unit exponent of each currency Croupier formats (ISO 4217's "minor unit"): an amount
 * of 2000000 EUR is 20,000.00, of 2000000 KRW is 2,000,000. Play money (`FUN`) counts in
 * hundredths, as the real money it imitates (FUN_BALANCE 1000000 is 10,000.00 FUN).
 */
export const MINOR_UNIT_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  ...Object.fromEntries(HUNDREDTHS.map((code) => [code, 2])),
  ...Object.fromEntries(
    Object.entries(NOT_HUNDREDTHS).flatMap(([exponent, codes]) =>
      codes.map((code) => [code, Number(exponent)]),
    ),
  ),
  [PLAY_MONEY_CURRENCY]: 2,
});

/** The currency's minor-unit exponent, or null for a code ISO 4217 does not list. */
export const minorUnitExponentOf = (currency: string): number | null =>
  Object.hasOwn(MINOR_UNIT_EXPONENTS, currency) ? MINOR_UNIT_EXPONENTS[currency]! : null;

/** Thousands separated by commas: "2000000" → "2,000,000". */
const grouped = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * An amount of minor units as a person reads it, labelled with its currency: 2000000 EUR is
 * "20,000.00 EUR", 150 EUR "1.50 EUR", 1500 KRW "1,500 KRW", 1500 BHD "1.500 BHD". Digits are
 * moved, never divided: no float touches the amount. A code with no known exponent keeps its
 * minor units and says so ("1500 minor units of XYZ") rather than guess where the point goes.
 * `signed`: a change, written "+1.50 EUR" or "−1.50 EUR" ("±0.00 EUR" for none).
 */
export function formatMoney(
  amount: number | bigint,
  currency: string,
  options: { readonly signed?: boolean } = {},
): string {
  if (typeof amount === 'number' && !Number.isSafeInteger(amount)) {
    throw new RangeError(`amount must be a whole number of minor units, not ${amount}`);
  }
  const minor = BigInt(amount);
  const sign = minor < 0n ? '\u2212' : options.signed ? (minor > 0n ? '+' : '±') : '';
  const digits = (minor < 0n ? -minor : minor).toString();
  const exponent = minorUnitExponentOf(currency);
  if (exponent === null) return `${sign}${digits} minor units of ${currency}`;
  if (exponent === 0) return `${sign}${grouped(digits)} ${currency}`;
  const padded = digits.padStart(exponent + 1, '0');
  const whole = padded.slice(0, -exponent);
  const fraction = padded.slice(-exponent);
  return `${sign}${grouped(whole)}.${fraction} ${currency}`;
}
