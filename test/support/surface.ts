import { createHmac } from 'node:crypto';
import { NOTARY_STREAM, type Role } from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';
import type { System } from '@croupier/gateway';
import { createHttpApp, type HttpApp } from '@croupier/http';
import { shoeInternalRoutes } from '@croupier/shoe';
import { walletInternalRoutes } from '@croupier/wallet';
import { expect } from 'vitest';
import { allEvents } from './invariants.js';

/** The whole HTTP surface of Croupier, as tests of hostile input and access enumerate it. */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface Endpoint {
  readonly method: Method;
  /** The route template, e.g. `/v1/rounds/:roundId/bets`. */
  readonly url: string;
  /**
   * What serves it. In one process: `gateway` or `internal` (the services' internal routes, an
   * app of their own here). In the distributed deployment: the process's id (`round`,
   * `settlement-2`, `gateway`, ...).
   */
  readonly surface: string;
}

/**
 * Every route of an app, read from `printRoutes` so that a route added tomorrow is covered by
 * tomorrow's run. HEAD (fastify's automatic twin of GET) and wildcards are left out.
 */
export function endpointsOf(app: HttpApp, surface: Endpoint['surface']): Endpoint[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const endpoints: Endpoint[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const url = (stack[depth - 1] ?? '') + match[2]!;
    stack.push(url);
    if (url.includes('*') || match[3] === undefined) continue;
    for (const method of match[3].split(', ')) {
      if (method !== 'HEAD') endpoints.push({ method: method as Method, url, surface });
    }
  }
  return endpoints;
}

/** The internal routes the services expose to each other, over the same System. */
export async function internalApp(system: System, rateLimitPerMinute = 0): Promise<HttpApp> {
  const app = await createHttpApp({
    title: 'Croupier internal routes',
    version: '1',
    tokens: system.tokens,
    rateLimitPerMinute,
    failedLoginsPerMinute: system.config.RATE_LIMIT_FAILED_LOGINS_PER_MINUTE,
  });
  shoeInternalRoutes(app, { shoes: system.shoes });
  walletInternalRoutes(app, { wallets: system.wallets });
  return app;
}

/** A process of the distributed deployment, as the tests reach it. */
export interface DeployedProcess {
  readonly id: string;
  readonly service: string;
  readonly url: string;
}

/**
 * The endpoints of the distributed deployment, as an Ingress routes them (infra/k8s): each
 * service process with the routes it serves among `routes` ("METHOD /template"), the gateway
 * (when it runs) with the routes no service serves, and the routes every process has (probes,
 * /docs, /metrics) on every process. A process serves a route when, asked without a token, it
 * answers anything but the router's 404 NOT_FOUND: a route it has answers 401 before any
 * handler runs, or is public.
 */
export async function deploymentEndpoints(
  processes: readonly DeployedProcess[],
  routes: readonly string[],
): Promise<Endpoint[]> {
  const served = new Map<string, Set<string>>();
  for (const process of processes) {
    const own = new Set<string>();
    for (const route of routes) {
      const [method, url] = route.split(' ') as [Method, string];
      const filled = fillPath(
        url,
        Object.fromEntries(paramsOf(url).map((name) => [name, `probe-${name}`])),
      );
      const answer = await deliver(process.url, { method, url: filled, headers: {} });
      const notFound =
        answer.statusCode === 404 &&
        (JSON.parse(answer.body || '{}') as { code?: string }).code === 'NOT_FOUND';
      if (!notFound) own.add(route);
    }
    served.set(process.id, own);
  }
  const services = processes.filter((p) => p.service !== 'gateway');
  const everywhere = routes.filter((route) => services.every((p) => served.get(p.id)!.has(route)));
  const byAService = new Set(services.flatMap((p) => [...served.get(p.id)!]));
  const endpoints: Endpoint[] = [];
  for (const process of processes) {
    for (const route of served.get(process.id)!) {
      const routed =
        process.service !== 'gateway' || everywhere.includes(route) || !byAService.has(route);
      if (!routed) continue;
      const [method, url] = route.split(' ') as [Method, string];
      endpoints.push({ method, url, surface: process.id });
    }
  }
  return endpoints;
}

/** Who serves a surface: an app in this process (fastify's inject), or a process's base URL. */
export type Server = HttpApp | string;

/** One request, written out whole. */
export interface RawRequest {
  readonly method: Method;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** A string is sent as it is (with the headers' content-type); an object as JSON. */
  readonly payload?: string | object;
}

/** An answer, as fastify's inject gives it. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/**
 * Sends a request as it is written, to an app in this process or over HTTP to a process of the
 * distributed deployment (redirects are not followed, as inject does not). Rejects when no
 * answer comes within `timeoutMs`.
 */
export async function deliver(
  server: Server,
  request: RawRequest,
  timeoutMs = 10_000,
): Promise<Answer> {
  if (typeof server !== 'string') {
    let timer: NodeJS.Timeout | undefined;
    const response = await Promise.race([
      server.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    ]).finally(() => {
      clearTimeout(timer);
    });
    return { statusCode: response.statusCode, headers: response.headers, body: response.body };
  }
  const json = typeof request.payload === 'object';
  const response = await fetch(`${server}${request.url}`, {
    method: request.method,
    headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...request.headers },
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
    ...(request.payload === undefined
      ? {}
      : { body: json ? JSON.stringify(request.payload) : request.payload }),
  });
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

/** Fills a route template's parameters. */
export function fillPath(url: string, params: Readonly<Record<string, string>>): string {
  return url.replace(/:([A-Za-z]+)/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${url}`);
    return value;
  });
}

/** The parameter names of a route template. */
export function paramsOf(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A JWT signed by hand (HS256, or unsigned with alg "none"), to present the API with tokens
 * TokenAuthority would never issue: other issuers, audiences, algorithms, no subject.
 */
export function handMadeToken(
  payload: Record<string, unknown>,
  secret: string,
  alg: 'HS256' | 'none' = 'HS256',
): string {
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${base64url({ alg, typ: 'JWT' })}.${base64url({
    iss: 'croupier',
    aud: 'croupier-api',
    iat: now,
    exp: now + 600,
    ...payload,
  })}`;
  if (alg === 'none') return `${unsigned}.`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** Every role of the API, the services' `system` included. */
export const ALL_ROLES: readonly Role[] = [
  'player',
  'dealer',
  'supervisor',
  'operator',
  'regulator',
  'system',
];

/** Events appended after `after`, outside the security log (failed logins are recorded there). */
export async function eventsAfter(
  store: EventStore,
  after: bigint | undefined,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({
      ...(cursor === undefined ? {} : { after: cursor }),
      limit: 1_000,
    });
    events.push(...page);
    if (page.length < 1_000) return events;
    cursor = page.at(-1)!.position;
  }
}

/** The store's last position (undefined while it is empty). */
export async function lastPosition(store: EventStore): Promise<bigint | undefined> {
  // Read until the store agrees with itself: see allEvents.
  return (await allEvents(store)).at(-1)?.position;
}

/**
 * Whether an event belongs to the game's state rather than to the security log or the notary's
 * checkpoints (recorded every minute whatever the requests, ADR 0024).
 */
export const isStateEvent = (event: RecordedEvent): boolean =>
  !event.stream.startsWith('security-') && event.stream !== NOTARY_STREAM;

/** Asserts a refusal is a 4xx problem+json whose body repeats its status and a stable code. */
export function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  what: string,
): { code: string; status: number; detail: string } {
  expect(response.statusCode, what).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, what).toBeLessThan(500);
  expect(String(response.headers['content-type']), what).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(response.body) as { code: string; status: number; detail: string };
  expect(problem.status, what).toBe(response.statusCode);
  expect(problem.code, what).toMatch(/^[A-Z_]+$/);
  return problem;
}
