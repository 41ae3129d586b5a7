import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { QueryResult, SqlDriver, SqlExecutor, SubscriptionSession } from '../sql/driver.js';

type Queryable = Pick<PGlite, 'query' | 'exec'> | Pick<Transaction, 'query' | 'exec'>;

async function run<Row>(
  db: Queryable,
  text: string,
  params?: readonly unknown[],
): Promise<QueryResult<Row>> {
  const result = await db.query<Row>(text, params as unknown[] | undefined);
  return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
}

function executor(db: Queryable): SqlExecutor {
  return {
    query: (text, params) => run(db, text, params),
    exec: async (script) => {
      await db.exec(script);
    },
  };
}

/**
 * The PGlite driver: PostgreSQL compiled to WebAssembly, in this process, one connection. A data
 * directory belongs to one process, so the single-active-consumer lease is an in-process set of
 * names (an advisory lock would be re-entrant on the one shared connection), and new events wake
 * subscribers in-process instead of through NOTIFY.
 */
export class PgliteDriver implements SqlDriver {
  /** Every writer is in this process, and the store wakes its subscribers itself. */
  signalAppended(): void {
    // nothing to tell other processes
  }
  readonly #db: PGlite;
  readonly #leases = new Set<string>();

  private constructor(db: PGlite) {
    this.#db = db;
  }

  /** `dataDir`: a directory (created if missing) or `memory://` for a throw-away database. */
  static async open(dataDir: string): Promise<PgliteDriver> {
    // PGlite makes its own directory but not its parents: a DATA_DIR that does not exist yet
    // (a first start with the secrets in the environment) would stop the process with ENOENT.
    if (!/^[a-z]+:\/\//.test(dataDir)) await mkdir(dataDir, { recursive: true });
    return new PgliteDriver(await PGlite.create(dataDir));
  }

  query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
    return run<Row>(this.#db, text, params);
  }

  async exec(script: string): Promise<void> {
    await this.#db.exec(script);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#db.transaction((tx) => work(executor(tx)));
  }

  openSubscriptionSession(leaseKey: string): Promise<SubscriptionSession> {
    const leases = this.#leases;
    const db = this.#db;
    let held = false;
    return Promise.resolve({
      query: <Row>(text: string, params?: readonly unknown[]) => run<Row>(db, text, params),
      exec: async (script: string) => {
        await db.exec(script);
      },
      tryAcquire: () => {
        if (!held && !leases.has(leaseKey)) {
          leases.add(leaseKey);
          held = true;
        }
        return Promise.resolve(held);
      },
      close: () => {
        if (held) leases.delete(leaseKey);
        held = false;
        return Promise.resolve();
      },
    });
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}
