import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { CanonicalJsonError } from './errors.js';

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: true }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":true,"z":null}]},"b":1}',
    );
    // RFC 8785 §3.2.3: code-unit order puts "\u20ac" (U+20AC) before "\ud83d\ude00" (U+1F600),
    // although the emoji's code point is larger, and uppercase before lowercase.
    expect(canonicalJson({ '😀': 1, '€': 2, a: 3, B: 4, '': 5 })).toBe(
      '{"":5,"B":4,"a":3,"€":2,"😀":1}',
    );
  });

  it('writes numbers and strings as JSON.stringify does (the JCS rules)', () => {
    expect(
      canonicalJson([1.0, -0, 1e21, 1e-7, 0.1 + 0.2, 5e-324, -1.5, 123456789012345680000]),
    ).toBe('[1,0,1e+21,1e-7,0.30000000000000004,5e-324,-1.5,123456789012345680000]');
    expect(canonicalJson('é\n"\\\u0001\u2028')).toBe('"é\\n\\"\\\\\\u0001\u2028"');
  });

  it('follows JSON.stringify for undefined and toJSON', () => {
    expect(canonicalJson({ a: undefined, b: [undefined], at: new Date(0) })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","b":[null]}',
    );
    expect(() => canonicalJson(undefined)).toThrow(CanonicalJsonError);
  });

  it('rejects values that JSON cannot carry faithfully, naming the path', () => {
    expect(() => canonicalJson({ stake: { amount: 10n } })).toThrow(/\$\.stake\.amount.*bigint/);
    expect(() => canonicalJson([1, Number.NaN])).toThrow(/\$\[1\].*NaN/);
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
    expect(() => canonicalJson({ s: Symbol('s') })).toThrow(/symbol/);
    expect(() => canonicalJson({ m: new Map() })).toThrow(/Map/);
    expect(() => canonicalJson({ s: new Set([1]) })).toThrow(/Set/);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: [shared] })).toBe('{"x":{"a":1},"y":[{"a":1}]}');
  });

  it('parses back to an equal value, and is independent of key insertion order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          const reversed = Object.fromEntries(Object.entries(value).reverse());
          expect(canonicalJson(reversed)).toBe(text);
        }
      }),
    );
  });
});
