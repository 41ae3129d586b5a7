import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** What the wallet answers a call: applied (now or before, under this key) or refused. */
export type Answer =
  | { status: 'applied'; transactionId: string; balance: number }
  | { status: 'refused'; code: RefusalCode; detail: string };

export type RefusalCode =
  'INSUFFICIENT_FUNDS' | 'PLAYER_UNKNOWN' | 'CURRENCY_MISMATCH' | 'ROLLED_BACK' | 'KEY_CONFLICT';

export type CallState =
  | { state: 'applied'; transactionId: string }
  | { state: 'rolled-back'; transactionId: string }
  | { state: 'refused'; code: string }
  | { state: 'unknown' };

interface Movement {
  readonly key: string;
  readonly playerId: string;
  readonly roundId: string;
  readonly betId: string;
  readonly amount: number;
  readonly currency: string;
}
export type Debit = Movement;
export interface Credit extends Movement {
  readonly kind: 'settlement' | 'adjustment';
}
export interface Rollback extends Movement {
  readonly debitKey: string;
}

interface CallRow {
  call: string;
  fingerprint: string | null;
  state: 'applied' | 'refused' | 'rolled-back';
  code: string | null;
  transaction_id: string | null;
  balance: string | null;
}

/**
 * The operator's books in PostgreSQL: players' balances and every call by its idempotency key.
 * Each call runs in one transaction that first locks the player's row, so calls for one player
 * are applied one at a time and a key is applied once: the same key again gets the first answer.
 */
export class Books {
  private readonly s: string;
  private readonly pool: pg.Pool;

  constructor(options: { connectionString: string; schema?: string }) {
    const schema = options.schema ?? 'seamless_wallet';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new RangeError('bad schema name');
    this.s = schema;
    this.pool = new pg.Pool({ connectionString: options.connectionString, max: 8 });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Every call recorded for a bet, oldest first: what an operator looks at in a dispute. */
  async callsOfBet(
    betId: string,
  ): Promise<{ key: string; call: string; state: string; amount: number }[]> {
    const { rows } = await this.pool.query<{
      key: string;
      call: string;
      state: string;
      amount: string;
    }>(`SELECT key, call, state, amount FROM ${this.s}.calls WHERE bet_id = $1 ORDER BY at, key`, [
      betId,
    ]);
    return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
  }

  /** Creates the tables when missing. */
  async migrate(): Promise<void> {
    const s = this.s;
    await this.pool.query(`
      CREATE SCHEMA IF NOT EXISTS ${s};
      CREATE TABLE IF NOT EXISTS ${s}.players (
        player_id  text PRIMARY KEY,
        currency   char(3) NOT NULL,
        balance    bigint NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${s}.calls (
        key             uuid PRIMARY KEY,
        call            text NOT NULL,
        player_id       text NOT NULL,
        round_id        text,
        bet_id          uuid,
        amount          bigint NOT NULL,
        -- the request as first received: the same key with another request is refused
        fingerprint     text,
        state           text NOT NULL,
        code            text,
        transaction_id  text,
        balance         bigint,
        at              timestamptz NOT NULL DEFAULT now()
      );`);
  }

  /** Opens a player's account or sets its balance (the operator's cashier, not Croupier). */
  async setBalance(playerId: string, currency: string, balance: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.s}.players (player_id, currency, balance) VALUES ($1, $2, $3)
       ON CONFLICT (player_id) DO UPDATE SET currency = $2, balance = $3`,
      [playerId, currency, balance],
    );
  }

  async balanceOf(playerId: string): Promise<{ currency: string; balance: number } | null> {
    const { rows } = await this.pool.query<{ currency: string; balance: string }>(
      `SELECT currency, balance FROM ${this.s}.players WHERE player_id = $1`,
      [playerId],
    );
    return rows[0] === undefined
      ? null
      : { currency: rows[0].currency, balance: Number(rows[0].balance) };
  }

  debit(debit: Debit): Promise<Answer> {
    return this.apply('debit', debit, { needsAccount: true }, async (client, balance) => {
      if (balance < debit.amount)
        return refused(
          'INSUFFICIENT_FUNDS',
          `balance ${balance} is below the stake ${debit.amount}`,
        );
      return this.move(client, debit.playerId, -debit.amount);
    });
  }

  credit(credit: Credit): Promise<Answer> {
    return this.apply('credit', credit, { needsAccount: true }, async (client) => {
      // Croupier never pays a bet whose stake it gave back; should such a credit come, it is
      // refused for the operator to look at (Croupier parks it), not paid.
      const { rows } = await client.query<{ state: string }>(
        `SELECT state FROM ${this.s}.calls WHERE bet_id = $1 AND call = 'debit'`,
        [credit.betId],
      );
      const states = rows.map((row) => row.state);
      if (states.includes('rolled-back') && !states.includes('applied'))
        return refused('ROLLED_BACK', `the stake of bet ${credit.betId} was rolled back`);
      // A negative adjustment takes money back and may leave a debt: the player won it unduly.
      return this.move(client, credit.playerId, credit.amount);
    });
  }

  rollback(rollback: Rollback): Promise<Answer> {
    return this.apply('rollback', rollback, { needsAccount: false }, async (client) => {
      const { rows } = await client.query<CallRow & { amount: string; player_id: string }>(
        `SELECT * FROM ${this.s}.calls WHERE key = $1 FOR UPDATE`,
        [rollback.debitKey],
      );
      const debit = rows[0];
      if (debit === undefined) {
        // Never seen: remembered as rolled back, so the debit is refused if it arrives late.
        await client.query(
          `INSERT INTO ${this.s}.calls (key, call, player_id, round_id, bet_id, amount, fingerprint, state)
           VALUES ($1, 'debit', $2, $3, $4, $5, NULL, 'rolled-back')`,
          [rollback.debitKey, rollback.playerId, rollback.roundId, rollback.betId, rollback.amount],
        );
        return this.move(client, rollback.playerId, 0);
      }
      if (
        debit.call !== 'debit' ||
        debit.player_id !== rollback.playerId ||
        Number(debit.amount) !== rollback.amount
      )
        return refused('KEY_CONFLICT', `debitKey ${rollback.debitKey} names another movement`);
      if (debit.state !== 'applied') return this.move(client, rollback.playerId, 0);
      await client.query(`UPDATE ${this.s}.calls SET state = 'rolled-back' WHERE key = $1`, [
        rollback.debitKey,
      ]);
      return this.move(client, rollback.playerId, rollback.amount);
    });
  }

  async status(key: string): Promise<CallState> {
    const { rows } = await this.pool.query<CallRow>(
      `SELECT * FROM ${this.s}.calls WHERE key = $1`,
      [key],
    );
    const row = rows[0];
    if (row === undefined) return { state: 'unknown' };
    // A debit whose rollback came first: a debit under this key is refused when it comes.
    if (row.fingerprint === null) return { state: 'refused', code: 'ROLLED_BACK' };
    if (row.state === 'refused') return { state: 'refused', code: row.code ?? 'REFUSED' };
    if (row.state === 'rolled-back')
      return { state: 'rolled-back', transactionId: row.transaction_id! };
    return { state: 'applied', transactionId: row.transaction_id! };
  }

  /**
   * One call in one transaction: the player's row locked, the key looked up (answered as before
   * if known), then `effect` and the call recorded with its answer.
   */
  private async apply(
    call: 'debit' | 'credit' | 'rollback',
    movement: Movement,
    options: { readonly needsAccount: boolean },
    effect: (client: pg.PoolClient, balance: number) => Promise<Answer>,
  ): Promise<Answer> {
    const fingerprint = JSON.stringify([call, movement]);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: players } = await client.query<{ currency: string; balance: string }>(
        `SELECT currency, balance FROM ${this.s}.players WHERE player_id = $1 FOR UPDATE`,
        [movement.playerId],
      );
      const { rows } = await client.query<CallRow>(`SELECT * FROM ${this.s}.calls WHERE key = $1`, [
        movement.key,
      ]);
      const known = rows[0];
      // A refused credit or rollback is money still owed to the player: the same request sent
      // again (Croupier's retry once the account is fixed) is weighed afresh, not answered with
      // the refusal. A refused debit stays refused: Croupier refused that bet.
      const weighedAgain =
        known?.state === 'refused' && call !== 'debit' && known.fingerprint === fingerprint;
      let answer: Answer;
      if (known !== undefined && !weighedAgain) {
        answer = answerOf(known, fingerprint);
      } else {
        const player = players[0];
        if (!options.needsAccount) answer = await effect(client, Number(player?.balance ?? 0));
        else if (player === undefined)
          answer = refused('PLAYER_UNKNOWN', `no player ${movement.playerId}`);
        else if (player.currency !== movement.currency)
          answer = refused('CURRENCY_MISMATCH', `the account is in ${player.currency}`);
        else answer = await effect(client, Number(player.balance));
        await client.query(
          `INSERT INTO ${this.s}.calls
             (key, call, player_id, round_id, bet_id, amount, fingerprint, state, code, transaction_id, balance)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (key) DO UPDATE SET state = $8, code = $9, transaction_id = $10,
             balance = $11, at = now()`,
          [
            movement.key,
            call,
            movement.playerId,
            movement.roundId,
            movement.betId,
            movement.amount,
            fingerprint,
            answer.status,
            answer.status === 'refused' ? answer.code : null,
            answer.status === 'applied' ? answer.transactionId : null,
            answer.status === 'applied' ? answer.balance : null,
          ],
        );
      }
      await client.query('COMMIT');
      return answer;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async move(client: pg.PoolClient, playerId: string, change: number): Promise<Answer> {
    const { rows } = await client.query<{ balance: string }>(
      `UPDATE ${this.s}.players SET balance = balance + $2 WHERE player_id = $1 RETURNING balance`,
      [playerId, change],
    );
    return {
      status: 'applied',
      transactionId: randomUUID(),
      balance: Number(rows[0]?.balance ?? 0),
    };
  }
}

const refused = (code: RefusalCode, detail: string): Answer => ({
  status: 'refused',
  code,
  detail,
});

/** The first answer to a key, given again; another request under the key is refused. */
function answerOf(row: CallRow, fingerprint: string): Answer {
  if (row.fingerprint === null)
    return refused('ROLLED_BACK', 'this debit was rolled back before it arrived');
  if (row.fingerprint !== fingerprint)
    return refused('KEY_CONFLICT', 'this key was used for another request');
  if (row.state === 'refused')
    return refused(row.code as RefusalCode, 'refused when first received');
  // A debit rolled back since is still answered as applied: it was, and the rollback gave it back.
  return { status: 'applied', transactionId: row.transaction_id!, balance: Number(row.balance) };
}
