import { describe, expect, it } from 'vitest';
// The console's own module, as the browser loads it (plain JavaScript, no build step).
import { linear, ticks } from '../src/console/charts.js';

describe("the console's chart geometry", () => {
  it('maps a domain onto a range, and a single value onto its middle', () => {
    const x = linear([0, 10], [100, 200]);
    expect([x(0), x(5), x(10)]).toEqual([100, 150, 200]);
    const y = linear([-50, 50], [200, 0]);
    expect(y(0)).toBe(100);
    expect(linear([3, 3], [0, 10])(3)).toBe(5);
  });

  it('puts round ticks from below the values to above them, whole minor units for money', () => {
    expect(ticks(0, 1_000, 4, true)).toEqual([0, 500, 1_000]);
    expect(ticks(-450, 3_000, 4, true)).toEqual([-1_000, 0, 1_000, 2_000, 3_000]);
    expect(ticks(0.9, 1.02, 4)).toEqual([0.9, 0.95, 1, 1.05]);
    expect(ticks(1, 9, 4, true)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(ticks(0, 3, 5, true)).toEqual([0, 1, 2, 3]);
    expect(ticks(7, 7)).toEqual([7]);
    expect(ticks(Number.NaN, 1)).toEqual([]);
  });
});
