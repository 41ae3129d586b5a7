/**
 * What a settled round costs, for the end-to-end and load benchmarks (issue 14): PostgreSQL
 * transactions and statements, CPU of every process (the services and every PostgreSQL server
 * process), HTTP requests. Each figure is the difference between two samples, divided by the
 * rounds settled between them.
 *
 * - Transactions come from `pg_stat_database` of a database the benchmark creates for itself, so
 *   no other work on the server is counted. PostgreSQL publishes a backend's counts when it goes
 *   idle, at most once a second, and an idle backend's within 10 s: a sample waits that out.
 * - Statements come from `pg_stat_statements` when the server loads it, and are always counted in
 *   the driver of each service (`pg-statement-counter.js`, preloaded), by kind.
 * - CPU comes from /proc: utime + stime of each service and of the PostgreSQL processes that work
 *   for this run: the backends of its own database and the server's background processes (WAL
 *   writer, checkpointer, ...: they serve every database, so a shared server's others' share is
 *   in them). Every `postgres` process of the server is reported apart (`postgresServerWide`): on
 *   a server that other runs share, that sum holds their backends too.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPostgres, withClient } from '@croupier/testkit';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used, or 0 once it is gone. */
export function cpuSeconds(pid: number | null): number {
  if (pid === null) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
  } catch {
    return 0; // exited meanwhile
  }
}

/** Process ids `pgrep` finds (none: an empty list). */
export function pgrep(...args: string[]): number[] {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of each process of a group, by pid, at one moment. */
export const groupCpu = (pids: readonly number[]): Map<number, number> =>
  new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));

/**
 * CPU seconds a group of processes used between two samples. A process that started in between
 * counts from zero (all its CPU is in the interval); one that ended in between is missed
 * (PostgreSQL backends of pools closing: rare during a run).
 */
export const groupCpuBetween = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);

/** Busy (non-idle) CPU seconds of the whole machine, all cores, from /proc/stat. */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1);
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
  const ticks = fields.slice(0, 8).map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (ticks.reduce((sum, t) => sum + t, 0) - idle) / CLOCK_TICKS;
}

/** Every PostgreSQL server process (postmaster, background workers, every backend). */
export const postgresPids = (): number[] => pgrep('-x', 'postgres');

/** A database of the benchmark's own on the test server, so its statistics count only it. */
export interface OwnDatabase {
  readonly name: string;
  readonly connectionString: string;
  /** A connection to the server's maintenance database, for reading statistics. */
  readonly adminConnectionString: string;
  drop(): Promise<void>;
}

export async function ownDatabase(label: string): Promise<OwnDatabase> {
  const server = await findPostgres();
  const name = `croupier_${label}_${randomUUID().slice(0, 8)}`;
  await withClient(server.connectionString, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(server.connectionString);
  url.pathname = `/${name}`;
  return {
    name,
    connectionString: url.toString(),
    adminConnectionString: server.connectionString,
    drop: () =>
      withClient(server.connectionString, (client) =>
        client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      ).then(() => undefined),
  };
}

/** A service process whose CPU and statements count, by its id in the results. */
export interface CostedProcess {
  readonly id: string;
  readonly pid: number | null;
}

export interface CostSample {
  readonly pgTransactions: number;
  /** From pg_stat_statements, or null when the server does not load it. */
  readonly pgStatStatements: number | null;
  /** Statements counted in each service's driver, by kind, summed over the services. */
  readonly driverStatements: Readonly<Record<string, number>>;
  readonly cpuSeconds: Readonly<Record<string, number>>;
  /** The run's own PostgreSQL processes (its database's backends, the background processes). */
  readonly postgresCpu: Map<number, number>;
  /** Every PostgreSQL process of the server, whoever it works for. */
  readonly postgresServerCpu: Map<number, number>;
  readonly machineBusySeconds: number;
}

/** Environment that makes a service process count its statements for `RoundCost`. */
export function statementCounting(directory: string): Record<string, string> {
  const preload = fileURLToPath(new URL('./pg-statement-counter.js', import.meta.url));
  return { NODE_OPTIONS: `--import=${preload}`, PG_STATEMENT_COUNTS_DIR: directory };
}

export class RoundCost {
  /** Where the services' counters write their snapshots. */
  readonly countsDirectory = mkdtempSync(join(tmpdir(), 'croupier-statements-'));

  constructor(
    private readonly database: OwnDatabase,
    private readonly processes: () => readonly CostedProcess[],
  ) {}

  /** Environment for each service process (see `statementCounting`). */
  get serviceEnv(): Record<string, string> {
    return statementCounting(this.countsDirectory);
  }

  /**
   * Samples every figure. Waits `settleMs` first (default 11 s) so that every backend has
   * published its transaction counts (PostgreSQL's idle flush interval is 10 s). With `stop`,
   * samples CPU, then stops the services (their backends exit and publish at once, their
   * counters write on exit) and reads the rest: the last sample of a run, with no idle tail.
   */
  async sample(
    options: { settleMs?: number; stop?: () => Promise<void> } = {},
  ): Promise<CostSample> {
    const { settleMs = options.stop === undefined ? 11_000 : 0, stop } = options;
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const processes = this.processes();
    const ownPids = await this.#ownPostgresPids();
    const cpu = Object.fromEntries(processes.map((p) => [p.id, cpuSeconds(p.pid)]));
    const postgresCpu = groupCpu(ownPids);
    const postgresServerCpu = groupCpu(postgresPids());
    const machine = machineBusySeconds();
    let driverStatements: Record<string, number>;
    if (stop === undefined) {
      driverStatements = await this.#driverStatements(processes);
    } else {
      await stop();
      driverStatements = this.#written(processes);
      // Exited backends publish their counts as they go; give the last a moment.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const [pgTransactions, pgStatStatements] = await this.#serverCounts();
    return {
      pgTransactions,
      pgStatStatements,
      driverStatements,
      cpuSeconds: cpu,
      postgresCpu,
      postgresServerCpu,
      machineBusySeconds: machine,
    };
  }

  /**
   * The PostgreSQL processes that work for this run: the backends connected to its database
   * (and autovacuum workers on it) and the background processes, which belong to no database.
   */
  async #ownPostgresPids(): Promise<number[]> {
    return withClient(this.database.adminConnectionString, async (client) => {
      const result = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = $1 OR (datname IS NULL AND backend_type <> 'client backend')`,
        [this.database.name],
      );
      return result.rows.map((row) => row.pid);
    });
  }

  async #serverCounts(): Promise<readonly [number, number | null]> {
    return withClient(this.database.adminConnectionString, async (client) => {
      const transactions = await client.query<{ n: string }>(
        'SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1',
        [this.database.name],
      );
      let statements: number | null;
      try {
        const result = await client.query<{ n: string | null }>(
          `SELECT sum(s.calls)::text AS n FROM pg_stat_statements s
           JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
          [this.database.name],
        );
        statements = Number(result.rows[0]?.n ?? 0);
      } catch {
        statements = null; // the extension is not loaded on this server
      }
      return [Number(transactions.rows[0]?.n ?? 0), statements] as const;
    });
  }

  /**
   * Every count the services wrote, summed by kind: on exit, or when asked (SIGUSR2). A process
   * that exited (and was perhaps restarted) keeps its file, so it counts in every later sample.
   */
  #written(processes: readonly CostedProcess[]): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const file of readdirSync(this.countsDirectory).filter((f) => f.endsWith('.json'))) {
      const parsed = JSON.parse(readFileSync(join(this.countsDirectory, file), 'utf8')) as {
        statements: Record<string, number>;
      };
      for (const [kind, count] of Object.entries(parsed.statements))
        totals[kind] = (totals[kind] ?? 0) + count;
    }
    if (processes.length > 0 && Object.keys(totals).length === 0)
      throw new Error('the services wrote no statement counts');
    return totals;
  }

  /** Asks every running service for its counts so far (SIGUSR2), then sums what is written. */
  async #driverStatements(processes: readonly CostedProcess[]): Promise<Record<string, number>> {
    for (const { pid } of processes) {
      if (pid === null) continue;
      const file = join(this.countsDirectory, `${pid}.json`);
      rmSync(file, { force: true });
      process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + 5_000;
      while (!existsSync(file) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      if (!existsSync(file)) throw new Error(`process ${pid} wrote no statement counts`);
    }
    return this.#written(processes);
  }

  /** The cost per settled round between two samples, as the benchmarks' JSON lines show it. */
  static perRound(
    before: CostSample,
    after: CostSample,
    rounds: number,
    httpRequests: number,
  ): Record<string, unknown> {
    const per = (value: number, digits = 1) =>
      rounds === 0 ? null : Number((value / rounds).toFixed(digits));
    const statements: Record<string, number> = {};
    // `stream read: <category>- <whole|after> <rows|empty>`: the stream reads again, by the kind
    // of stream, whether they read it whole or after a cached revision, and whether they found
    // anything (pg-statement-counter.js). Not statements of their own: kept apart from the sum.
    const reads: Record<string, number> = {};
    // `log read: <prefix> <types>`: the reads of the log by position, by the reader's filter.
    const logReads: Record<string, number> = {};
    // `log read empty: <prefix> <types>`: those of them that found nothing.
    const emptyLogReads: Record<string, number> = {};
    // `group commit: appends|events`: what the `append_groups` calls held (not statements).
    const grouped: Record<string, number> = {};
    for (const [kind, count] of Object.entries(after.driverStatements)) {
      const delta = count - (before.driverStatements[kind] ?? 0);
      if (delta <= 0) continue;
      if (kind.startsWith('group commit: ')) grouped[kind.slice('group commit: '.length)] = delta;
      else if (kind.startsWith('stream read: ')) reads[kind.slice('stream read: '.length)] = delta;
      else if (kind.startsWith('log read: ')) logReads[kind.slice('log read: '.length)] = delta;
      else if (kind.startsWith('log read empty: '))
        emptyLogReads[kind.slice('log read empty: '.length)] = delta;
      else statements[kind] = delta;
    }
    const statementTotal = Object.values(statements).reduce((sum, n) => sum + n, 0);
    const cpuMs: Record<string, number | null> = {};
    let totalCpu = 0;
    for (const [id, seconds] of Object.entries(after.cpuSeconds)) {
      const used = seconds - (before.cpuSeconds[id] ?? 0);
      totalCpu += used;
      cpuMs[id] = per(used * 1000);
    }
    const postgresCpu = groupCpuBetween(before.postgresCpu, after.postgresCpu);
    totalCpu += postgresCpu;
    cpuMs['postgres'] = per(postgresCpu * 1000);
    const postgresServerWide = groupCpuBetween(before.postgresServerCpu, after.postgresServerCpu);
    // An append is either a call of `append_events` (version 1, or a writer that bypasses the
    // adapter) or one item of an `append_groups` call (group commit, ADR 0021): both count, and
    // the groups, each one transaction, are reported beside them.
    const groups = statements['call append_groups'] ?? 0;
    const appends = (statements['call append_events'] ?? 0) + (grouped['appends'] ?? 0);
    const streamReads = statements['read events by stream'] ?? 0;
    return {
      pgTransactionsPerRound: per(after.pgTransactions - before.pgTransactions),
      pgStatementsPerRound: per(statementTotal),
      pgStatStatementsPerRound:
        after.pgStatStatements === null || before.pgStatStatements === null
          ? null
          : per(after.pgStatStatements - before.pgStatStatements),
      storeAppendsPerRound: per(appends),
      storeAppendGroupsPerRound: per(groups),
      appendsPerGroup:
        groups === 0 ? null : Number(((grouped['appends'] ?? 0) / groups).toFixed(2)),
      storeStreamReadsPerRound: per(streamReads),
      httpRequestsPerRound: per(httpRequests),
      cpuMsPerRound: per(totalCpu * 1000),
      cpuMsPerRoundByProcess: cpuMs,
      // Every PostgreSQL process of the server, other runs' included: the figure reported before
      // 2026-12-01 16:10 UTC as `postgres`, equal to it only on a server nobody else uses.
      postgresServerWideCpuMsPerRound: per(postgresServerWide * 1000),
      statementsPerRoundByKind: Object.fromEntries(
        Object.entries(statements)
          .sort(([, a], [, b]) => b - a)
          .map(([kind, count]) => [kind, per(count, 2)]),
      ),
      streamReadsPerRoundByCategory: Object.fromEntries(
        Object.entries(reads)
          .sort(([, a], [, b]) => b - a)
          .map(([kind, count]) => [kind, per(count, 2)]),
      ),
      logReadsPerRoundByFilter: Object.fromEntries(
        Object.entries(logReads)
          .sort(([, a], [, b]) => b - a)
          .map(([kind, count]) => [kind, per(count, 2)]),
      ),
      emptyLogReadsPerRoundByFilter: Object.fromEntries(
        Object.entries(emptyLogReads)
          .sort(([, a], [, b]) => b - a)
          .map(([kind, count]) => [kind, per(count, 2)]),
      ),
      machineBusyCpuMsPerRound: per((after.machineBusySeconds - before.machineBusySeconds) * 1000),
    };
  }

  cleanup(): void {
    rmSync(this.countsDirectory, { recursive: true, force: true });
  }
}
