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
 * arrives).
 */
export type Fault = 'pass' | 'down' | 'lose-answer';

/** The example operator wallet on PostgreSQL, reached through a relay the test can break. */
export interface OperatorWalletFixture {
  /** Where Croupier calls it (the relay). */
  readonly url: string;
  readonly books: Books;
  /** Sets a fault for some routes, or every route. */
  fault(fault: Fault, routes?: readonly string[]): void;
  /** Holds every request this long before passing it on: a slow wallet (0: none). */
  delay(ms: number): void;
  /** Requests that reached the relay, by route. */
  readonly seen: Map<string, number>;
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
  const faults = new Map<string, Fault>();
  const seen = new Map<string, number>();
  let delayMs = 0;
  const relay: Server = createServer((req, res) => {
    const route = (req.url ?? '').split('/').at(-1) ?? '';
    seen.set(route, (seen.get(route) ?? 0) + 1);
    const fault = faults.get(route) ?? faults.get('*') ?? 'pass';
    if (fault === 'down') {
      req.socket.destroy();
      return;
    }
    // A slow wallet: the request waits before it reaches the wallet (the body waits with it).
    if (delayMs === 0) {
      forwardTo(req, res, fault);
      return;
    }
    req.pause();
    setTimeout(() => {
      forwardTo(req, res, fault);
    }, delayMs);
  });
  const forwardTo = (req: IncomingMessage, res: ServerResponse, fault: Fault) => {
    const forward = httpRequest(
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
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => res.socket?.destroy());
    req.pipe(forward);
    // Piping resumes a request paused for the delay.
  };
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    books,
    seen,
    fault(fault, routes = ['*']) {
      if (routes.includes('*')) faults.clear();
      for (const route of routes) faults.set(route, fault);
    },
    delay(ms) {
      delayMs = ms;
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
