// @ts-check
/* global document */
/**
 * The floor's charts as inline SVG, drawn here rather than by a library: two kinds of picture
 * over a period of hours — bars that may go below zero (GGR per hour) and a line of points with
 * the band it is expected in (observed RTP against the exact one). The geometry (scales, ticks)
 * is plain functions, apart from the drawing, so it can be read and tested without a browser.
 */

const SVG = 'http://www.w3.org/2000/svg';
export const WIDTH = 560;
export const HEIGHT = 220;
/** Room for the axes' labels: left, right, top, bottom. */
const MARGIN = { left: 86, right: 12, top: 12, bottom: 26 };
const HOUR_MS = 3_600_000;

/**
 * A linear map from a domain to a range; a domain of one value maps to the range's middle.
 * @param {[number, number]} domain @param {[number, number]} range
 * @returns {(value: number) => number}
 */
export function linear([d0, d1], [r0, r1]) {
  if (d1 === d0) return () => (r0 + r1) / 2;
  return (value) => r0 + ((value - d0) / (d1 - d0)) * (r1 - r0);
}

/**
 * Round tick values from at or below `min` to at or above `max` (the chart's extent): steps of
 * 1, 2 or 5 times a power of ten, about `count` of them; `integer` keeps steps whole (minor
 * units are never split).
 * @param {number} min @param {number} max @param {number} [count] @param {boolean} [integer]
 * @returns {number[]}
 */
export function ticks(min, max, count = 5, integer = false) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max === min) return [min];
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  if (integer) step = Math.max(1, Math.round(step));
  const values = [];
  // Multiples of the step counted in whole numbers, so no rounding error adds up.
  const last = Math.ceil(max / step - 1e-9);
  for (let i = Math.floor(min / step + 1e-9); i <= last; i++)
    values.push(Number((i * step).toPrecision(12)));
  return values;
}

/**
 * Builds an SVG element; children are nodes or text.
 * @param {string} tag @param {Record<string, string | number>} [attributes]
 * @param {...(Node | string | null | undefined)} children
 */
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** @param {number} at */
const hourLabel = (at) => `${new Date(at).toISOString().slice(11, 16)}`;

/**
 * The frame of a chart over [from, to): the time axis with hour labels, the value axis with
 * its ticks, and the scales that place points in it.
 * @param {{ from: number, to: number, low: number, high: number, integer: boolean,
 *   label: (value: number) => string, title: string, kind: string }} frame
 */
function frame({ from, to, low, high, integer, label, title, kind }) {
  const x = linear([from, to], [MARGIN.left, WIDTH - MARGIN.right]);
  const values = ticks(low, high, 4, integer);
  const bottom = Math.min(low, values[0] ?? low);
  const top = Math.max(high, values.at(-1) ?? high);
  const y = linear([bottom, top], [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const hours = Math.round((to - from) / HOUR_MS);
  // An hour label every few hours, so about six fit under the plot.
  const every = Math.max(1, Math.ceil(hours / 6));
  const root = svg(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      width: WIDTH,
      height: HEIGHT,
      role: 'img',
      'aria-label': title,
      class: `chart ${kind}`,
      'data-chart': kind,
    },
    svg('title', {}, title),
  );
  const axes = svg('g', { class: 'axes' });
  for (const value of values)
    axes.append(
      svg('line', {
        class: 'grid',
        x1: MARGIN.left,
        x2: WIDTH - MARGIN.right,
        y1: y(value),
        y2: y(value),
      }),
      svg(
        'text',
        { class: 'tick', x: MARGIN.left - 4, y: y(value) + 4, 'text-anchor': 'end' },
        label(value),
      ),
    );
  for (let hour = 0; hour <= hours; hour += every)
    axes.append(
      svg(
        'text',
        {
          class: 'tick',
          x: x(from + hour * HOUR_MS),
          y: HEIGHT - 8,
          // The first and last labels stay inside the picture.
          'text-anchor': hour === 0 ? 'start' : hour === hours ? 'end' : 'middle',
        },
        hourLabel(from + hour * HOUR_MS),
      ),
    );
  root.append(axes);
  return { root, x, y };
}

/**
 * Bars per hour over [from, to): above the zero line for a positive value, below it for a
 * negative one (an hour the house lost).
 * @param {{ from: number, to: number, bars: { at: number, value: number }[],
 *   label: (value: number) => string, title: string }} chart
 */
export function hourlyBars({ from, to, bars, label, title }) {
  const values = bars.map((bar) => bar.value);
  const { root, x, y } = frame({
    from,
    to,
    low: Math.min(0, ...values),
    high: Math.max(0, ...values),
    integer: true,
    label,
    title,
    kind: 'hourly-bars',
  });
  const width = Math.max(1, x(from + HOUR_MS) - x(from) - 2);
  const plot = svg('g', { class: 'bars' });
  for (const bar of bars) {
    const [top, bottom] = bar.value >= 0 ? [y(bar.value), y(0)] : [y(0), y(bar.value)];
    plot.append(
      svg(
        'rect',
        {
          class: bar.value >= 0 ? 'bar' : 'bar loss',
          x: x(bar.at) + 1,
          y: top,
          width,
          // A zero hour still shows as a hairline, so a played hour is never invisible.
          height: Math.max(1, bottom - top),
          'data-hour': new Date(bar.at).toISOString(),
          'data-value': bar.value,
        },
        svg('title', {}, `${hourLabel(bar.at)} UTC: ${label(bar.value)}`),
      ),
    );
  }
  plot.append(svg('line', { class: 'zero', x1: x(from), x2: x(to), y1: y(0), y2: y(0) }));
  root.append(plot);
  return root;
}

/**
 * A value over time against where it is expected: the band (shaded, with a whisker at each
 * point), the expected value (dashed) and the observed points joined by a line.
 * @param {{ from: number, to: number, expected: number | null,
 *   points: { at: number, value: number, band: readonly [number, number] | null }[],
 *   label: (value: number) => string, title: string, floor?: number }} chart
 */
export function bandChart({ from, to, expected, points, label, title, floor = -Infinity }) {
  const all = points.flatMap((p) => [p.value, ...(p.band ?? [])]);
  if (expected !== null) all.push(expected);
  const low = Math.max(floor, Math.min(...all));
  const high = Math.max(...all);
  const { root, x, y } = frame({
    from,
    to,
    low,
    high,
    integer: false,
    label,
    title,
    kind: 'band',
  });
  const clamp = (/** @type {number} */ value) => y(Math.max(low, value));
  const banded = points.filter((p) => p.band !== null);
  if (banded.length > 1) {
    const upper = banded.map((p) => `${x(p.at)},${clamp(/** @type {any} */ (p.band)[1])}`);
    const lower = banded.map((p) => `${x(p.at)},${clamp(/** @type {any} */ (p.band)[0])}`);
    root.append(
      svg('polygon', { class: 'band', points: [...upper, ...lower.reverse()].join(' ') }),
    );
  }
  for (const p of banded) {
    const [bottom, top] = /** @type {readonly [number, number]} */ (p.band);
    root.append(
      svg('line', {
        class: 'whisker',
        x1: x(p.at),
        x2: x(p.at),
        y1: clamp(bottom),
        y2: clamp(top),
      }),
    );
  }
  if (expected !== null)
    root.append(
      svg('line', {
        class: 'expected',
        x1: x(from),
        x2: x(to),
        y1: y(expected),
        y2: y(expected),
        'data-expected': expected,
      }),
    );
  if (points.length > 1)
    root.append(
      svg('polyline', {
        class: 'observed',
        points: points.map((p) => `${x(p.at)},${y(p.value)}`).join(' '),
      }),
    );
  for (const p of points)
    root.append(
      svg(
        'circle',
        {
          class: 'point',
          cx: x(p.at),
          cy: y(p.value),
          r: 3,
          'data-until': new Date(p.at).toISOString(),
          'data-value': p.value,
        },
        svg(
          'title',
          {},
          `to ${hourLabel(p.at)} UTC: ${label(p.value)}` +
            (p.band ? ` (expected ${label(p.band[0])} to ${label(p.band[1])})` : ''),
        ),
      ),
    );
  return root;
}
