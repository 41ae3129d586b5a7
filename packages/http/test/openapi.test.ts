import { DomainError, ERROR_STATUS, ROLES, type Role } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, TokenAuthority, type HttpApp } from '../src/index.js';

/**
 * The OpenAPI document states, for every operation, the problems it can answer and the roles it
 * admits; and real error bodies, unchanged by the documentation, match what it states.
 */
const tokens = new TokenAuthority('unit-test-secret-0123456789abcdef01234');
const PROBLEM = 'application/problem+json';

interface Operation {
  description?: string;
  security?: unknown[];
  'x-roles'?: Role[];
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties: Record<string, unknown> }> };
}

let app: HttpApp;
let document: Document;

beforeAll(async () => {
  app = await createHttpApp({ title: 't', version: '1', tokens, rateLimitPerMinute: 20 });
  const id = z.object({ id: z.string().regex(/^[a-z]+$/) });
  app.get(
    '/v1/open',
    {
      config: { public: true },
      schema: { summary: 'public', response: { 200: z.object({ ok: z.boolean() }) } },
    },
    () => ({ ok: true }),
  );
  app.get('/v1/things', { config: { roles: ['operator', 'regulator'] } }, () => []);
  app.get(
    '/v1/things/:id',
    { config: { roles: ['player', 'operator'] }, schema: { params: id } },
    (request) => {
      if (request.params.id === 'missing') throw new DomainError('TABLE_NOT_FOUND', 'no table');
      return { id: request.params.id };
    },
  );
  app.post(
    '/v1/things/:id/stakes',
    {
      config: { roles: ['player'] },
      schema: {
        description: 'Stakes something.',
        params: id,
        body: z.object({ amount: z.number().int().positive() }).strict(),
        // A success schema: fastify must still not serialize problems through anything.
        response: { 201: z.object({ id: z.string() }) },
      },
    },
    async (request, reply) => {
      const { amount } = request.body;
      if (amount === 7) throw new Error('secret internals');
      if (amount === 13) throw new DomainError('BETTING_CLOSED', 'betting is closed');
      if (amount > 100)
        throw new DomainError('INSUFFICIENT_FUNDS', 'not enough', { field: 'amount' });
      return reply.status(201).send({ id: request.params.id });
    },
  );
  app.post('/v1/rebuild', { config: { roles: ['operator'], problems: [] } }, () => ({}));
  app.get('/v1/anyone', {}, () => ({}));
  app.get('/v1/unlimited', { config: { roles: ['operator'], rateLimit: false } }, () => ({}));
  document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<Document>();
});
afterAll(async () => {
  await app.close();
});

const operationOf = (path: string, method: string) => {
  const operation = document.paths[path]?.[method];
  if (operation === undefined) throw new Error(`${method} ${path} is not documented`);
  return operation;
};
const problemStatuses = (operation: Operation) =>
  Object.keys(operation.responses)
    .filter((status) => !status.startsWith('2'))
    .map(Number);

/** The schema a response documents, with `$ref`s to components replaced by what they name. */
function documentedSchema(operation: Operation, status: number): unknown {
  const schema = operation.responses[String(status)]?.content?.[PROBLEM]?.schema;
  if (schema === undefined) throw new Error(`no ${PROBLEM} response for ${status}`);
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string')
      return resolve(document.components.schemas[ref.replace('#/components/schemas/', '')]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value)]));
  };
  return resolve(schema);
}

const tokenOf = (role: Role, id = `${role}-1`) =>
  tokens.issue({ id, role }).then((token) => ({ authorization: `Bearer ${token}` }));

describe('the OpenAPI document', () => {
  it('gives every operation its roles, its security and problem+json error responses', () => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations.length).toBeGreaterThanOrEqual(8);
    for (const operation of operations) {
      const roles = operation['x-roles'];
      expect(Array.isArray(roles)).toBe(true);
      expect(operation.security).toEqual(roles!.length === 0 ? [] : [{ bearer: [] }]);
      expect(operation.description).toMatch(
        roles!.length === 0
          ? /\*\*Public\*\*/
          : new RegExp(`\\*\\*Roles\\*\\*: ${roles!.join(', ')}`),
      );
      const statuses = problemStatuses(operation);
      expect(statuses).toContain(500);
      if (roles!.length > 0) expect(statuses).toContain(401);
      for (const status of statuses) {
        const response = operation.responses[String(status)]!;
        expect(Object.keys(response.content ?? {})).toEqual([PROBLEM]);
        const { allOf } = response.content![PROBLEM]!.schema as {
          allOf: [
            { $ref: string },
            { properties: { status: { enum: number[] }; code: { enum: string[] } } },
          ];
        };
        expect(allOf[0]).toEqual({ $ref: '#/components/schemas/Problem' });
        expect(allOf[1].properties.status.enum).toEqual([status]);
        for (const code of allOf[1].properties.code.enum) {
          expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(status);
          expect(response.description).toContain(`\`${code}\``);
        }
      }
    }
  });

  // Every API route has a strict query, so an unknown parameter is a 400 even where nothing else is.
  it('lists exactly the statuses each kind of route can answer', () => {
    const cases: [string, string, number[], Role[]][] = [
      ['/v1/open', 'get', [400, 429, 500, 503], []],
      ['/v1/things', 'get', [400, 401, 403, 429, 500, 503], ['operator', 'regulator']],
      ['/v1/things/{id}', 'get', [400, 401, 403, 404, 414, 429, 500, 503], ['player', 'operator']],
      [
        '/v1/things/{id}/stakes',
        'post',
        [400, 401, 403, 404, 409, 413, 414, 415, 422, 429, 500, 503],
        ['player'],
      ],
      // Declared: the handler answers no domain error of its own.
      ['/v1/rebuild', 'post', [400, 401, 403, 413, 415, 429, 500, 503], ['operator']],
      // Any valid token will do: no role is refused.
      ['/v1/anyone', 'get', [400, 401, 429, 500, 503], [...ROLES]],
      ['/v1/unlimited', 'get', [400, 401, 403, 500, 503], ['operator']],
      ['/metrics', 'get', [400, 401, 403, 429, 500, 503], ['operator', 'regulator']],
    ];
    for (const [path, method, statuses, roles] of cases) {
      const operation = operationOf(path, method);
      expect(problemStatuses(operation), `${method} ${path}`).toEqual(statuses);
      expect(operation['x-roles'], `${method} ${path}`).toEqual(roles);
    }
    expect(operationOf('/v1/things/{id}/stakes', 'post').description).toMatch(
      /^Stakes something\.\n\n\*\*Roles\*\*: player/,
    );
    expect(operationOf('/v1/open', 'get').responses['200']!.content).toBeDefined();
  });

  it('names the codes of each status, and the retry header of 429', () => {
    const stakes = operationOf('/v1/things/{id}/stakes', 'post');
    const codesOf = (status: number) =>
      (
        documentedSchema(stakes, status) as {
          allOf: { properties?: { code?: { enum: string[] } } }[];
        }
      ).allOf[1]!.properties!.code!.enum;
    expect(codesOf(400)).toEqual(['VALIDATION_ERROR']);
    expect(codesOf(422)).toContain('INSUFFICIENT_FUNDS');
    expect(codesOf(409)).toContain('BETTING_CLOSED');
    expect(codesOf(404)).not.toContain('NOT_FOUND');
    expect(stakes.responses['429']).toHaveProperty(['headers', 'retry-after']);
  });
});

describe('real error bodies', () => {
  const stakes = (payload: string, headers: Record<string, string> = {}) =>
    tokenOf('player', 'alice').then((auth) =>
      app.inject({
        method: 'POST',
        url: '/v1/things/abc/stakes',
        payload,
        headers: { 'content-type': 'application/json', ...auth, ...headers },
      }),
    );

  it('match the documented schema of their operation and status, for every status', async () => {
    const player = await tokenOf('player');
    const flooder = await tokenOf('operator', 'flooder');
    // One over the limit of 20 a minute, from a client of its own.
    let limited = await app.inject({ method: 'GET', url: '/v1/things', headers: flooder });
    for (let i = 0; i < 20; i++)
      limited = await app.inject({ method: 'GET', url: '/v1/things', headers: flooder });
    const answers: [string, string, Awaited<ReturnType<typeof stakes>>][] = [
      ['/v1/things/{id}/stakes', 'post', await stakes(JSON.stringify({ amount: -1 }))],
      ['/v1/things', 'get', await app.inject({ method: 'GET', url: '/v1/things' })],
      [
        '/v1/things',
        'get',
        await app.inject({ method: 'GET', url: '/v1/things', headers: player }),
      ],
      [
        '/v1/things/{id}',
        'get',
        await app.inject({ method: 'GET', url: '/v1/things/missing', headers: player }),
      ],
      ['/v1/things/{id}/stakes', 'post', await stakes(JSON.stringify({ amount: 13 }))],
      ['/v1/things/{id}/stakes', 'post', await stakes(JSON.stringify({ pad: 'x'.repeat(70_000) }))],
      [
        '/v1/things/{id}',
        'get',
        await app.inject({ method: 'GET', url: `/v1/things/${'a'.repeat(150)}`, headers: player }),
      ],
      [
        '/v1/things/{id}/stakes',
        'post',
        await stakes('<a/>', { 'content-type': 'application/xml' }),
      ],
      ['/v1/things/{id}/stakes', 'post', await stakes(JSON.stringify({ amount: 500 }))],
      ['/v1/things', 'get', limited],
      ['/v1/things/{id}/stakes', 'post', await stakes(JSON.stringify({ amount: 7 }))],
    ];
    const documentedFields = Object.keys(document.components.schemas.Problem!.properties);
    const seen = new Set<number>();
    for (const [path, method, answer] of answers) {
      const operation = operationOf(path, method);
      const body = answer.json<Record<string, unknown>>();
      const where = `${method} ${path} answered ${answer.statusCode} ${answer.body}`;
      expect(answer.headers['content-type'], where).toMatch(/^application\/problem\+json/);
      expect(problemStatuses(operation), where).toContain(answer.statusCode);
      const parsed = z
        .fromJSONSchema(documentedSchema(operation, answer.statusCode) as never)
        .safeParse(body);
      expect(parsed.error, where).toBeUndefined();
      // The schema leaves room for extensions; the bodies must not use it unannounced.
      for (const field of Object.keys(body)) expect(documentedFields, where).toContain(field);
      seen.add(answer.statusCode);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([
      400, 401, 403, 404, 409, 413, 414, 415, 422, 429, 500,
    ]);
  });

  it('keep their exact bodies: the documentation serializes nothing', async () => {
    const answer = await stakes(JSON.stringify({ amount: 500 }), { 'x-correlation-id': 'c-1' });
    expect(answer.statusCode).toBe(422);
    expect(answer.body).toBe(
      JSON.stringify({
        type: 'https://croupier.dev/problems/insufficient-funds',
        title: 'Insufficient funds',
        status: 422,
        code: 'INSUFFICIENT_FUNDS',
        detail: 'not enough',
        instance: '/v1/things/abc/stakes',
        correlationId: 'c-1',
        errors: [{ field: 'amount', message: 'not enough' }],
      }),
    );
  });
});
