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
      await run('fault-watchdog', () => every(intervals.faultSweepMs, () => jobs.watchFaults()));
      await run('idle-session-sweep', () =>
        every(intervals.sessionSweepMs, () => jobs.closeIdleSessions()),
      );
    },
  });
}
