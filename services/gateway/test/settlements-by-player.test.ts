import type { PlayerSettlementPage, SettlementPage } from '@croupier/wallet';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { as, startCasino, type Casino } from './support/casino.js';

/**
 * Issue 26: a mirror that misses one player's `sequence` 3 could fill it only by paging the
 * whole store by global position. It now asks for that player's messages by sequence, and gets
 * the very messages the global pages (and the queue) carry. The gateway's OpenAPI document
 * describes what a wallet answers and what a withdrawal takes, field by field.
 */
let casino: Casino;
let app: HttpApp;
const olga = as('olga', 'operator');

/** The answer as `role`; its body is read with the type the test expects. */
async function get(url: string, role: 'operator' | 'regulator' | 'player' = 'operator') {
  const token = await casino.system.tokens.issue({ id: `${role}-1`, role });
  const answer = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: answer.statusCode, body: answer.json<unknown>() };
}

async function page<T>(url: string, role: 'operator' | 'regulator' = 'operator'): Promise<T> {
  const answer = await get(url, role);
  expect(answer.status, url).toBe(200);
  return answer.body as T;
}

beforeAll(async () => {
  casino = await startCasino();
  app = await buildApp(casino.system);
  // Two players' movements interleaved, so one player's sequence is not the global order.
  for (let i = 1; i <= 3; i++)
    for (const playerId of ['ana', 'bo'])
      await casino.system.wallets.deposit(
        { playerId, amount: 1_000 * i, currency: 'EUR', reference: `${playerId}-${i}` },
        olga,
      );
  await casino.system.wallets.withdraw({ playerId: 'ana', amount: 500, reference: 'ana-w' }, olga);
});
afterAll(async () => {
  await app.close();
  await casino.close();
});

describe("one player's settlement messages by sequence", () => {
  it('are the messages the global pages list, from the sequence asked, in pages', async () => {
    const all = await page<SettlementPage>('/v1/settlements?from=0&limit=1000');
    const anas = all.messages.filter((message) => message.playerId === 'ana');
    expect(anas.map((message) => message.sequence)).toEqual([1, 2, 3, 4]);

    const first = await page<PlayerSettlementPage>(
      '/v1/settlements/players/ana?fromSequence=2&limit=2',
      'regulator',
    );
    expect(first).toEqual({
      playerId: 'ana',
      fromSequence: 2,
      nextSequence: 4,
      more: true,
      messages: anas.slice(1, 3),
    });
    const rest = await page<PlayerSettlementPage>(
      `/v1/settlements/players/ana?fromSequence=${first.nextSequence}&limit=2`,
    );
    expect(rest).toMatchObject({ nextSequence: 5, more: false, messages: anas.slice(3) });
  });

  it('are none past the last sequence, and none for a player with no wallet', async () => {
    const past = await page<PlayerSettlementPage>('/v1/settlements/players/ana?fromSequence=9');
    expect(past).toEqual({
      playerId: 'ana',
      fromSequence: 9,
      nextSequence: 9,
      more: false,
      messages: [],
    });
    const nobody = await page<PlayerSettlementPage>('/v1/settlements/players/nobody');
    expect(nobody).toMatchObject({ fromSequence: 1, nextSequence: 1, messages: [] });
  });

  it('refuses a sequence below 1 by naming it, and a player', async () => {
    const zero = await get('/v1/settlements/players/ana?fromSequence=0');
    expect(zero.status).toBe(400);
    expect(zero.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'querystring.fromSequence' })],
    });
    expect((await get('/v1/settlements/players/ana', 'player')).status).toBe(403);
  });
});

describe("the OpenAPI document of a wallet's answer and of a withdrawal", () => {
  interface Schema {
    description?: string;
    properties?: Record<string, Schema>;
    $ref?: string;
  }
  it('describes every field', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, Schema> };
    }>();
    const resolve = (schema: Schema): Schema =>
      schema.$ref === undefined
        ? schema
        : document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!;
    const wallet = document.paths['/v1/wallets/{playerId}']!['get'] as {
      responses: Record<string, { content: Record<string, { schema: Schema }> }>;
    };
    const withdrawal = document.paths['/v1/wallets/{playerId}/withdrawals']!['post'] as {
      requestBody: { content: Record<string, { schema: Schema }> };
    };
    for (const schema of [
      resolve(wallet.responses['200']!.content['application/json']!.schema),
      resolve(withdrawal.requestBody.content['application/json']!.schema),
    ]) {
      const fields = Object.entries(schema.properties ?? {});
      expect(fields.length).toBeGreaterThan(1);
      for (const [name, field] of fields) expect(resolve(field).description, name).toMatch(/\w/);
    }
  });
});
