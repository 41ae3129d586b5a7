import { describe, expect, it } from 'vitest';
import { formatMoney, minorUnitExponentOf } from '../src/index.js';

describe('money as a person reads it', () => {
  it.each([
    ['EUR', 2, 2_000_000, '20,000.00 EUR'],
    ['EUR', 2, 150, '1.50 EUR'],
    ['EUR', 2, 5, '0.05 EUR'],
    ['KRW', 0, 2_000_000, '2,000,000 KRW'],
    ['JPY', 0, 150, '150 JPY'],
    ['BHD', 3, 1_500, '1.500 BHD'],
    ['BHD', 3, 7, '0.007 BHD'],
    ['CLF', 4, 12_345_678, '1,234.5678 CLF'],
    ['FUN', 2, 1_000_000, '10,000.00 FUN'],
  ])('%s has exponent %i: %i minor units read %s', (currency, exponent, amount, text) => {
    expect(minorUnitExponentOf(currency)).toBe(exponent);
    expect(formatMoney(amount, currency)).toBe(text);
  });

  it('moves digits, never divides: the largest balance keeps every cent', () => {
    expect(formatMoney(9_007_199_254_740_991, 'EUR')).toBe('90,071,992,547,409.91 EUR');
    expect(formatMoney(10n ** 15n + 1n, 'BHD')).toBe('1,000,000,000,000.001 BHD');
  });

  it('signs a change when asked, and a negative amount always', () => {
    expect(formatMoney(-2_000, 'EUR')).toBe('\u221220.00 EUR');
    expect(formatMoney(150, 'EUR', { signed: true })).toBe('+1.50 EUR');
    expect(formatMoney(0, 'KRW', { signed: true })).toBe('±0 KRW');
  });

  it('does not guess the point of a code it does not know', () => {
    expect(minorUnitExponentOf('XYZ')).toBeNull();
    expect(formatMoney(1_500, 'XYZ')).toBe('1500 minor units of XYZ');
  });

  it('refuses an amount that is not whole minor units', () => {
    expect(() => formatMoney(1.5, 'EUR')).toThrow(/amount must be a whole number/);
  });
});
