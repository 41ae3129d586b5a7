import { DomainError } from '@croupier/contracts';
import type { ProjectionRunner } from '@croupier/application';
import type { HttpApp } from '@croupier/http';
import { hostService, type ServiceLogger, type ServicePluginOptions } from '@croupier/runtime';
import { AutoDealer } from './dealing/auto-dealer.js';
import type { PendingDebits } from './bets/pending-debits.js';
import type { DealingWatch } from './faults/dealing-watch.js';
import type { FaultWatchdog } from './faults/fault-watchdog.js';
import type { RoundService } from './round-service.js';
import { closeIdleSessions } from './sessions/idle-timeouts.js';
import type { TableBoard } from './board/table-board.js';
import type { SeatLedger } from './seats/seat-ledger.js';
import { roundRoutes } from './routes.js';

/**
 * The round service's background work over one RoundService: the auto-dealers, the bet
 * workflow's orphaned-debit sweep, the fault watchdog and the idle-session sweep. One per
 * process: the routes start a table's dealer when it opens, the jobs start the others.
 */
export class RoundJobs {
  private readonly dealers = new Map<string, AutoDealer>();

  constructor(
    private readonly deps: {
      readonly rounds: RoundService;
      readonly board: TableBoard;
      readonly pending: PendingDebits;
      readonly dealingWatch: DealingWatch;
      readonly watchdog: FaultWatchdog;
      readonly readModels: ProjectionRunner;
      readonly orphanGraceMs: number;
      readonly logger: ServiceLogger;
    },
  ) {}

  /** Refunds stakes whose bets never reached their round (the bet workflow's sweep). */
  async sweep(): Promise<number> {
    const { readModels, pending, rounds } = this.deps;
    try {
      await readModels.syncToHead([pending.name]);
      return await rounds.sweepOrphanedDebits(pending, this.deps.orphanGraceMs);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'orphaned-debit sweep failed');
      return 0;
    }
  }

  /** Pauses stalled deals and voids rounds paused too long (the seed's fault policy, 000). */
  async watchFaults(): Promise<void> {
    const { readModels, dealingWatch, watchdog, logger } = this.deps;
    try {
      await readModels.syncToHead([dealingWatch.name]);
      const done = await watchdog.sweep();
      if (done.paused.length + done.voided.length + done.exhausted.length > 0)
        logger.warn(done, 'fault watchdog: rounds paused, voided or ended by an empty shoe');
    } catch (error) {
      logger.error({ err: error }, 'fault watchdog sweep failed');
    }
  }

  /**
   * When the fault watchdog must look next (ms since the epoch; null: never, its limits are
   * off), from the deadlines it knows of; a store that does not answer is asked again in `retryMs`.
   */
  async nextFaultLook(retryMs: number): Promise<number | null> {
    try {
      return await this.deps.watchdog.nextLook();
    } catch (error) {
      this.deps.logger.error({ err: error }, 'fault watchdog: could not read its deadlines');
      return Date.now() + retryMs;
    }
  }

  /** Closes the sessions idle past SESSION_IDLE_TIMEOUT_MS, finishing their rounds first. */
  async closeIdleSessions(): Promise<number> {
    const { readModels, board, rounds } = this.deps;
    try {
      await readModels.syncToHead([board.name]);
      return await closeIdleSessions(rounds, board);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'idle-session sweep failed');
      return 0;
    }
  }

  /** Starts dealing a table by itself when it is configured to. */
  async startDealer(tableId: string): Promise<void> {
    if (this.dealers.has(tableId)) return;
    const table = await this.deps.rounds.getTable(tableId);
    // A closed table still gets a dealer: it finishes the round in progress, then stops.
    if (table.dealing?.mode !== 'auto') return;
    const dealer = new AutoDealer(this.deps.rounds, tableId, {
      bettingWindowMs: table.dealing.bettingWindowMs,
      onError: (error) => {
        if (!(error instanceof DomainError))
          this.deps.logger.error({ err: error, tableId }, 'auto-dealer step failed');
      },
      // The read models hear of the round at once, not at their next poll.
      onRound: () => {
        this.deps.readModels.wake();
      },
    });
    this.dealers.set(tableId, dealer);
    dealer.start();
  }

  /** Starts a dealer for every auto-dealt table on the board. */
  async startDealers(): Promise<void> {
    await this.deps.readModels.syncToHead([this.deps.board.name]);
    for (const table of await this.deps.board.list())
      if (table.dealing.mode === 'auto') await this.startDealer(table.tableId);
  }

  /** Each dealer finishes its step. */
  async stopDealers(): Promise<void> {
    await Promise.all([...this.dealers.values()].map((dealer) => dealer.stop()));
    this.dealers.clear();
  }
}

export interface RoundPluginOptions extends ServicePluginOptions {
  readonly rounds: RoundService;
  readonly board: TableBoard;
  /** The accrued commission owed per seat, a read model the process runs (002's seat ledger). */
  readonly seatLedger: SeatLedger;
  readonly jobs: RoundJobs;
  /** Deal the auto-dealt tables already on the board when the jobs start. */
  readonly autoDeal: boolean;
  /** A player's session closes after this long without a command (SESSION_IDLE_TIMEOUT_MS). */
  readonly sessionIdleTimeoutMs: number;
  readonly intervals: {
    readonly orphanSweepMs: number;
    /**
     * The fault watchdog looks when a deadline falls due (FaultWatchdog.nextLook); one that is
     * due and still there after a look (its round failed to act, or the read model has not yet
     * applied the action) is looked at again after this long.
     */
    readonly faultSweepMs: number;
    readonly sessionSweepMs: number;
  };
}

/** Runs `tick` every `ms`, one at a time (a slow store never stacks them up); stop waits. */
function every(ms: number, tick: () => Promise<unknown>) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick);
  }, ms);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Runs `tick` at the times `next` names (ms since the epoch, asked after each tick; null: not
 * again), one tick at a time. A time already past when asked is taken as `retryMs` from now, so
 * a deadline whose round keeps failing is retried at that pace, not in a loop. Stop waits for
 * the tick in progress.
 */
function atDeadlines(
  retryMs: number,
  tick: () => Promise<unknown>,
  next: () => Promise<number | null>,
) {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    timer = null;
    running = (async () => {
      let due: number | null = Date.now() + retryMs;
      try {
        await tick();
        due = await next();
      } catch {
        // The tick and `next` report their own failures; looked at again after `retryMs`.
      }
      if (stopped || due === null) return;
      const wait = due - Date.now();
      // A few ms late, never early: what is due is what the look compares to the clock.
      timer = setTimeout(run, wait > 0 ? wait + 5 : retryMs);
    })();
  };
  run();
  return {
    stop: async () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}

/**
 * The round service, wired once (ADR 0037): its routes (roundRoutes), its auto-dealers and its
 * sweeps. Its own process and the one-process gateway both register this.
 */
export async function roundPlugin(app: HttpApp, options: RoundPluginOptions): Promise<void> {
  const { rounds, board, jobs, intervals } = options;
  await hostService(app, 'round', options, {
    routes: (routes) => {
      roundRoutes(routes, {
        rounds,
        board,
        seatLedger: options.seatLedger,
        onTableOpened: (tableId) => void jobs.startDealer(tableId),
        sessionIdleTimeoutMs: options.sessionIdleTimeoutMs,
      });
    },
    jobs: async (run) => {
      await run('auto-dealers', async () => {
        if (options.autoDeal) await jobs.startDealers();
        return { stop: () => jobs.stopDealers() };
      });
      await run('orphaned-debit-sweep', () => every(intervals.orphanSweepMs, () => jobs.sweep()));
      // The fault policy (000): stalled deals paused, long pauses voided. Every replica may run
      // it: the round's expected version lets one act (FaultWatchdog).
      await run('fault-watchdog', () =>
        atDeadlines(
          intervals.faultSweepMs,
          () => jobs.watchFaults(),
          () => jobs.nextFaultLook(intervals.faultSweepMs),
        ),
      );
      await run('idle-session-sweep', () =>
        every(intervals.sessionSweepMs, () => jobs.closeIdleSessions()),
      );
    },
  });
}
