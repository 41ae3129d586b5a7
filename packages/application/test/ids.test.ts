import { v5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { deterministicId } from '../src/index.js';

describe('deterministicId', () => {
  it('gives the ids events were stored under, whatever implements it (ADR 0018)', () => {
    // Computed by the hand-written SHA-1 version before `uuid` replaced it: stored event ids.
    expect(deterministicId('BetPlaced', 'bet-1')).toBe('8950030b-d6b5-5268-bb85-a6587378ddcc');
    expect(deterministicId('CardDealt', 'table-a.1.1', '7')).toBe(
      '3d74b147-6a7b-58f6-be65-70f053910475',
    );
    expect(deterministicId('rebet', 'r', 'p', 'b')).toBe('b48e7931-8040-559b-9f42-614f13f217d3');
    expect(deterministicId('é€😀')).toBe('6ef47479-9247-5286-a055-e14301593cbc');
  });

  it('is RFC 9562 version 5 (its Appendix A.4 example, by the same library)', () => {
    const dns = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    expect(v5('www.example.com', dns)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(deterministicId('x')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('deterministicId from bytes', () => {
  it('gives what the library gives for the parts as text, any text included', () => {
    const CROUPIER = '3f4c3a52-8c1e-4f8e-9d5b-2b0d8e6c7a11';
    const samples = ['', 'a', 'table-1.42.7', 'é€😀', '\u0000\u001f', 'x'.repeat(300), '日本語'];
    for (const a of samples)
      for (const b of samples) expect(deterministicId(a, b)).toBe(v5(`${a}\u001f${b}`, CROUPIER));
  });

  it('refuses a lone surrogate, as the library always did', () => {
    expect(() => deterministicId('\ud800')).toThrow();
  });
});

describe('deterministicId and surrogates', () => {
  it('refuses a lone low surrogate and one at the end, and takes a pair', () => {
    expect(() => deterministicId('a\udc00')).toThrow();
    expect(() => deterministicId('a', '\ud83d')).toThrow();
    expect(deterministicId('\ud83d\ude00')).toBe(deterministicId('😀'));
  });
});
