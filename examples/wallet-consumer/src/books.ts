import pg from 'pg';
import { effectOf, type SettlementMessage } from './message.js';

/** A player's mirrored balance, and whether it is complete enough to compare with Croupier's. */
export interface MirroredWallet {
  readonly currency: string;
  readonly balance: number;
  readonly commissionOwed: number;
  /** Messages applied: the sequences 1..n all present when `lastSequence` equals it. */
  readonly messages: number;
  readonly lastSequence: number;
  /** The `balance` Croupier stated on the message with the highest sequence. */
  readonly lastStatedBalance: number;
}

/**
 * The wallet's own books in PostgreSQL: a mirror of Croupier's balances. A message is applied in
 * one transaction that records its id (unique) and moves the money: applied once whatever the
 * bus, a retry, a second consumer process or a reconciliation run delivers again.
 */
export class Books {
  private readonly pool: pg.Pool;
  private readonly schema: string;

  constructor(options: { connectionString: string; schema?: string }) {
    this.schema = options.schema ?? 'wallet_mirror';
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
        sequence    bigint NOT NULL,
        currency    char(3) NOT NULL,
        amount      bigint NOT NULL,
        commission_owed_delta bigint NOT NULL,
        stated_balance bigint NOT NULL,
        source      text NOT NULL,
        applied_at  timestamptz NOT NULL DEFAULT now(),
        UNIQUE (player_id, sequence)
      );
      CREATE TABLE IF NOT EXISTS ${s}.balances (
        player_id   text PRIMARY KEY,
        currency    char(3) NOT NULL,
        balance     bigint NOT NULL DEFAULT 0,
        commission_owed bigint NOT NULL DEFAULT 0
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
           (message_id, position, event_id, kind, player_id, sequence, currency, amount,
            commission_owed_delta, stated_balance, source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (message_id) DO NOTHING`,
        [
          message.messageId,
          message.position,
          message.eventId,
          message.kind,
          message.playerId,
          message.sequence,
          message.currency,
          credit,
          commissionOwed,
          message.balance,
          source,
        ],
      );
      if (inserted.rowCount === 1) {
        await client.query(
          `INSERT INTO ${s}.balances (player_id, currency, balance, commission_owed)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (player_id) DO UPDATE
             SET balance = balances.balance + EXCLUDED.balance,
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

  /** Every mirrored wallet, with what is needed to tell a complete one from one with gaps. */
  async wallets(): Promise<Map<string, MirroredWallet>> {
    const { rows } = await this.pool.query<{
      player_id: string;
      currency: string;
      balance: string;
      commission_owed: string;
      messages: string;
      last_sequence: string;
      last_stated_balance: string;
    }>(
      `SELECT b.player_id, b.currency, b.balance, b.commission_owed,
              count(m.*) AS messages, max(m.sequence) AS last_sequence,
              (SELECT stated_balance FROM ${this.schema}.applied_messages l
                WHERE l.player_id = b.player_id ORDER BY l.sequence DESC LIMIT 1) AS last_stated_balance
         FROM ${this.schema}.balances b
         JOIN ${this.schema}.applied_messages m ON m.player_id = b.player_id
        GROUP BY b.player_id, b.currency, b.balance, b.commission_owed`,
    );
    return new Map(
      rows.map((row) => [
        row.player_id,
        {
          currency: row.currency,
          balance: Number(row.balance),
          commissionOwed: Number(row.commission_owed),
          messages: Number(row.messages),
          lastSequence: Number(row.last_sequence),
          lastStatedBalance: Number(row.last_stated_balance),
        },
      ]),
    );
  }

  /**
   * Players whose mirror disagrees with itself: a sequence is missing (a gap: reconcile), or
   * every message is there and the balance is not the one Croupier stated on the last.
   */
  async problems(): Promise<string[]> {
    const problems: string[] = [];
    for (const [player, wallet] of await this.wallets()) {
      if (wallet.messages !== wallet.lastSequence)
        problems.push(
          `${player}: ${wallet.lastSequence - wallet.messages} message(s) missing below ${wallet.lastSequence}`,
        );
      else if (wallet.balance !== wallet.lastStatedBalance)
        problems.push(
          `${player}: mirrored ${wallet.balance}, Croupier stated ${wallet.lastStatedBalance}`,
        );
    }
    return problems;
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
