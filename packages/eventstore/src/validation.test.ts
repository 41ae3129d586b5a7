import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { EventValidationError, StreamNameError, UnstorableTextError } from './errors.js';
import { encodeEvents, matchesFilter, normalizeFilter, validateStreamName } from './validation.js';

describe('encodeEvents', () => {
  it('serializes once: data, metadata and the hashed content agree with canonicalJson', () => {
    const id = randomUUID().toUpperCase();
    const [encoded] = encodeEvents('s', [
      { id, type: 'Bet', data: { b: 1, a: [2] }, metadata: { z: 'x' } },
    ]);
    expect(encoded).toEqual({
      id: id.toLowerCase(),
      type: 'Bet',
      dataJson: '{"a":[2],"b":1}',
      metadataJson: '{"z":"x"}',
      chainContent: canonicalJson({ type: 'Bet', data: { b: 1, a: [2] }, metadata: { z: 'x' } }),
    });
  });

  it('rejects a NUL character, which PostgreSQL cannot store', () => {
    expect(() =>
      encodeEvents('s', [{ id: randomUUID(), type: 'T', data: { s: 'a\u0000b' } }]),
    ).toThrow(EventValidationError);
  });

  it('names the field that holds unstorable text: NUL or a lone surrogate, in data or metadata', () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ reference: 'a\u0000b' }, {}, 'data.reference'],
      [{ bets: [{ type: 'x\ud800' }] }, {}, 'data.bets.0.type'],
      [{ ok: 'pair \ud83c\udca1 is fine' }, { actor: { id: '\udc00' } }, 'metadata.actor.id'],
    ];
    for (const [data, metadata, path] of cases) {
      const attempt = () => encodeEvents('s', [{ id: randomUUID(), type: 'T', data, metadata }]);
      expect(attempt).toThrow(UnstorableTextError);
      expect(attempt).toThrow(path);
    }
    // A backslash followed by "u0000" is six ordinary characters, not a NUL.
    expect(() =>
      encodeEvents('s', [{ id: randomUUID(), type: 'T', data: { s: '\\u0000 \ud83c\udca1' } }]),
    ).not.toThrow();
  });
});

describe('stream names and filters', () => {
  it('accepts domain names and rejects reserved or malformed ones', () => {
    expect(() => {
      validateStreamName('round-3f2a');
    }).not.toThrow();
    for (const bad of ['', '$all', 'tab\there', 'trailing ', 'x'.repeat(257), 42]) {
      expect(() => {
        validateStreamName(bad);
      }).toThrow(StreamNameError);
    }
  });

  it('matches prefix and types the way the SQL does', () => {
    const filter = normalizeFilter({ streamPrefix: 'round-', eventTypes: ['BetPlaced'] });
    expect(matchesFilter(filter, 'round-1', 'BetPlaced')).toBe(true);
    expect(matchesFilter(filter, 'wallet-1', 'BetPlaced')).toBe(false);
    expect(matchesFilter(filter, 'round-1', 'CardDealt')).toBe(false);
    expect(matchesFilter(normalizeFilter({ streamPrefix: '' }), 'x', 'y')).toBe(true);
  });
});
