import { ROLES, type Role } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../src/index.js';
import { startCasino, type Casino } from './support/casino.js';

/**
 * The gateway's OpenAPI document against the gateway itself: every operation documents its
 * roles and its problems, and what each operation really answers, as nobody, as a role it
 * refuses and as one it admits, is among what it documents, in the documented shape.
 */
const PROBLEM = 'application/problem+json';

interface Operation {
  'x-roles'?: Role[];
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/** Path parameters that name nothing: the handlers answer their real not-found problems. */
const PARAMETERS: Record<string, string> = {
  tableId: 'nowhere',
  shoeId: 'nowhere.1',
  roundId: 'nowhere.1.1',
  playerId: 'nobody',
  shoePosition: '0',
};

let casino: Casino;
let app: HttpApp;
let document: Document;

beforeAll(async () => {
  casino = await startCasino();
  app = await buildApp(casino.system);
  document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<Document>();
});
afterAll(async () => {
  await app.close();
  await casino.close();
});

function operations(): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
}

function documentedSchema(operation: Operation, status: number): unknown {
  const schema = operation.responses[String(status)]?.content?.[PROBLEM]?.schema;
  if (schema === undefined) return undefined;
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

describe("the gateway's OpenAPI document", () => {
  it('documents roles, a security requirement and problem responses on every operation', () => {
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(36);
    for (const { path, method, operation } of all) {
      const where = `${method.toUpperCase()} ${path}`;
      const roles = operation['x-roles'];
      expect(roles, where).toBeDefined();
      expect(roles!.length, where).toBeGreaterThan(0);
      expect(operation.security, where).toEqual([{ bearer: [] }]);
      const statuses = Object.keys(operation.responses).filter((s) => !s.startsWith('2'));
      expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '429', '500']));
      for (const status of statuses)
        expect(Object.keys(operation.responses[status]!.content ?? {}), where).toEqual([PROBLEM]);
    }
  });

  it('documents the paytable: its stake parameter and the effective RTP it answers', () => {
    const operation = document.paths['/v1/tables/{tableId}/paytable']?.get as
      (Operation & { parameters?: { name: string; in: string }[] }) | undefined;
    expect(operation).toBeDefined();
    expect(operation!.parameters).toContainEqual(
      expect.objectContaining({ name: 'stake', in: 'query' }),
    );
    expect(JSON.stringify(operation!.responses['200'])).toMatch(/effectiveRtp/);
  });

  it('documents every answer the operations really give, in the documented shape', async () => {
    const refusedRole = (roles: readonly Role[]) => ROLES.find((role) => !roles.includes(role))!;
    const checked = new Set<number>();
    for (const { path, method, operation } of operations()) {
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => PARAMETERS[name]!);
      const roles = operation['x-roles']!;
      for (const role of [null, refusedRole(roles), roles[0]!]) {
        const headers: Record<string, string> =
          role === null
            ? {}
            : {
                authorization: `Bearer ${await casino.system.tokens.issue({ id: `${role}-1`, role })}`,
              };
        const answer = await app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          headers,
          ...(method === 'get' ? {} : { payload: {} }),
        });
        const where = `${method.toUpperCase()} ${url} as ${role ?? 'nobody'}: ${answer.statusCode} ${answer.body.slice(0, 200)}`;
        if (answer.statusCode < 400) continue;
        const schema = documentedSchema(operation, answer.statusCode);
        expect(schema, where).toBeDefined();
        expect(answer.headers['content-type'], where).toMatch(/^application\/problem\+json/);
        const parsed = z.fromJSONSchema(schema as never).safeParse(answer.json());
        expect(parsed.error, where).toBeUndefined();
        checked.add(answer.statusCode);
      }
    }
    expect([...checked]).toEqual(expect.arrayContaining([400, 401, 403, 404]));
  });
});
