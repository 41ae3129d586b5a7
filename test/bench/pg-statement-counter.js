/**
 * Counts the SQL statements a process sends to PostgreSQL, for the benchmarks' cost per round.
 * Preloaded into a service process with `NODE_OPTIONS=--import=<this file>`; on SIGUSR2 and on
 * exit it writes its counts so far, `{ pid, statements: { kind: count } }`, to
 * `$PG_STATEMENT_COUNTS_DIR/<pid>.json`.
 *
 * The count is taken in the driver (`pg.Client#query`, which the pool's clients use too), so it
 * needs no server extension; where `pg_stat_statements` is loaded the benchmarks read that too.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import pg from 'pg';

// The same `pg` the event store loads: pnpm links one copy per version, so patching this
// module's Client patches every pool's.
const directory = process.env.PG_STATEMENT_COUNTS_DIR;
if (directory) {
  const counts = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const kind = kindOf(text);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    return original.call(this, config, ...rest);
  };
  // Written aside and renamed, so a reader never sees half a file.
  const write = () => {
    const file = join(directory, `${process.pid}.json`);
    writeFileSync(
      `${file}.tmp`,
      JSON.stringify({ pid: process.pid, statements: Object.fromEntries(counts) }),
    );
    renameSync(`${file}.tmp`, file);
  };
  process.on('SIGUSR2', write);
  process.on('exit', write);
}

/**
 * A statement's kind: the function it calls (`call append_events`), a read of the log by stream
 * or by position, or its verb and first table (`UPDATE subscriptions`), whitespace collapsed.
 */
function kindOf(text) {
  const sql = text.replace(/\s+/g, ' ').trim();
  const call = /\bFROM (?:"?\w+"?\.)?"?(\w+)"?\(/i.exec(sql);
  if (call) return `call ${call[1]}`;
  const verb = /^(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '?';
  if (['BEGIN', 'COMMIT', 'ROLLBACK', 'SET', 'SHOW', 'LISTEN'].includes(verb)) return verb;
  const table = /\b(?:FROM|INTO|UPDATE)\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(sql)?.[1];
  if (table === 'events' && /stream_name = \$1/.test(sql)) return 'read events by stream';
  if (table === 'events' && /transaction_id, e\.sequence\) >/.test(sql))
    return 'read events by position';
  if (table) return `${verb} ${table}`;
  const fn = /^SELECT (\w+)\(/i.exec(sql)?.[1];
  return fn ? `call ${fn}` : verb;
}
