import pg from 'pg';
import { effectOf, type SettlementMessage } from './message.js';

/**
 * The wallet's own books in PostgreSQL. A message is applied in one transaction that records its
 * id (unique) and moves the money: applied once whatever the bus, a retry, a second consumer
 * process or a reconciliation run delivers again.
 */
export class Books {
  private readonly pool: pg.Pool;
  private readonly schema: string;

  constructor(options: { connectionString: string; schema?: string }) {
    this.schema = options.schema ?? 'wallet_example';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.schema)) throw new RangeError('bad schema name');
    this.pool = new pg.Pool({ connectionString: options.connectionString, max: 8 });
  }

  /** Creates the tables when missing. */
  async migrate(): Promise<void> {
    const s = this.schema;
    await this.pool.query(`
      CREATE SCHEMA IF NOT EXISTS ${s};
      CREATE TABLE IF NOT EXISTS ${s}.applied_messages (
        message_id  uuid PRIMARY KEY,
        position    numeric(39, 0) NOT NULL,
        event_id    uuid NOT NULL,
        kind        text NOT NULL,
        player_id   text NOT NULL,
        bet_id      uuid NOT NULL,
        currency    char(3) NOT NULL,
        credit      bigint NOT NULL,
        commission_owed bigint NOT NULL,
        source      text NOT NULL,
        applied_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS ${s}.balances (
        player_id   text NOT NULL,
        currency    char(3) NOT NULL,
        credited    bigint NOT NULL DEFAULT 0,
        commission_owed bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (player_id, currency)
      );
      CREATE TABLE IF NOT EXISTS ${s}.reconcile_cursor (
        singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        position    numeric(39, 0) NOT NULL
      );`);
  }

  /** Applies a message once. True if it was new, false if it had been applied before. */
  async apply(message: SettlementMessage, source: 'queue' | 'reconcile'): Promise<boolean> {
    const s = this.schema;
    const { credit, commissionOwed } = effectOf(message);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO ${s}.applied_messages
           (message_id, position, event_id, kind, player_id, bet_id, currency, credit, commission_owed, source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (message_id) DO NOTHING`,
        [
          message.messageId,
          message.position,
          message.eventId,
          message.kind,
          message.playerId,
          message.betId,
          message.currency,
          credit,
          commissionOwed,
          source,
        ],
      );
      if (inserted.rowCount === 1) {
        await client.query(
          `INSERT INTO ${s}.balances (player_id, currency, credited, commission_owed)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (player_id, currency) DO UPDATE
             SET credited = balances.credited + EXCLUDED.credited,
                 commission_owed = balances.commission_owed + EXCLUDED.commission_owed`,
          [message.playerId, message.currency, credit, commissionOwed],
        );
      }
      await client.query('COMMIT');
      return inserted.rowCount === 1;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Credited amounts per player (this example's books: what Croupier's messages paid out). */
  async balances(): Promise<Map<string, { credited: number; commissionOwed: number }>> {
    const { rows } = await this.pool.query<{
      player_id: string;
      credited: string;
      commission_owed: string;
    }>(`SELECT player_id, credited, commission_owed FROM ${this.schema}.balances`);
    return new Map(
      rows.map((row) => [
        row.player_id,
        { credited: Number(row.credited), commissionOwed: Number(row.commission_owed) },
      ]),
    );
  }

  async appliedIds(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ message_id: string }>(
      `SELECT message_id FROM ${this.schema}.applied_messages`,
    );
    return new Set(rows.map((row) => row.message_id));
  }

  /** The reconciliation cursor: every message up to it is applied. '0' before the first run. */
  async cursor(): Promise<string> {
    const { rows } = await this.pool.query<{ position: string }>(
      `SELECT position::text AS position FROM ${this.schema}.reconcile_cursor`,
    );
    return rows[0]?.position ?? '0';
  }

  async saveCursor(position: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.schema}.reconcile_cursor (singleton, position) VALUES (true, $1)
       ON CONFLICT (singleton) DO UPDATE SET position = GREATEST(reconcile_cursor.position, EXCLUDED.position)`,
      [position],
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
