import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { as, startCasino, type Casino } from './support/casino.js';

/**
 * The significant events say money as a person reads it, in the currency of the wallet it moved
 * in: a withdrawal names no currency, its wallet's first deposit does. Read from the durable
 * index (GET /v1/significant-events) and from the supervisors' feed, which learn it apart.
 */
let casino: Casino;
let app: HttpApp;
let token: string;

/** One player per exponent: EUR 2, KRW 0, JPY 0, BHD 3. */
const MOVES = [
  { playerId: 'ana', currency: 'EUR', deposit: 2_000_000, withdrawal: 150 },
  { playerId: 'kim', currency: 'KRW', deposit: 2_000_000, withdrawal: 1_500 },
  { playerId: 'yui', currency: 'JPY', deposit: 30_000, withdrawal: 150 },
  { playerId: 'ali', currency: 'BHD', deposit: 1_500, withdrawal: 7 },
] as const;

const EXPECTED = [
  'ana deposited 20,000.00 EUR',
  'ana withdrew 1.50 EUR',
  'kim deposited 2,000,000 KRW',
  'kim withdrew 1,500 KRW',
  'yui deposited 30,000 JPY',
  'yui withdrew 150 JPY',
  'ali deposited 1.500 BHD',
  'ali withdrew 0.007 BHD',
];

beforeAll(async () => {
  casino = await startCasino();
  app = await buildApp(casino.system);
  token = await casino.system.tokens.issue({ id: 'reg', role: 'regulator' });
  const operator = as('olga', 'operator');
  for (const move of MOVES) {
    const { playerId, currency } = move;
    await casino.system.wallets.deposit(
      { playerId, amount: move.deposit, currency, reference: `${playerId}-in` },
      operator,
    );
    await casino.system.wallets.withdraw(
      { playerId, amount: move.withdrawal, reference: `${playerId}-out` },
      operator,
    );
  }
  await casino.system.sync();
}, 120_000);

afterAll(async () => {
  await app.close();
  await casino.close();
});

const summaries = (events: { category: string; summary: string }[]) =>
  events.filter((e) => e.category === 'balance-adjustment').map((e) => e.summary);

describe('money in the significant events', () => {
  it('reads each amount in its currency in the durable index', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/significant-events',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(summaries(response.json<{ events: never[] }>().events)).toEqual(EXPECTED);
  });

  it('reads each amount in its currency in the supervision feed', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/supervision/feed',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(summaries(response.json<{ events: never[] }>().events)).toEqual(EXPECTED);
  });
});
