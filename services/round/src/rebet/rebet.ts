import { deterministicId } from '@croupier/application';
import { notOfferedReason, spotKeyOf, spotsOf, type BetRejectionCode } from '@croupier/baccarat';
import {
  DomainError,
  parseShoeId,
  roundIdOf,
  shoeIdOf,
  streams,
  type CommandContext,
} from '@croupier/contracts';
import { activeBets, type RoundState } from '../domain/round.decider.js';
import type { Bets } from '../bets/bets.js';
import { roundAggregate } from '../shared/aggregates.js';
import type { RoundContext } from '../shared/round-context.js';
import { latestNumber } from '../shared/sequence.js';

/** A bet of the previous round a rebet left out: this round does not offer it. */
export interface DroppedBet {
  /** The id of the bet in the previous round. */
  readonly betId: string;
  readonly type: string;
  /** What it would have staked now (the multiplier applied), minor units. */
  readonly amount: number;
  readonly code: BetRejectionCode;
  readonly reason: string;
}

/** What a rebet did: the round with the bets placed, the round repeated, and what it left out. */
export interface Rebet {
  readonly round: RoundState;
  readonly rebetOf: string;
  readonly dropped: readonly DroppedBet[];
}

/** Rebet: the player's spots of their previous round at the table, placed again as bets. */
export class Rebets {
  constructor(
    private readonly rounds: RoundContext,
    private readonly bets: Bets,
  ) {}

  /**
   * Repeats the player's spots of their previous round at this table (this session, for a
   * session), once or doubled: one bet per spot, for the spot's total (chips stacked on a spot are
   * one stake), from the seat the player sits at now. Its bet ids derive from the round, the
   * player, the multiplier, the spot and the bets the player cleared, so a retried rebet is a
   * double submit, never a second bet, and a rebet after clearing one is a new one. A spot this round no longer offers (a side bet past its max round) is left out and named
   * in `dropped`; the others are placed. When none is left, the rebet is refused with the first
   * one's reason; with bets already down it is refused BETS_ALREADY_PLACED (the round decider).
   */
  async rebet(
    roundId: string,
    playerId: string,
    multiplier: 1 | 2,
    context: CommandContext,
  ): Promise<Rebet> {
    const current = await this.rounds.getRound(roundId);
    const previous = await this.previousBets(current, playerId);
    if (previous === null) {
      throw new DomainError(
        'NO_PREVIOUS_BETS',
        `${playerId} has no earlier bets at this table to repeat`,
      );
    }
    // The seat is left out of the spot: the rebet is placed from the seat the player has now.
    const spots = spotsOf(
      previous.bets.map((bet) => ({
        betId: bet.betId,
        playerId,
        spot: { type: bet.type, bankerMode: bet.bankerMode, seat: null },
        amount: bet.amount,
      })),
    );
    const kept: typeof spots = [];
    const dropped: DroppedBet[] = [];
    let firstReason: Error | null = null;
    for (const spot of spots) {
      const reason =
        current.rules === null
          ? null
          : notOfferedReason(current.rules, current.number, spot.spot.type);
      if (reason === null) kept.push(spot);
      else {
        firstReason ??= reason;
        dropped.push({
          betId: spot.chips[0]!.betId,
          type: spot.spot.type,
          amount: spot.stake * multiplier,
          code: reason.code,
          reason: reason.message,
        });
      }
    }
    // Nothing left to place: refused as placing those bets is (as before any was dropped).
    if (firstReason !== null && kept.length === 0) throw firstReason;
    // The player's bets cleared from this round so far name the attempt: a retry finds the same
    // ids (a double submit), a rebet after clearing an earlier one gets ids of its own.
    const cleared = [...current.bets.values()].filter(
      (bet) => bet.playerId === playerId && bet.status === 'cleared',
    ).length;
    const round = await this.bets.placeBets(
      roundId,
      playerId,
      kept.map(({ spot, stake }) => ({
        type: spot.type,
        amount: stake * multiplier,
        bankerMode: spot.bankerMode ?? undefined,
        betId: deterministicId(
          'rebet',
          roundId,
          playerId,
          String(multiplier),
          spotKeyOf(spot),
          String(cleared),
        ),
      })),
      context,
      previous.roundId,
    );
    return { round, rebetOf: previous.roundId, dropped };
  }

  /** The player's bets in their latest earlier round at this table (looking back 100 rounds). */
  private async previousBets(
    current: RoundState,
    playerId: string,
  ): Promise<{ roundId: string; bets: ReturnType<typeof activeBets> } | null> {
    let shoeId = current.shoeId;
    let number = current.number - 1;
    let { shoeNumber } = parseShoeId(shoeId);
    for (let looked = 0; looked < 100; looked++) {
      if (number < 1) {
        shoeNumber--;
        if (shoeNumber < 1) return null;
        shoeId = shoeIdOf(current.tableId, shoeNumber);
        number = await latestNumber(this.rounds.commands.store, (n) =>
          streams.round(roundIdOf(shoeId, n)),
        );
        if (number < 1) continue;
      }
      const candidate = roundIdOf(shoeId, number);
      const { state } = await this.rounds.commands.load(roundAggregate, streams.round(candidate));
      const bets = activeBets(state, playerId);
      if (bets.length > 0) return { roundId: candidate, bets };
      number--;
    }
    return null;
  }
}
