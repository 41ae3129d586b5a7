import { parseRoundId, PLAY_MONEY_CURRENCY } from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';
import { Counter, Histogram, type Registry } from 'prom-client';

const PAGE = 1_000;
/** A scrape reads the log for at most this long; the rest is read by the next scrapes. */
const CATCH_UP_BUDGET_MS = 2_000;
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The game's figures as a projection of the event log: rounds opened, completed and voided by
 * table, bets and stakes by bet type, refunds by reason, and the settlement lag (RoundCompleted
 * to RoundSettled, both as recorded by the store). Being read from the log, the counters are the
 * same in every process that serves them and survive restarts (a new process reads the log
 * again), whichever process did the work; Prometheus sees no reset.
 *
 * Read lazily: each scrape first reads the events appended since the last one.
 */
export class LogMetrics {
  private cursor: bigint | undefined;
  private catchingUp: Promise<void> | null = null;
  /** RoundCompleted time of each completed round not settled yet. */
  private readonly completedAt = new Map<string, number>();
  private readonly roundsOpened: Counter<'table'>;
  private readonly roundsCompleted: Counter<'table'>;
  private readonly roundsVoided: Counter<'table'>;
  private readonly betsPlaced: Counter<'bet_type'>;
  private readonly funBetsPlaced: Counter<'bet_type'>;
  private readonly stakes: Counter<'bet_type' | 'currency'>;
  private readonly refunds: Counter<'reason'>;
  private readonly settlementLag: Histogram;
  private readonly currencies = new Map<string, string>();

  constructor(
    registry: Registry,
    private readonly store: EventStore,
  ) {
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers: [registry] });
    this.roundsOpened = counter('croupier_rounds_opened_total', 'Rounds opened', ['table']);
    this.roundsCompleted = counter('croupier_rounds_completed_total', 'Rounds dealt to a result', [
      'table',
    ]);
    this.roundsVoided = counter('croupier_rounds_voided_total', 'Rounds voided', ['table']);
    this.betsPlaced = counter('croupier_bets_placed_total', 'Bets placed (real money)', [
      'bet_type',
    ]);
    // Play money is no revenue and no stake (ADR 0030): fun bets are counted apart, by number.
    this.funBetsPlaced = counter(
      'croupier_fun_bets_placed_total',
      'Bets placed in fun sessions (play money, FUN): never in the stakes',
      ['bet_type'],
    );
    this.stakes = counter(
      'croupier_bet_stakes_minor_units_total',
      'Stakes of placed bets, in minor units of their currency',
      ['bet_type', 'currency'],
    );
    this.refunds = counter(
      'croupier_stakes_refunded_total',
      'Stakes refunded to wallets, by reason (voided, cleared, bet-rejected, orphaned-debit)',
      ['reason'],
    );
    this.settlementLag = new Histogram({
      name: 'croupier_settlement_lag_seconds',
      help: 'From a round completed to its settlement recorded (store timestamps)',
      buckets: LAG_BUCKETS,
      registers: [registry],
    });
  }

  /** Reads the events appended since the last call (at most ~2 s of reading per call). */
  catchUp(): Promise<void> {
    this.catchingUp ??= this.read().finally(() => {
      this.catchingUp = null;
    });
    return this.catchingUp;
  }

  private async read(): Promise<void> {
    const deadline = Date.now() + CATCH_UP_BUDGET_MS;
    for (;;) {
      const events = await this.store.readAll({
        ...(this.cursor === undefined ? {} : { after: this.cursor }),
        limit: PAGE,
      });
      for (const event of events) {
        this.apply(event);
        this.cursor = event.position;
      }
      if (events.length < PAGE || Date.now() > deadline) return;
    }
  }

  private apply(event: RecordedEvent): void {
    if (!event.stream.startsWith('round-') && event.type !== 'StakeRefunded') return;
    const data = event.data as Record<string, unknown>;
    const roundId = typeof data.roundId === 'string' ? data.roundId : null;
    const tableId = roundId === null ? null : tableOf(roundId);
    if (roundId === null || tableId === null) return;
    const table = { table: tableId };
    switch (event.type) {
      case 'RoundOpened':
        this.roundsOpened.inc(table);
        if (typeof data.currency === 'string') this.currencies.set(roundId, data.currency);
        break;
      case 'BetPlaced': {
        const betType = String(data.type);
        if (data.fun === true || this.currencies.get(roundId) === PLAY_MONEY_CURRENCY) {
          this.funBetsPlaced.inc({ bet_type: betType });
          break;
        }
        this.betsPlaced.inc({ bet_type: betType });
        this.stakes.inc(
          { bet_type: betType, currency: this.currencies.get(roundId) ?? 'unknown' },
          Number(data.amount),
        );
        break;
      }
      case 'RoundCompleted':
        this.roundsCompleted.inc(table);
        this.completedAt.set(roundId, event.recordedAt.getTime());
        break;
      case 'RoundSettled': {
        const completed = this.completedAt.get(roundId);
        if (completed !== undefined)
          this.settlementLag.observe(Math.max(0, event.recordedAt.getTime() - completed) / 1000);
        this.forget(roundId);
        break;
      }
      case 'RoundVoided':
        this.roundsVoided.inc(table);
        this.forget(roundId);
        break;
      case 'StakeRefunded':
        if (data.fun !== true) this.refunds.inc({ reason: String(data.reason) });
        break;
    }
  }

  private forget(roundId: string): void {
    this.completedAt.delete(roundId);
    this.currencies.delete(roundId);
  }
}

function tableOf(roundId: string): string | null {
  try {
    return parseRoundId(roundId).tableId;
  } catch {
    return null;
  }
}
