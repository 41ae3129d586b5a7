import { formatMoney, MINOR_UNIT_EXPONENTS } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
// The console's own module, as the browser loads it (plain JavaScript, no build step).
import { formatMoney as consoleFormat } from '../src/console/money.js';

const AMOUNTS = [0, 5, 7, 150, 1_500, 2_000_000, -2_000, 12_345_678, Number.MAX_SAFE_INTEGER];

describe("the console's money", () => {
  it.each([
    ['EUR', 2_000_000, '20,000.00 EUR'],
    ['EUR', 150, '1.50 EUR'],
    ['KRW', 2_000_000, '2,000,000 KRW'],
    ['JPY', 150, '150 JPY'],
    ['BHD', 1_500, '1.500 BHD'],
    ['CLF', 12_345, '1.2345 CLF'],
  ])('reads %s %i as %s', (currency, amount, text) => {
    expect(consoleFormat(amount, currency, MINOR_UNIT_EXPONENTS)).toBe(text);
  });

  it('puts the point where the server does, for every currency it knows', () => {
    for (const currency of Object.keys(MINOR_UNIT_EXPONENTS)) {
      for (const amount of AMOUNTS) {
        expect(consoleFormat(amount, currency, MINOR_UNIT_EXPONENTS)).toBe(
          formatMoney(amount, currency),
        );
      }
    }
  });

  it('says minor units where the currency is unknown', () => {
    expect(consoleFormat(1_500, 'XYZ', MINOR_UNIT_EXPONENTS)).toBe(formatMoney(1_500, 'XYZ'));
    expect(consoleFormat(1_500, null, MINOR_UNIT_EXPONENTS)).toBe('1500 minor units');
  });
});
