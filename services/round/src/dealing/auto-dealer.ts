import { systemContext } from '@croupier/application';
import { DomainError } from '@croupier/contracts';
import { backoffs } from '@croupier/eventstore';
import type { RoundContext } from '../shared/round-context.js';
import { isFinished } from '../tables/shoe-lifecycle.js';
import type { Tables } from '../tables/tables.js';
import type { Dealing } from './dealing.js';

/** What the auto-dealer plays a table with: its rounds read, opened and dealt. */
export interface AutoDealerRounds {
  readonly currentRound: RoundContext['currentRound'];
  readonly openRound: Tables['openRound'];
  readonly deal: Dealing['deal'];
}

/** A failed step is retried after 200 ms, 400 ms… up to 5 s. */
const AUTO_DEALER_BACKOFF = backoffs.exponential({ baseMs: 200, capMs: 5_000 });

export interface AutoDealerOptions {
  readonly bettingWindowMs: number;
  /** Pause between a finished round and the next, so players see the result. Default 1 s. */
  readonly resultPauseMs?: number;
  readonly onError?: (error: unknown) => void;
  readonly onRound?: (roundId: string) => void;
  readonly now?: () => number;
}

/**
 * Deals an rng table by itself: opens a round, keeps betting open until the time it recorded (the
 * table's window from its opening), closes it, deals, shows the result, and again. It picks up wherever the table's latest round stands, so
 * a restart (or a second instance) continues the round in progress instead of skipping it, and
 * every step is idempotent. A paused round waits for a supervisor.
 */
export class AutoDealer {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly rounds: AutoDealerRounds,
    private readonly tableId: string,
    private readonly options: AutoDealerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private isRunning(): boolean {
    return this.running;
  }

  private async run(): Promise<void> {
    const context = systemContext(`auto-dealer:${this.tableId}`);
    let failures = 0;
    while (this.isRunning()) {
      try {
        await this.step(context);
        failures = 0;
      } catch (error) {
        failures++;
        this.options.onError?.(error);
        await this.sleep(AUTO_DEALER_BACKOFF(failures));
      }
    }
  }

  /** Takes the table's latest round one stage further. */
  private async step(context: ReturnType<typeof systemContext>): Promise<void> {
    let round = await this.rounds.currentRound(this.tableId);
    if (round === null || isFinished(round)) {
      if (round !== null) await this.sleep(this.options.resultPauseMs ?? 1_000);
      if (!this.isRunning()) return;
      try {
        round = await this.rounds.openRound(this.tableId, context);
        this.options.onRound?.(round.roundId);
      } catch (error) {
        // The last round is still being settled, or another dealer got there first: look again.
        if (error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS') {
          await this.sleep(50);
          return;
        }
        // The table closed: its last round is finished, there is nothing more to deal.
        if (error instanceof DomainError && error.code === 'TABLE_CLOSED') {
          this.running = false;
          return;
        }
        throw error;
      }
    }
    if (round.paused) {
      await this.sleep(500);
      return;
    }
    if (round.status === 'betting') {
      // At the time the round recorded (ADR 0044): the debits of its bets were given budgets
      // that end then, and a restart does not lengthen the window. A round paused while betting
      // has no such time any more: it gets a whole window from its resume, as one with none.
      await this.sleep(
        round.bettingClosesAt === null
          ? this.options.bettingWindowMs
          : Math.max(0, round.bettingClosesAt - (this.options.now ?? Date.now)()),
      );
      if (!this.isRunning()) return;
      // Betting closes in the deal's first append (ADR 0033): one append fewer per round.
      await this.rounds.deal(round.roundId, context, { closeBetting: true });
      return;
    }
    if (round.status === 'closed' || round.status === 'dealing') {
      await this.rounds.deal(round.roundId, context);
    }
  }
}
