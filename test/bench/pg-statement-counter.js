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
      // What to count once the answer is in, from its rows.
      let onRows = null;
      if (kind === 'read events by position') {
        // Which reader: its filter (stream prefix, event types), `*` where it has none; and
        // whether the read found anything (a reader woken for nothing, or before the rows it was
        // woken for are visible, reads an empty page).
        const values = Array.isArray(rest[0]) ? rest[0] : config?.values;
        const prefix = typeof values?.[2] === 'string' ? values[2] : '*';
        const types = Array.isArray(values?.[3]) ? values[3].join(',') : '*';
        const key = `log read: ${prefix} ${types}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        // A subscription's page is one row with no event when nothing matched (it carries the
        // head): empty means no row with an event.
        onRows = (result) => {
          if ((result?.rows ?? []).some((row) => row.event_id != null)) return;
          const empty = `log read empty: ${prefix} ${types}`;
          counts.set(empty, (counts.get(empty) ?? 0) + 1);
        };
      }
      if (kind === 'call append_groups') {
        // A group commit: one statement, one transaction, holding every append that arrived
        // together (its streams, $1) and their events (their ids, $6). A group sent again (after
        // a statement error) counts again: it is sent again.
        const values = Array.isArray(rest[0]) ? rest[0] : config?.values;
        const add = (key, n) => counts.set(key, (counts.get(key) ?? 0) + n);
        if (Array.isArray(values?.[0])) add('group commit: appends', values[0].length);
        if (Array.isArray(values?.[5])) add('group commit: events', values[5].length);
      }
      if (kind === 'read events by stream') {
        // Which kind of stream (the name up to its first '-': round, wallet, table, shoe…) and
        // whether the read found anything: where each read of a round comes from.
        const values = Array.isArray(rest[0]) ? rest[0] : config?.values;
        const stream = typeof values?.[0] === 'string' ? values[0] : '?';
        const category = stream.split('-')[0];
        const from = values?.[1] === null || values?.[1] === undefined ? 'whole' : 'after';
        onRows = (result) => {
          const rows = result?.rowCount ?? 0;
          const key = `stream read: ${category}- ${from} ${rows > 0 ? 'rows' : 'empty'}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        };
      }
      if (onRows !== null) {
        const counted = onRows;
        const last = rest.at(-1);
        if (typeof last === 'function') {
          rest[rest.length - 1] = (error, result) => {
            if (!error) counted(result);
            return last(error, result);
          };
        } else {
          const pending = original.call(this, config, ...rest);
          if (pending && typeof pending.then === 'function')
            pending.then((result) => counted(result)).catch(() => undefined);
          return pending;
        }
      }
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
