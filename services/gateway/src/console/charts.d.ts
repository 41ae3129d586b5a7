/** Types of the console's plain-JavaScript chart module, for the tests that import it (the SVG it draws is a DOM node, outside these types). */
export const WIDTH: number;
export const HEIGHT: number;
export function linear(
  domain: [number, number],
  range: [number, number],
): (value: number) => number;
export function ticks(min: number, max: number, count?: number, integer?: boolean): number[];
export function hourlyBars(chart: {
  from: number;
  to: number;
  bars: { at: number; value: number }[];
  label: (value: number) => string;
  title: string;
}): unknown;
export function bandChart(chart: {
  from: number;
  to: number;
  expected: number | null;
  points: { at: number; value: number; band: readonly [number, number] | null }[];
  label: (value: number) => string;
  title: string;
  floor?: number;
}): unknown;
