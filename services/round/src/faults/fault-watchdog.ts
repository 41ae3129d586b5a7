import { systemContext } from '@croupier/application';
import { z } from 'zod';
import type { DealingWatch, WatchedRound } from './dealing-watch.js';
import type { Faults } from './faults.js';

/** The seed's fault policy (000) as limits; 0 turns a limit off. */
export interface FaultLimits {
  /** A round waiting this long for its next card is paused (DEALING_STALL_MS). */
  readonly stallMs: number;
  /** A round paused this long is voided and its bets refunded (VOID_AFTER_PAUSE_MS). */
  readonly voidAfterPauseMs: number;
}

/** What one sweep did, by round id. */
export interface FaultSweep {
  readonly paused: string[];
  readonly voided: string[];
  readonly exhausted: string[];
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Pauses stalled deals and voids rounds paused too long, on its own (issue 15, the seed's fault
 * policy: paused, the supervisor notified, resumed or cancelled with refunds).
 *
 * Every process that deals may run one: each sweep reads the deadlines from the `dealing-watch`
 * read model (the store's recorded times, so a restart keeps them) and acts through the round's
 * decider with what it saw. Two watchdogs acting on one round append one event: the second's
 * append meets the first's on the round's expected version and decides again, to nothing.
 */
export class FaultWatchdog {
  private readonly context = systemContext('fault-watchdog');

  constructor(
    private readonly rounds: Pick<Faults, 'voidOnExhaustedShoe' | 'pauseStalled' | 'voidPaused'>,
    private readonly watch: DealingWatch,
    private readonly limits: FaultLimits,
    private readonly onError: (error: unknown, roundId: string) => void = () => undefined,
  ) {}

  /** One pass over the due deadlines; a round that fails is reported and tried next pass. */
  async sweep(): Promise<FaultSweep> {
    const done: FaultSweep = { paused: [], voided: [], exhausted: [] };
    if (this.limits.stallMs > 0) {
      for (const round of await this.watch.stalled(this.limits.stallMs))
        await this.attempt(round, () => this.stalled(round, done));
    }
    if (this.limits.voidAfterPauseMs > 0) {
      for (const round of await this.watch.pausedFor(this.limits.voidAfterPauseMs))
        await this.attempt(round, () => this.pausedTooLong(round, done));
    }
    return done;
  }

  /**
   * When the watchdog must look next (ms since the epoch), instead of looking every second (ADR
   * 0045): the earliest deadline of a round it knows of, or, when none is sooner, half the
   * shortest limit from now. A round that begins waiting (or is paused) after this look has a
   * deadline a whole limit after its recorded time, so the next look finds it with half a limit
   * to spare for its events to reach the read model. Null when both limits are off.
   */
  async nextLook(now = Date.now()): Promise<number | null> {
    const limits = [this.limits.stallMs, this.limits.voidAfterPauseMs].filter((ms) => ms > 0);
    if (limits.length === 0) return null;
    let next = now + Math.min(...limits) / 2;
    if (this.limits.stallMs > 0) {
      const since = await this.watch.longestWaitingSince();
      if (since !== null) next = Math.min(next, since + this.limits.stallMs);
    }
    if (this.limits.voidAfterPauseMs > 0) {
      const pausedAt = await this.watch.longestPausedAt();
      if (pausedAt !== null) next = Math.min(next, pausedAt + this.limits.voidAfterPauseMs);
    }
    return next;
  }

  private async attempt(round: WatchedRound, act: () => Promise<void>): Promise<void> {
    try {
      await act();
    } catch (error) {
      this.onError(error, round.roundId);
    }
  }

  private async stalled(round: WatchedRound, done: FaultSweep): Promise<void> {
    // A scanner shoe with no card left will never deal this round's next: void it at once.
    if (
      round.cardSource === 'scanner' &&
      (await this.rounds.voidOnExhaustedShoe(round.roundId, this.context))
    ) {
      done.exhausted.push(round.roundId);
      return;
    }
    const waited = seconds(this.limits.stallMs);
    const reason =
      round.cardSource === 'scanner'
        ? `dealing stalled: no card scanned for ${waited} (${round.cards.length} dealt)`
        : `dealing stalled: the rng deal did not complete within ${waited}`;
    const paused = await this.rounds.pauseStalled(
      round.roundId,
      { cards: round.cards.length, pauses: round.pauses },
      reason,
      this.context,
    );
    if (paused) done.paused.push(round.roundId);
  }

  private async pausedTooLong(round: WatchedRound, done: FaultSweep): Promise<void> {
    const reason = `not resumed within ${seconds(this.limits.voidAfterPauseMs)} of its pause (${round.pauseReason ?? 'no reason'}): cancelled, every bet refunded`;
    const voided = await this.rounds.voidPaused(
      round.roundId,
      round.pauses,
      reason.slice(0, 500),
      this.context,
    );
    if (voided) done.voided.push(round.roundId);
  }
}

/**
 * The fault policy's settings, the same in every process that deals (the gateway, the round
 * service). Defaults: a minute without a card is a stall a dealer would have called a supervisor
 * for; five minutes paused is no longer "resolved quickly" (docs/adr/0004).
 */
export const faultEnvironmentShape = {
  DEALING_STALL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  VOID_AFTER_PAUSE_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
};

/** The limits of a parsed configuration. */
export function faultLimitsOf(config: {
  readonly DEALING_STALL_MS: number;
  readonly VOID_AFTER_PAUSE_MS: number;
}): FaultLimits {
  return { stallMs: config.DEALING_STALL_MS, voidAfterPauseMs: config.VOID_AFTER_PAUSE_MS };
}
