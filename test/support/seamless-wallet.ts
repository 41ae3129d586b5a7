import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Books, buildWalletServer } from '@croupier/example-seamless-wallet';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';

export const OPERATOR_SECRET = 'seamless-test-secret-0123456789abcdef0123';
const ADMIN = 'seamless-admin-token';

/**
 * What the network between Croupier and the operator's wallet does to a call, by route name
 * (`debit`, `credit`, `rollback`, `status`): `pass`; `down` (the connection is cut before the
 * wallet sees the request); `lose-answer` (the wallet applies the call, its answer never
 * arrives); an `answer` of the relay's own in place of the wallet's (a proxy's 502, a wallet's
 * 401 or 400, a refusal with a code of its own), with `applied` the wallet applies the call
 * first and its own answer is dropped.
 */
export type Fault = 'pass' | 'down' | 'lose-answer';
export interface RelayAnswer {
  readonly answer: number;
  readonly body: unknown;
  readonly applied?: boolean;
}

/**
 * Requests of one route held at the relay before the wallet sees them, in the order they
 * arrived, each let through when the test says: a latch, so a test orders a race's steps
 * instead of timing them.
 */
export interface HeldCalls {
  /** Resolves once `count` requests have been held (the first held is 0). */
  arrived(count: number): Promise<void>;
  /** The JSON body of held request `index`. */
  bodyOf(index: number): Record<string, unknown>;
  /** How many requests have been held so far. */
  count(): number;
  /** Lets held request `index` through; resolves once the wallet's answer is sent back. */
  release(index: number): Promise<void>;
  /** Stops holding: every request still held goes through, and the next ones pass. */
  stop(): void;
}

/** The example operator wallet on PostgreSQL, reached through a relay the test can break. */
export interface OperatorWalletFixture {
  /** Where Croupier calls it (the relay). */
  readonly url: string;
  readonly books: Books;
  /** Sets a fault for some routes, or every route. */
  fault(fault: Fault | RelayAnswer, routes?: readonly string[]): void;
  /** Holds the requests of a route (`debit`, `credit`, ...) until released. */
  hold(route: string): HeldCalls;
  /** Holds every request this long before passing it on: a slow wallet (0: none). */
  delay(ms: number): void;
  /** Requests that reached the relay, by route. */
  readonly seen: Map<string, number>;
  /** How many requests under an idempotency key reached the relay (sent again, counted again). */
  sentUnder(key: string): number;
  open(playerId: string, balance: number, currency?: string): Promise<void>;
  balance(playerId: string): Promise<number>;
  /** The wallet's call rows for a bet. */
  callsOf(betId: string): Promise<{ call: string; state: string; amount: number }[]>;
  close(): Promise<void>;
}

export async function startOperatorWallet(): Promise<OperatorWalletFixture> {
  const postgres: IsolatedPostgres = await isolatedPostgres('seamless');
  const books = new Books({ connectionString: postgres.connectionString, schema: postgres.schema });
  await books.migrate();
  const app = await buildWalletServer({ books, secret: OPERATOR_SECRET, adminToken: ADMIN });
  const upstream = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  const faults = new Map<string, Fault | RelayAnswer>();
  const seen = new Map<string, number>();
  const keys = new Map<string, number>();
  const holds = new Map<string, (body: Buffer, pass: () => Promise<void>) => void>();
  let delayMs = 0;
  const relay: Server = createServer((req, res) => {
    const route = (req.url ?? '').split('/').at(-1) ?? '';
    seen.set(route, (seen.get(route) ?? 0) + 1);
    const fault = faults.get(route) ?? faults.get('*') ?? 'pass';
    if (fault === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = keyOf(body);
      if (key !== null) keys.set(key, (keys.get(key) ?? 0) + 1);
      const pass = () =>
        new Promise<void>((answered) => {
          res.on('close', answered);
          if (typeof fault === 'object' && fault.applied !== true) answerWith(res, fault);
          else forward(req, res, fault, body);
        });
      const hold = holds.get(route);
      if (hold !== undefined) hold(body, pass);
      else if (delayMs === 0) void pass();
      // A slow wallet: the request reaches it this much later.
      else setTimeout(() => void pass(), delayMs);
    });
  });
  /** Sends a request on to the wallet, and its answer back unless the fault loses it. */
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    fault: Fault | RelayAnswer,
    body: Buffer,
  ) => {
    const upstreamCall = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          if (fault === 'lose-answer') {
            res.socket?.destroy();
            return;
          }
          if (typeof fault === 'object') {
            answerWith(res, fault);
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    upstreamCall.on('error', () => res.socket?.destroy());
    upstreamCall.end(body);
  };
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    books,
    seen,
    sentUnder: (key) => keys.get(key) ?? 0,
    fault(fault, routes = ['*']) {
      if (routes.includes('*')) faults.clear();
      for (const route of routes) faults.set(route, fault);
    },
    delay(ms) {
      delayMs = ms;
    },
    hold(route) {
      const held: { body: Buffer; pass: () => Promise<void>; passed: boolean }[] = [];
      const waiting: { count: number; resolve: () => void }[] = [];
      holds.set(route, (body, pass) => {
        held.push({ body, pass, passed: false });
        for (const waiter of waiting.filter((w) => held.length >= w.count)) waiter.resolve();
      });
      const letThrough = (index: number) => {
        const call = held[index];
        if (call === undefined) throw new Error(`no ${route} request ${index} is held`);
        if (call.passed) return Promise.resolve();
        call.passed = true;
        return call.pass();
      };
      return {
        arrived: (count) =>
          held.length >= count
            ? Promise.resolve()
            : new Promise<void>((resolve) => waiting.push({ count, resolve })),
        bodyOf: (index) =>
          JSON.parse(held[index]!.body.toString('utf8')) as Record<string, unknown>,
        count: () => held.length,
        release: letThrough,
        stop() {
          holds.delete(route);
          held.forEach((_, index) => void letThrough(index));
        },
      };
    },
    open: (playerId, balance, currency = 'EUR') => books.setBalance(playerId, currency, balance),
    async balance(playerId) {
      return (await books.balanceOf(playerId))?.balance ?? Number.NaN;
    },
    async callsOf(betId) {
      return (await books.callsOfBet(betId)).map(({ call, state, amount }) => ({
        call,
        state,
        amount,
      }));
    },
    async close() {
      relay.closeAllConnections();
      await new Promise<void>((resolve) => {
        relay.close(() => {
          resolve();
        });
      });
      await app.close();
      await books.close();
      await postgres.drop();
    },
  };
}

/** The relay's own answer, in place of the wallet's. */
function answerWith(res: ServerResponse, fault: { answer: number; body: unknown }): void {
  res.writeHead(fault.answer, { 'content-type': 'application/json' });
  res.end(JSON.stringify(fault.body));
}

/** The idempotency key a call's JSON body names, or null (not JSON, no key). */
function keyOf(body: Buffer): string | null {
  try {
    const key = (JSON.parse(body.toString('utf8')) as { key?: unknown } | null)?.key;
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}
