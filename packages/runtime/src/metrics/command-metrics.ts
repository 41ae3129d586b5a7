import type { CommandHandler, CommandHandlerStats } from '@croupier/application';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The command handler's bounded state cache and its snapshots (ADR 0020, 0025), read from its
 * counters at each scrape (the handler counts; the metrics follow).
 */
export function registerCommandMetrics(
  registry: Registry,
  commands: () => CommandHandler | null,
): void {
  const registers = [registry];
  const stats = (): CommandHandlerStats | undefined => commands()?.stats();
  const gauge = (name: string, help: string, read: (s: CommandHandlerStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const current = stats();
        if (current !== undefined) this.set(read(current));
      },
    });
  /** A counter that follows one of the handler's, which only grows. */
  const counter = (name: string, help: string, read: (s: CommandHandlerStats) => number) => {
    let seen = 0;
    return new Counter({
      name,
      help,
      registers,
      collect() {
        const current = stats();
        if (current === undefined) return;
        const now = read(current);
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  };
  gauge(
    'croupier_state_cache_size',
    'Stream states the command handler holds now, over all aggregates',
    (s) => s.cache.size,
  );
  gauge(
    'croupier_state_cache_capacity',
    'The most stream states held per aggregate (STATE_CACHE_SIZE)',
    (s) => s.cache.capacity,
  );
  counter(
    'croupier_state_cache_hits_total',
    'Lookups of a stream state found in the cache',
    (s) => s.cache.hits,
  );
  counter(
    'croupier_state_cache_misses_total',
    'Lookups of a stream state not in the cache (the stream is read)',
    (s) => s.cache.misses,
  );
  counter(
    'croupier_state_cache_evictions_total',
    'Stream states dropped to keep the cache within its bound',
    (s) => s.cache.evictions,
  );
  counter(
    'croupier_snapshots_used_total',
    'Loads of a stream not cached that started from its snapshot',
    (s) => s.snapshots.used,
  );
  counter('croupier_snapshots_written_total', 'Snapshots written', (s) => s.snapshots.written);
  counter(
    'croupier_snapshot_failures_total',
    'Snapshots that could not be read or written (commands went on without them)',
    (s) => s.snapshots.failures,
  );
  const refusedSeen = new Map<string, number>();
  new Counter({
    name: 'croupier_snapshots_refused_total',
    help: 'Snapshots found and not used (another schema version, a changed digest, a hash the stream does not hold): the stream was read whole',
    labelNames: ['reason'],
    registers,
    collect() {
      const current = stats();
      if (current === undefined) return;
      for (const [reason, now] of Object.entries(current.snapshots.refused)) {
        const seen = refusedSeen.get(reason) ?? 0;
        this.inc({ reason }, now - seen);
        refusedSeen.set(reason, now);
      }
    },
  });
}
