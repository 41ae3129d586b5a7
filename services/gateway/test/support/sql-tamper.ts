import { digestValueOf } from '@croupier/audit';
import { roundIdOf, streams } from '@croupier/contracts';
import { chainHash, GENESIS_HASH, untilReadable, type EventStore } from '@croupier/eventstore';
import { withClient, type IsolatedPostgres } from '@croupier/testkit';

/**
 * What an insider with write access to the PostgreSQL events table does, in SQL: read a stream's
 * rows, change them, recompute every hash from the genesis on (sha256 has no key) and store the
 * new head, so the stream's own chain verifies again. Rows keep their global positions
 * (transaction id, sequence) unless the tampering gives them new ones.
 */
export interface Row {
  /** Global position: transaction id and sequence; null inserts the row as a new one. */
  xid: string | null;
  seq: string | null;
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recordedAt: Date | null;
}

/** One row as the pg driver returns it. */
interface EventRow {
  xid: string;
  seq: string;
  id: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export class SqlTamper {
  /**
   * `store` is the store the test reads: each tampering returns once that store's log is
   * readable past it, as an append returns once committed. Rows inserted with new positions
   * commit above what any transaction still running on the server holds back (ADR 0048), and a
   * read of the log before that would miss them.
   */
  constructor(
    private readonly postgres: IsolatedPostgres,
    private readonly store: EventStore,
  ) {}

  /**
   * Runs SQL against the isolated schema; `EVENTS` and `STREAMS` name its tables. A tampering:
   * returns once the log is readable past it.
   */
  async sql<R extends object = Record<string, unknown>>(
    text: string,
    params: unknown[] = [],
  ): Promise<R[]> {
    const rows = await this.#query<R>(text, params);
    await untilReadable(this.store);
    return rows;
  }

  /** A query that changes nothing: nothing to wait for. */
  async #query<R extends object>(text: string, params: unknown[]): Promise<R[]> {
    const { schema, connectionString } = this.postgres;
    const result = await withClient(connectionString, (client) =>
      client.query<R>(
        text
          .replaceAll('EVENTS', `"${schema}".events`)
          .replaceAll('STREAMS', `"${schema}".streams`),
        params,
      ),
    );
    return result.rows;
  }

  async rows(stream: string): Promise<Row[]> {
    const found = await this.#query<EventRow>(
      `SELECT transaction_id::text AS xid, sequence::text AS seq, event_id::text AS id,
              event_type, data, metadata, recorded_at
         FROM EVENTS WHERE stream_name = $1 ORDER BY stream_revision`,
      [stream],
    );
    return found.map((row) => ({
      xid: row.xid,
      seq: row.seq,
      id: row.id,
      type: row.event_type,
      data: row.data,
      metadata: row.metadata,
      recordedAt: row.recorded_at,
    }));
  }

  /** Rewrites a stream with a consistently recomputed chain and head (an empty result deletes it). */
  async rewrite(stream: string, edit: (rows: Row[]) => Row[] | undefined): Promise<void> {
    const before = await this.rows(stream);
    const after = edit(before) ?? before;
    let prevHash = GENESIS_HASH;
    const chained = after.map((row) => {
      const { prevHash: _prev, hash: _hash, ...metadata } = row.metadata;
      const hash = chainHash(prevHash, { type: row.type, data: row.data, metadata });
      const out = { ...row, metadata: { ...metadata, prevHash, hash } };
      prevHash = hash;
      return out;
    });
    const { schema, connectionString } = this.postgres;
    await withClient(connectionString, async (client) => {
      const events = `"${schema}".events`;
      await client.query('BEGIN');
      await client.query(`DELETE FROM ${events} WHERE stream_name = $1`, [stream]);
      for (const [revision, row] of chained.entries()) {
        const values = [
          row.id,
          stream,
          revision,
          row.type,
          JSON.stringify(row.data),
          JSON.stringify(row.metadata),
        ];
        if (row.xid === null) {
          await client.query(
            `INSERT INTO ${events} (event_id, stream_name, stream_revision, event_type, data, metadata)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            values,
          );
        } else {
          await client.query(
            `INSERT INTO ${events} (event_id, stream_name, stream_revision, event_type, data, metadata,
                                    transaction_id, sequence, recorded_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7::xid8, $8, $9)`,
            [...values, row.xid, row.seq, row.recordedAt ?? new Date()],
          );
        }
      }
      if (chained.length === 0) {
        await client.query(`DELETE FROM "${schema}".streams WHERE stream_name = $1`, [stream]);
      } else {
        await client.query(
          `UPDATE "${schema}".streams SET revision = $2, last_hash = $3, prev_last_hash = $4
            WHERE stream_name = $1`,
          [stream, chained.length - 1, prevHash, chained.at(-2)?.metadata['hash'] ?? GENESIS_HASH],
        );
      }
      await client.query('COMMIT');
    });
    await untilReadable(this.store);
  }

  /** Recomputes ShoeClosed's digest from the current heads and re-hashes the shoe stream. */
  async reseal(shoeId: string): Promise<void> {
    const shoeStream = streams.shoe(shoeId);
    const shoe = await this.rows(shoeStream);
    const closeAt = shoe.findIndex((row) => row.type === 'ShoeClosed');
    const entries: { stream: string; revision: string; hash: string }[] = [];
    let prevHash = GENESIS_HASH;
    for (const row of shoe.slice(0, closeAt)) {
      const { prevHash: _prev, hash: _hash, ...metadata } = row.metadata;
      prevHash = chainHash(prevHash, { type: row.type, data: row.data, metadata });
    }
    entries.push({ stream: shoeStream, revision: String(closeAt - 1), hash: prevHash });
    for (let number = 1; ; number++) {
      const round = await this.rows(streams.round(roundIdOf(shoeId, number)));
      if (round.length === 0) break;
      entries.push({
        stream: streams.round(roundIdOf(shoeId, number)),
        revision: String(round.length - 1),
        hash: String(round.at(-1)?.metadata['hash']),
      });
    }
    await this.rewrite(shoeStream, (rows) => {
      rows[closeAt]!.data['digest'] = {
        algorithm: 'sha256/jcs',
        streams: entries,
        value: digestValueOf(entries),
      };
      return rows;
    });
  }
}
