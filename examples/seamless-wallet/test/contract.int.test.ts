import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HttpOperatorWallet, OPERATOR_WALLET_ROUTES } from '@croupier/wallet';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Books, buildWalletServer, signatureOf, WALLET_ROUTES } from '../src/index.js';

/**
 * The published contract (docs/wallet-api.openapi.json) against both sides: every request
 * Croupier's adapter sends and every answer the example wallet gives fit the document, and the
 * routes are the same three times over (document, adapter, example).
 */
interface OpenApi {
  paths: Record<
    string,
    {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
        responses: Record<
          string,
          { content: { 'application/json': { schema: { $ref: string } } } }
        >;
      };
    }
  >;
  components: { schemas: Record<string, object> };
}
const document = JSON.parse(
  readFileSync(new URL('../../../docs/wallet-api.openapi.json', import.meta.url), 'utf8'),
) as OpenApi;
const SECRET = 'contract-test-secret-0123456789abcdef0123';

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'wallet', components: document.components });
const validate = (ref: string, value: unknown) => {
  const check = ajv.getSchema(`wallet${ref}`)!;
  return check(value) ? null : ajv.errorsText(check.errors);
};

interface Exchange {
  path: string;
  body: unknown;
  status: number;
  answer: unknown;
}

/** Every request and answer of `exchanges` fits the published document. */
function expectFitsTheDocument(exchanges: readonly Exchange[]): void {
  for (const exchange of exchanges) {
    const operation = document.paths[exchange.path]?.post;
    expect(operation, exchange.path).toBeDefined();
    expect(
      validate(operation!.requestBody.content['application/json'].schema.$ref, exchange.body),
      exchange.path,
    ).toBeNull();
    const response = operation!.responses[String(exchange.status)];
    expect(response, `${exchange.path} ${exchange.status}`).toBeDefined();
    expect(
      validate(response!.content['application/json'].schema.$ref, exchange.answer),
      `${exchange.path} ${exchange.status}`,
    ).toBeNull();
  }
}

describe('the wallet API contract', () => {
  let postgres: IsolatedPostgres;
  let books: Books;
  let app: FastifyInstance;
  let url: string;
  const exchanges: Exchange[] = [];
  beforeAll(async () => {
    postgres = await isolatedPostgres('contract');
    books = new Books({ connectionString: postgres.connectionString, schema: postgres.schema });
    await books.migrate();
    app = await buildWalletServer({ books, secret: SECRET });
    app.addHook('onSend', async (request, reply, payload) => {
      exchanges.push({
        path: request.url,
        body: request.body,
        status: reply.statusCode,
        answer: JSON.parse(payload as string),
      });
      return payload;
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await books.close();
    await postgres.drop();
  });

  it('publishes the routes the adapter calls and the example serves', () => {
    const published = Object.keys(document.paths).sort();
    expect(Object.values(OPERATOR_WALLET_ROUTES).sort()).toEqual(published);
    expect(Object.values(WALLET_ROUTES).sort()).toEqual(published);
    for (const path of published)
      expect(app.hasRoute({ method: 'POST', url: path }), path).toBe(true);
  });

  it('fits every request the adapter sends and every answer the example gives', async () => {
    const adapter = new HttpOperatorWallet({ url, secret: SECRET, timeoutMs: 2_000, retries: 0 });
    await books.setBalance('pia', 'EUR', 5_000);
    const bet = { playerId: 'pia', roundId: 'live.1.1', betId: randomUUID(), currency: 'EUR' };
    const debitKey = randomUUID();
    expect(await adapter.debit({ ...bet, key: debitKey, amount: 1_000 })).toMatchObject({
      outcome: 'applied',
      balance: 4_000,
    });
    expect(await adapter.debit({ ...bet, key: debitKey, amount: 1_000 })).toMatchObject({
      balance: 4_000,
    });
    expect(await adapter.debit({ ...bet, key: randomUUID(), amount: 9_000 })).toMatchObject({
      outcome: 'refused',
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await adapter.debit({ ...bet, key: debitKey, amount: 999 })).toMatchObject({
      outcome: 'refused',
      code: 'KEY_CONFLICT',
    });
    await adapter.credit({ ...bet, key: randomUUID(), amount: 1_950, kind: 'settlement' });
    await adapter.credit({ ...bet, key: randomUUID(), amount: -950, kind: 'adjustment' });
    expect(await adapter.status(debitKey)).toMatchObject({ state: 'applied' });
    expect(await adapter.status(randomUUID())).toEqual({ state: 'unknown' });
    await adapter.rollback({ ...bet, key: randomUUID(), debitKey, amount: 1_000 });
    expect(await adapter.status(debitKey)).toMatchObject({ state: 'rolled-back' });
    // A rollback of a debit never seen is remembered: the debit is refused when it comes.
    const lateKey = randomUUID();
    await adapter.rollback({ ...bet, key: randomUUID(), debitKey: lateKey, amount: 500 });
    expect(await adapter.debit({ ...bet, key: lateKey, amount: 500 })).toMatchObject({
      outcome: 'refused',
      code: 'ROLLED_BACK',
    });
    // 5000 - 1000 + 1950 - 950, and the debit given back.
    expect(await books.balanceOf('pia')).toEqual({ currency: 'EUR', balance: 6_000 });
    // A refused credit is not the key's final answer: the same credit sent again once the
    // account is fixed is applied (Croupier's retry of a parked credit, ADR 0035). A refused
    // debit stays refused.
    await books.setBalance('pia', 'USD', 6_000);
    const owedKey = randomUUID();
    // Another bet: this one's stake was rolled back above, and a credit for it is refused.
    const owed = {
      ...bet,
      betId: randomUUID(),
      key: owedKey,
      amount: 700,
      kind: 'settlement' as const,
    };
    expect(await adapter.credit(owed)).toMatchObject({
      outcome: 'refused',
      code: 'CURRENCY_MISMATCH',
    });
    const refusedDebitKey = randomUUID();
    expect(await adapter.debit({ ...bet, key: refusedDebitKey, amount: 100 })).toMatchObject({
      outcome: 'refused',
    });
    await books.setBalance('pia', 'EUR', 6_000);
    expect(await adapter.credit(owed)).toMatchObject({ outcome: 'applied', balance: 6_700 });
    expect(await adapter.status(owedKey)).toMatchObject({ state: 'applied' });
    expect(await adapter.credit(owed)).toMatchObject({ outcome: 'applied', balance: 6_700 });
    expect(await adapter.debit({ ...bet, key: refusedDebitKey, amount: 100 })).toMatchObject({
      outcome: 'refused',
      code: 'CURRENCY_MISMATCH',
    });
    expect(await books.balanceOf('pia')).toEqual({ currency: 'EUR', balance: 6_700 });

    expect(exchanges.length).toBeGreaterThan(10);
    expectFitsTheDocument(exchanges);
  });

  it('answers status, conflicts and the calls Croupier never sends as the contract says', async () => {
    const from = exchanges.length;
    const adapter = new HttpOperatorWallet({ url, secret: SECRET, timeoutMs: 2_000, retries: 0 });
    await books.setBalance('ode', 'EUR', 5_000);
    const bet = { playerId: 'ode', roundId: 'live.1.2', betId: randomUUID(), currency: 'EUR' };
    const rollbackOf = (debitKey: string, amount: number) =>
      adapter.rollback({ ...bet, key: randomUUID(), debitKey, amount });

    // A debit whose rollback came first: its status is refused ROLLED_BACK, never rolled-back
    // without a movement to name.
    const lateKey = randomUUID();
    expect(await rollbackOf(lateKey, 500)).toMatchObject({ outcome: 'applied', balance: 5_000 });
    expect(await adapter.status(lateKey)).toEqual({ state: 'refused', code: 'ROLLED_BACK' });

    // Applied, then rolled back: rolled-back with the debit's own transaction id.
    const debitKey = randomUUID();
    const debited = await adapter.debit({ ...bet, key: debitKey, amount: 1_000 });
    if (debited.outcome !== 'applied') throw new Error('the debit was refused');
    // A rollback whose amount differs from its debit's moves nothing: KEY_CONFLICT.
    expect(await rollbackOf(debitKey, 999)).toMatchObject({
      outcome: 'refused',
      code: 'KEY_CONFLICT',
    });
    const rollbackKey = randomUUID();
    expect(
      await adapter.rollback({ ...bet, key: rollbackKey, debitKey, amount: 1_000 }),
    ).toMatchObject({ outcome: 'applied', balance: 5_000 });
    expect(await adapter.status(debitKey)).toEqual({
      state: 'rolled-back',
      transactionId: debited.transactionId,
    });
    // The rollback's own key: applied. A credit for the bet whose stake was given back: refused.
    expect(await adapter.status(rollbackKey)).toMatchObject({ state: 'applied' });
    const creditKey = randomUUID();
    const credit = { ...bet, key: creditKey, amount: 2_000, kind: 'settlement' as const };
    expect(await adapter.credit(credit)).toMatchObject({
      outcome: 'refused',
      code: 'ROLLED_BACK',
    });
    expect(await adapter.status(creditKey)).toEqual({ state: 'refused', code: 'ROLLED_BACK' });
    // The bet's next debit attempt applied: its credit is paid.
    expect(await adapter.debit({ ...bet, key: randomUUID(), amount: 1_000 })).toMatchObject({
      outcome: 'applied',
      balance: 4_000,
    });
    expect(await adapter.credit(credit)).toMatchObject({ outcome: 'applied', balance: 6_000 });
    expect(await adapter.status(creditKey)).toMatchObject({ state: 'applied' });

    // A rollback of a refused debit: applied, moving nothing; the debit stays refused.
    const refusedKey = randomUUID();
    expect(await adapter.debit({ ...bet, key: refusedKey, amount: 90_000 })).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await rollbackOf(refusedKey, 90_000)).toMatchObject({
      outcome: 'applied',
      balance: 6_000,
    });
    expect(await adapter.status(refusedKey)).toEqual({
      state: 'refused',
      code: 'INSUFFICIENT_FUNDS',
    });

    // The same key with any field of the body changed, or on another route: KEY_CONFLICT.
    for (const changed of [
      { amount: 2_001 },
      { betId: randomUUID() },
      { roundId: 'live.1.3' },
      { currency: 'USD' },
      { kind: 'adjustment' as const },
    ])
      expect(
        await adapter.credit({ ...credit, ...changed }),
        JSON.stringify(changed),
      ).toMatchObject({ outcome: 'refused', code: 'KEY_CONFLICT' });
    expect(await adapter.debit({ ...bet, key: creditKey, amount: 2_000 })).toMatchObject({
      outcome: 'refused',
      code: 'KEY_CONFLICT',
    });
    expect(await books.balanceOf('ode')).toEqual({ currency: 'EUR', balance: 6_000 });
    expectFitsTheDocument(exchanges.slice(from));
  });

  it('refuses a bad signature and a stale timestamp with the documented 401', async () => {
    const body = JSON.stringify({ key: randomUUID() });
    const post = (timestamp: string, signature: string) =>
      fetch(new URL(WALLET_ROUTES.status, url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-croupier-timestamp': timestamp,
          'x-croupier-signature': signature,
        },
        body,
      });
    const now = String(Date.now());
    expect((await post(now, signatureOf(SECRET, now, body))).status).toBe(200);
    expect(
      (await post(now, signatureOf('another-secret-0123456789abcdef0123456', now, body))).status,
    ).toBe(401);
    const stale = String(Date.now() - 600_000);
    const refused = await post(stale, signatureOf(SECRET, stale, body));
    expect(refused.status).toBe(401);
    expect(validate('#/components/schemas/Problem', await refused.json())).toBeNull();
  });
});
