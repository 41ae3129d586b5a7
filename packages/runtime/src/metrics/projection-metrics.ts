import { ProjectionRunner, type ProjectionError } from '@croupier/application';
import type { EventStore, ProjectionStorage } from '@croupier/eventstore';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Metrics of a process's durable read models (docs/adr/0023): which it runs, which are stopped
 * at an event they could not apply (alert on it: nothing moves them on until fixed and
 * restarted), and the batches committed. Pass `stopped` as the runner's `onStopped`.
 */
export class ProjectionMetrics {
  private readonly held: Gauge<'projection'>;
  private readonly stoppedGauge: Gauge<'projection'>;
  private readonly failures: Counter<'projection'>;
  private readonly batches: Counter;
  private readonly events: Counter;
  private readonly cacheDocuments: Gauge;
  private readonly cacheReads: Counter<'result'>;
  private cacheCounted = { hits: 0, misses: 0 };
  private runner: ProjectionRunner | null = null;

  /** `registry`: where they are registered at once (more with `registerOn`). */
  constructor(registry?: Registry) {
    const registers = registry === undefined ? [] : [registry];
    this.held = new Gauge({
      name: 'croupier_projection_held',
      help: 'Read models this process runs (1) or stands by for (0): one process runs each',
      labelNames: ['projection'],
      registers,
    });
    this.stoppedGauge = new Gauge({
      name: 'croupier_projection_stopped',
      help: 'Read models stopped at an event they could not apply (1): reads of them answer 503',
      labelNames: ['projection'],
      registers,
    });
    this.failures = new Counter({
      name: 'croupier_projection_failures_total',
      help: 'Times a read model stopped at an event it could not apply',
      labelNames: ['projection'],
      registers,
    });
    this.batches = new Counter({
      name: 'croupier_projection_batches_total',
      help: 'Batches of the log committed to the read models (one transaction each)',
      registers,
    });
    this.events = new Counter({
      name: 'croupier_projection_events_total',
      help: 'Events read by the read models runner',
      registers,
    });
    this.cacheDocuments = new Gauge({
      name: 'croupier_projection_cache_documents',
      help: 'Read-model documents held in the document cache (bounded: READ_MODEL_CACHE_DOCUMENTS)',
      registers,
    });
    this.cacheReads = new Counter({
      name: 'croupier_projection_cache_reads_total',
      help: 'Read-model document reads, answered from the cache (hit) or the database (miss)',
      labelNames: ['result'],
      registers,
    });
  }

  /** Registers them on another registry too (an app's, made after the runner). */
  registerOn(registry: Registry): void {
    for (const metric of [this.held, this.stoppedGauge, this.failures, this.batches, this.events])
      registry.registerMetric(metric);
    registry.registerMetric(this.cacheDocuments);
    registry.registerMetric(this.cacheReads);
  }

  /** The runner whose state `refresh()` reports. */
  watch(runner: ProjectionRunner): void {
    this.runner = runner;
  }

  readonly stopped = (error: ProjectionError): void => {
    this.failures.inc({ projection: error.projection });
    this.stoppedGauge.set({ projection: error.projection }, 1);
  };

  readonly batch = (batch: { events: number }): void => {
    this.batches.inc();
    this.events.inc(batch.events);
  };

  refresh(): void {
    for (const status of this.runner?.status() ?? []) {
      this.held.set({ projection: status.name }, status.held ? 1 : 0);
      this.stoppedGauge.set({ projection: status.name }, status.stopped === null ? 0 : 1);
    }
    if (this.runner !== null) {
      const { size, hits, misses } = this.runner.documentCache;
      this.cacheDocuments.set(size);
      this.cacheReads.inc({ result: 'hit' }, hits - this.cacheCounted.hits);
      this.cacheReads.inc({ result: 'miss' }, misses - this.cacheCounted.misses);
      this.cacheCounted = { hits, misses };
    }
  }
}

/** What a read-model runner reports to: the process's logger. */
export interface ReadModelLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * A process's read-model runner (ADR 0023), reporting to its metrics and logger: retried store
 * errors as warnings, a model stopped at an event it cannot apply as an error and a metric.
 */
export function readModelRunner(
  store: EventStore,
  storage: ProjectionStorage,
  metrics: ProjectionMetrics,
  logger: ReadModelLogger,
  /** Documents the runner's cache may hold (`documents` reads of the models it runs). */
  documentCacheSize = 0,
): ProjectionRunner {
  const runner = new ProjectionRunner(store, storage, {
    documentCacheSize,
    onError: (error) => {
      logger.warn({ err: error }, 'read models retrying');
    },
    onStopped: (error) => {
      metrics.stopped(error);
      logger.error({ err: error }, 'read model stopped at an event it cannot apply');
    },
    onBatch: metrics.batch,
  });
  metrics.watch(runner);
  return runner;
}
