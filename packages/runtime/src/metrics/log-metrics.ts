import type { ProjectionRunner } from '@croupier/application';
import { Counter, Histogram, type Registry } from 'prom-client';
import { GameFigures, LAG_BUCKETS, type GameFigure, type LagFigures } from './game-figures.js';

/** How long a scrape waits for the figures to reach the log's end before serving them as stored. */
const SYNC_TIMEOUT_MS = 1_000;

/**
 * The game's figures as Prometheus metrics: rounds opened, completed and voided by table, bets
 * and stakes by bet type, refunds by reason, and the settlement lag. They are a durable read
 * model of the log (`GameFigures`, docs/adr/0011 and its addendum), so they are the same in
 * every process that serves them and survive restarts, whichever process did the work;
 * Prometheus sees no reset. A scrape costs what the model lags behind the log (it waits for it,
 * at most a second) and a read of a few documents: not the length of the log.
 */
export class LogMetrics {
  private refreshing: Promise<void> | null = null;
  private readonly roundsOpened: Counter<'table'>;
  private readonly roundsCompleted: Counter<'table'>;
  private readonly roundsVoided: Counter<'table'>;
  private readonly betsPlaced: Counter<'bet_type'>;
  private readonly funBetsPlaced: Counter<'bet_type'>;
  private readonly stakes: Counter<'bet_type' | 'currency'>;
  private readonly refunds: Counter<'reason'>;
  private readonly settlementLag: StoredHistogram;

  /** `figures` must be registered with `readModels` (before it starts). */
  constructor(
    registry: Registry,
    private readonly figures: GameFigures,
    private readonly readModels: ProjectionRunner,
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
    this.settlementLag = new StoredHistogram({
      name: 'croupier_settlement_lag_seconds',
      help: 'From a round completed to its settlement recorded (store timestamps)',
      buckets: [...LAG_BUCKETS],
      registers: [registry],
    });
  }

  /** Brings the metrics up to the figures as stored, once the model has read the log's end. */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    // A model behind or stopped is served as it stands: croupier_projection_stopped tells.
    await this.readModels.syncToHead([this.figures.name], SYNC_TIMEOUT_MS).catch(() => undefined);
    this.show(await this.figures.read());
  }

  /** Sets every metric to the stored figures, with no await in between. */
  private show(figures: readonly GameFigure[]): void {
    for (const counter of [
      this.roundsOpened,
      this.roundsCompleted,
      this.roundsVoided,
      this.betsPlaced,
      this.funBetsPlaced,
      this.stakes,
      this.refunds,
    ] as Counter[])
      counter.reset();
    for (const figure of figures) {
      switch (figure.kind) {
        case 'table': {
          const labels = { table: figure.table };
          this.roundsOpened.inc(labels, figure.opened);
          if (figure.completed > 0) this.roundsCompleted.inc(labels, figure.completed);
          if (figure.voided > 0) this.roundsVoided.inc(labels, figure.voided);
          break;
        }
        case 'bets':
          this.betsPlaced.inc({ bet_type: figure.betType }, figure.placed);
          for (const [currency, amount] of Object.entries(figure.stakes))
            this.stakes.inc({ bet_type: figure.betType, currency }, amount);
          break;
        case 'fun-bets':
          this.funBetsPlaced.inc({ bet_type: figure.betType }, figure.placed);
          break;
        case 'refunds':
          for (const [reason, count] of Object.entries(figure.byReason))
            this.refunds.inc({ reason }, count);
          break;
        case 'lag':
          this.settlementLag.show(figure);
          break;
      }
    }
  }
}

/**
 * A histogram whose buckets come from a stored one rather than from observations in this
 * process: prom-client's Histogram has no way to set them, so what it exports is answered here
 * in its format (cumulative `le` buckets, `+Inf`, `_sum`, `_count`).
 */
class StoredHistogram extends Histogram {
  private stored: LagFigures | null = null;
  private readonly metricName: string;
  private readonly metricHelp: string;

  constructor(configuration: ConstructorParameters<typeof Histogram>[0]) {
    super(configuration);
    this.metricName = configuration.name;
    this.metricHelp = configuration.help;
  }

  show(figures: LagFigures): void {
    this.stored = figures;
  }

  override get(): Promise<Awaited<ReturnType<Histogram['get']>>> {
    const name = this.metricName;
    const figures = this.stored;
    let cumulative = 0;
    const values =
      figures === null
        ? []
        : [
            ...LAG_BUCKETS.map((bound, i) => {
              cumulative += figures.buckets[i] ?? 0;
              return { labels: { le: bound }, value: cumulative, metricName: `${name}_bucket` };
            }),
            { labels: { le: '+Inf' }, value: figures.count, metricName: `${name}_bucket` },
            { labels: {}, value: figures.sumMs / 1000, metricName: `${name}_sum` },
            { labels: {}, value: figures.count, metricName: `${name}_count` },
          ];
    // Not super.get(): it calls getForPromString, answered here. What the registry reads of it.
    const exported = { name, help: this.metricHelp, type: 'histogram', values, aggregator: 'sum' };
    return Promise.resolve(exported as unknown as Awaited<ReturnType<Histogram['get']>>);
  }

  getForPromString(): Promise<Awaited<ReturnType<Histogram['get']>>> {
    return this.get();
  }
}
