import { deterministicId, randomId, type CommandHandler } from '@croupier/application';
import {
  notOfferedReason,
  spotKeyOf,
  spotsOf,
  type BetRejectionCode,
  type Card,
} from '@croupier/baccarat';
import {
  DomainError,
  parseRoundId,
  parseShoeId,
  paytableIdOf,
  roundIdOf,
  shoeIdOf,
  streams,
  type CommandContext,
  type Dealing,
  type DrawnCard,
  type RoundRules,
  type ShoePort,
  type ShoeSummary,
  type TableConfig,
  type TableEvent,
  type TableSession,
  type WalletMode,
  type WalletPort,
} from '@croupier/contracts';
import {
  activeBets,
  dealUnderWay,
  nextScannedCard,
  requireCorrectable,
  requireTakesCards,
  waitsForCard,
  type RoundCommand,
  type RoundState,
  type StallObservation,
} from '../domain/round.decider.js';
import { seatOf, type TableCommand, type TableState } from '../domain/table.decider.js';
import { handleRound, roundAggregate, tableAggregate } from './aggregates.js';
import { BetWorkflow, betRequestsOf, type PendingDebits } from '../bets/bet-workflow.js';
import { latestNumber, SequenceHints } from './sequence.js';
import { requireMayDeal, requireMayPlay, requireMayWatch } from './session-rules.js';
import {
  isFinished,
  isSettled,
  nextRoundOf,
  closeReasonOf,
  nextShoeOf,
  requireBurnt,
  shoeToCloseOf,
  type NextShoe,
  type OpenTable,
  type TableShoe,
} from '../tables/shoe-lifecycle.js';

/** A void meets a deal starting at most this many times before it gives up (DEAL_IN_PROGRESS). */
const VOID_ATTEMPTS = 3;

/** A bet as a client sends it; `betId` makes a retried request idempotent. */
export interface BetInput {
  readonly type: string;
  readonly amount: unknown;
  readonly bankerMode?: string | undefined;
  readonly seat?: number | null | undefined;
  readonly betId?: string | undefined;
}

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

/** The rules a round is played under, from its table's configuration. */
export function roundRulesOf(config: TableConfig): RoundRules {
  return {
    bets: config.bets,
    playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
    bankerModes: config.bankerModes,
    commission: config.commission,
    tieOdds: config.tieOdds,
    seats: config.seats,
  };
}

/**
 * The round service's command side: tables, rounds and the money saga of a bet. It asks the shoe
 * for cards and the wallet for stakes through their ports, never through their internals.
 */
export class RoundService {
  private readonly hints = new SequenceHints();
  private readonly bets: BetWorkflow;

  private readonly walletMode: WalletMode;

  /**
   * `walletMode` (WALLET_MODE): who holds the players' money. In seamless mode a table whose
   * commission is accrued is refused at opening (ADR 0029). Default transfer.
   */
  constructor(
    private readonly commands: CommandHandler,
    private readonly shoes: ShoePort,
    wallets: WalletPort,
    options: { readonly walletMode?: WalletMode } = {},
  ) {
    this.bets = new BetWorkflow(commands, wallets);
    this.walletMode = options.walletMode ?? 'transfer';
  }

  // --- tables -------------------------------------------------------------------------------

  async openTable(
    input: { tableId: string; config: TableConfig; dealing: Dealing; session?: TableSession },
    context: CommandContext,
  ): Promise<TableState> {
    // Accrued commission is a debt Croupier's wallet holds back from what the player can spend
    // until the dealer changes; the operator's wallet cannot be asked to hold anything back, so
    // the debt could be spent before it is collected (ADR 0029).
    this.requireCommissionTheWalletHolds(input.config);
    const { state } = await this.table(
      input.tableId,
      { type: 'OpenTable', ...input, shiftId: randomId() },
      context,
    );
    return state;
  }

  async changeDealer(
    tableId: string,
    dealerId: string,
    context: CommandContext,
  ): Promise<TableState> {
    const { state } = await this.table(
      tableId,
      { type: 'ChangeDealer', dealerId, shiftId: randomId() },
      context,
    );
    return state;
  }

  /** A player sits down at a numbered seat of a seated table (002). */
  async takeSeat(
    tableId: string,
    playerId: string,
    seat: number,
    context: CommandContext,
  ): Promise<TableState> {
    return (await this.table(tableId, { type: 'TakeSeat', playerId, seat }, context)).state;
  }

  /** The player leaves their seat; their bets already placed stand. */
  async leaveSeat(tableId: string, playerId: string, context: CommandContext): Promise<TableState> {
    return (await this.table(tableId, { type: 'LeaveSeat', playerId }, context)).state;
  }

  /**
   * Closes the table: no round opens after it, and its last dealer shift ends (the commission
   * owed there is collected, ADR 0008). A round still taking bets is voided and its bets
   * refunded, as a closing session's is: no bet is taken on a closed table. A round whose
   * betting closed is dealt and settled as usual. The round is voided before the close (a crash
   * between leaves an open table, closed again by a retry) and looked at again after it, for a
   * round another dealer opened in between.
   */
  async closeTable(tableId: string, reason: string, context: CommandContext): Promise<TableState> {
    await this.voidBettingRound(tableId, reason, context);
    const { state } = await this.table(tableId, { type: 'CloseTable', reason }, context);
    await this.voidBettingRound(tableId, reason, context);
    return state;
  }

  /** Voids the table's latest round if it still takes bets (its bets are refunded). */
  private async voidBettingRound(
    tableId: string,
    reason: string,
    context: CommandContext,
  ): Promise<void> {
    const round = await this.currentRound(tableId);
    if (round === null || round.status !== 'betting') return;
    try {
      const why = `table closed: ${reason}`;
      // A void's reason is at most 500 characters, as the close's is.
      await this.void(round.roundId, why.length <= 500 ? why : 'table closed', context);
    } catch (error) {
      // Betting closed (or the round was voided) meanwhile: it is no longer taking bets.
      if (!(error instanceof DomainError)) throw error;
    }
  }

  async getTable(tableId: string): Promise<TableState> {
    const { state } = await this.commands.load(tableAggregate, streams.table(tableId));
    if (state.status === 'none') throw new DomainError('TABLE_NOT_FOUND', `no table "${tableId}"`);
    return state;
  }

  /** The table's current shoe (the latest), or null before its first. */
  async currentShoe(tableId: string): Promise<ShoeSummary | null> {
    const number = await latestNumber(
      this.commands.store,
      (k) => streams.shoe(shoeIdOf(tableId, k)),
      this.hints.get(tableId),
    );
    this.hints.set(tableId, number);
    return number === 0 ? null : this.shoes.getShoe(shoeIdOf(tableId, number));
  }

  /** The latest round of the table's current shoe, or null. */
  async currentRound(tableId: string): Promise<RoundState | null> {
    const shoe = await this.currentShoe(tableId);
    if (shoe === null) return null;
    const number = await this.latestRoundNumber(shoe.shoeId);
    return number === 0 ? null : this.getRound(roundIdOf(shoe.shoeId, number));
  }

  // --- rounds -------------------------------------------------------------------------------

  async getRound(roundId: string): Promise<RoundState> {
    const { state } = await this.commands.load(roundAggregate, streams.round(roundId));
    if (state.status === 'none') throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
    return state;
  }

  /** The round as `viewer` may read it: a player reads no round of another player's session. */
  async getRoundAs(
    roundId: string,
    viewer: { readonly id: string; readonly role: string },
  ): Promise<RoundState> {
    const round = await this.getRound(roundId);
    requireMayWatch(await this.tableOfRound(roundId), viewer);
    return round;
  }

  /**
   * Opens the table's next round: in the current shoe, or round 1 of a new shoe once the current
   * one is finished (see nextRoundOf, where the shoe lifecycle's rules live).
   */
  async openRound(tableId: string, context: CommandContext): Promise<RoundState> {
    const table = await this.cachedTable(tableId);
    requireMayDeal(table, context);
    // A table opened before the deployment turned to seamless mode plays no more rounds.
    if (table.config !== null) this.requireCommissionTheWalletHolds(table.config);
    try {
      return await this.openRoundOn(await this.tableShoe(tableId, 'as-seen'), context);
    } catch (error) {
      // Refused on what this process saw (its last round, the numbers it last saw): ask again
      // on the table as read, where the refusal, if any, is the real one (ADR 0022).
      if (!(error instanceof DomainError)) throw error;
      return this.openRoundOn(await this.tableShoe(tableId, 'as-read'), context);
    }
  }

  private async openRoundOn(tableShoe: TableShoe, context: CommandContext): Promise<RoundState> {
    const next = nextRoundOf(tableShoe);
    if (next.step === 'open-round')
      return this.createRound(next.table, next.shoe, next.number, context);
    const shoe = await this.replaceShoe(next, context);
    requireBurnt(shoe);
    return this.createRound(next.table, shoe, 1, context);
  }

  /**
   * Starts the table's next shoe (a dealer bringing in a new shoe): shuffled and committed, burnt
   * when its source is rng, after the finished one is closed (see nextShoeOf).
   */
  async startShoe(tableId: string, context: CommandContext): Promise<ShoeSummary> {
    const tableShoe = await this.tableShoe(tableId);
    // A session's shoes are its owner's: it opens them as it deals, no dealer brings one.
    requireMayDeal(tableShoe.table, context);
    return this.replaceShoe(nextShoeOf(tableShoe), context);
  }

  /** Closes the table's current shoe early (operator), revealing its seed. */
  async closeCurrentShoe(tableId: string, context: CommandContext): Promise<ShoeSummary> {
    const tableShoe = await this.tableShoe(tableId);
    // A session's shoe is closed by the session itself, as it deals or closes.
    requireMayDeal(tableShoe.table, context);
    const shoe = shoeToCloseOf(tableShoe);
    return this.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'operator' }, context);
  }

  /**
   * Places a player's bets: validated, debited, recorded on the round, and refunded at once if
   * the round refuses them after the debit (see BetWorkflow, where every step of it lives).
   */
  async placeBets(
    roundId: string,
    playerId: string,
    bets: readonly BetInput[],
    context: CommandContext,
    rebetOf: string | null = null,
  ): Promise<RoundState> {
    const table = await this.tableOfRound(roundId);
    requireMayPlay(table, playerId);
    const seated =
      table?.config?.seats == null ? bets : await this.fromSeat(roundId, playerId, bets);
    return this.bets.place({ roundId, playerId, bets: betRequestsOf(seated), rebetOf }, context);
  }

  /**
   * On a seated table (002) a player bets from the seat they sit at: each bet carries it (a bet
   * naming another seat is refused). Read from the table as stored, not as cached: seats change
   * hands, in another process too.
   */
  private async fromSeat(
    roundId: string,
    playerId: string,
    bets: readonly BetInput[],
  ): Promise<BetInput[]> {
    const table = await this.getTable(parseRoundId(roundId).tableId);
    const seat = seatOf(table, playerId);
    if (seat === null)
      throw new DomainError(
        'INVALID_SEAT',
        `${playerId} sits at no seat of table ${table.tableId}: take a seat first`,
        { field: 'seat' },
      );
    const elsewhere = bets.find((bet) => bet.seat != null && bet.seat !== seat);
    if (elsewhere !== undefined)
      throw new DomainError(
        'INVALID_SEAT',
        `${playerId} sits at seat ${seat}, not seat ${elsewhere.seat}: a player bets from their own seat`,
        { field: 'seat' },
      );
    return bets.map((bet) => ({ ...bet, seat }));
  }

  /** Refunds stakes whose bets never reached their round (the bet workflow's sweep). */
  sweepOrphanedDebits(pending: PendingDebits, graceMs: number): Promise<number> {
    return this.bets.sweep(pending, graceMs);
  }

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
    const current = await this.getRound(roundId);
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
    const round = await this.placeBets(
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

  /** Takes the player's bets off the round (all, or the ones named); clearing refunds them. */
  async clearBets(
    roundId: string,
    playerId: string,
    context: CommandContext,
    betIds?: readonly string[],
  ): Promise<RoundState> {
    requireMayPlay(await this.tableOfRound(roundId), playerId);
    const command: RoundCommand =
      betIds === undefined
        ? { type: 'ClearBets', playerId }
        : { type: 'ClearBets', playerId, betIds };
    return (await this.round(roundId, command, context)).state;
  }

  async closeBetting(roundId: string, context: CommandContext): Promise<RoundState> {
    requireMayDeal(await this.tableOfRound(roundId), context);
    return (await this.round(roundId, { type: 'CloseBetting' }, context)).state;
  }

  /**
   * Deals an rng round: the round commits to the deal, the shoe draws its cards by the rules, the
   * round records them and completes. `closeBetting` closes betting in the deal's first append
   * (the auto-dealer, a player's own deal) when it is still open.
   */
  async deal(
    roundId: string,
    context: CommandContext,
    options: { readonly closeBetting?: boolean } = {},
  ): Promise<RoundState> {
    requireMayDeal(await this.tableOfRound(roundId), context);
    return this.dealRound(roundId, context, options.closeBetting === true);
  }

  private async dealRound(
    roundId: string,
    context: CommandContext,
    closeBetting = false,
  ): Promise<RoundState> {
    // Refused before anything is written; asked of the round as this process last wrote it (a
    // refusal is asked again on the round as read, ADR 0022).
    let round = await this.commands.ask(roundAggregate, streams.round(roundId), (current) => {
      if (current.status === 'none')
        throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
      if (!(closeBetting && current.status === 'betting')) requireTakesCards(current, 'rng');
      return current;
    });
    if (round.status === 'completed') return round; // dealt already: a retried deal
    // The round commits to the deal in its own stream, with its expected version, before the
    // shoe draws (ADR 0033). Anything can land between the draw and the DealCards append below,
    // a void from this very process included (its command waits on the round's queue, not on
    // this deal): a void decided after DealStarted seals the round at the shoe first and records
    // the cards it drew, so the cards are never out without the round recording them.
    if (!round.dealStarted)
      round = (await this.round(roundId, { type: 'StartDeal', closeBetting }, context)).state;
    if (round.status === 'completed') return round;
    const cards = await this.shoes.drawRound(
      { shoeId: round.shoeId, roundId, roundNumber: round.number },
      context,
    );
    return (await this.round(roundId, { type: 'DealCards', cards }, context)).state;
  }

  /**
   * Records a card the dealer's card reader read; the round says which hand it goes to. When the
   * shoe's last card leaves the round still short of one, the round is voided and the shoe
   * closed at once (voidOnExhaustedShoe): no card can ever come.
   */
  async postScannedCard(roundId: string, card: Card, context: CommandContext): Promise<RoundState> {
    let round = await this.syncScannedCards(roundId, context);
    // Refused before the shoe records the card (a voided round, for one, takes no more cards).
    nextScannedCard(round);
    // The first card: the round commits to its deal before the shoe records it (ADR 0033), so a
    // void from then on takes the shoe's cards for the round with it.
    if (!round.dealStarted)
      round = (await this.round(roundId, { type: 'StartDeal' }, context)).state;
    const { hand, index } = nextScannedCard(round);
    let drawn: DrawnCard;
    try {
      drawn = await this.shoes.drawScannedCard(
        { shoeId: round.shoeId, roundId, roundNumber: round.number, index, card, hand },
        context,
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SHOE_FINISHED')
        await this.voidOnExhaustedShoe(roundId, context);
      throw error;
    }
    const { state } = await this.round(roundId, { type: 'DealCards', cards: [drawn] }, context);
    if (waitsForCard(state) && (await this.voidOnExhaustedShoe(roundId, context)))
      return this.getRound(roundId);
    return state;
  }

  /** The dealer saw the cut card come out (scanner shoes). */
  async reportCutCard(roundId: string, context: CommandContext): Promise<ShoeSummary> {
    const round = await this.getRound(roundId);
    return this.shoes.reportCutCard(
      { shoeId: round.shoeId, roundId, roundNumber: round.number },
      context,
    );
  }

  /** A supervisor corrects a misread card before the round completes. */
  async correctCard(
    roundId: string,
    input: { shoePosition: number; card: Card; reason: string },
    context: CommandContext,
  ): Promise<RoundState> {
    const round = await this.getRound(roundId);
    requireCorrectable(round, input); // refused before the shoe records it
    await this.shoes.correctCard(
      {
        shoeId: round.shoeId,
        roundId,
        position: input.shoePosition,
        card: input.card,
        reason: input.reason,
      },
      context,
    );
    return (await this.round(roundId, { type: 'CorrectCard', ...input }, context)).state;
  }

  async confirmResult(roundId: string, context: CommandContext): Promise<RoundState> {
    return (await this.round(roundId, { type: 'ConfirmResult' }, context)).state;
  }

  async pause(roundId: string, reason: string, context: CommandContext): Promise<RoundState> {
    return (await this.round(roundId, { type: 'PauseRound', reason }, context)).state;
  }

  async resume(roundId: string, context: CommandContext): Promise<RoundState> {
    return (await this.round(roundId, { type: 'ResumeRound' }, context)).state;
  }

  async void(roundId: string, reason: string, context: CommandContext): Promise<RoundState> {
    return (await this.voidRound(roundId, { reason }, context)).state;
  }

  // --- faults (the seed's policy, 000: pause, notify, resume or void) ------------------------

  /**
   * The watchdog pauses a round that waited too long for a card, if it still waits as seen: the
   * decider refuses nothing and appends nothing when a card, a resume or another process's pause
   * came first. True when this call paused it.
   */
  async pauseStalled(
    roundId: string,
    seen: StallObservation,
    reason: string,
    context: CommandContext,
  ): Promise<boolean> {
    const { events } = await this.round(
      roundId,
      { type: 'PauseRound', reason, stalled: seen },
      context,
    );
    return events.length > 0;
  }

  /** The watchdog voids a round still in the pause it saw (refunds follow). True when voided. */
  async voidPaused(
    roundId: string,
    pauses: number,
    reason: string,
    context: CommandContext,
  ): Promise<boolean> {
    return (await this.voidRound(roundId, { reason, pausedAs: { pauses } }, context)).voided;
  }

  /**
   * A scanner round waiting for a card from a shoe with none left (its cut card was never
   * reported) can never finish: it is voided (its bets refunded) and the shoe closed as
   * `exhausted`, each event saying why. False when the round or its shoe is not in that state.
   */
  async voidOnExhaustedShoe(roundId: string, context: CommandContext): Promise<boolean> {
    const round = await this.getRound(roundId);
    if (round.cardSource !== 'scanner') return false;
    if (round.status !== 'closed' && round.status !== 'dealing') return false;
    const shoe = await this.shoes.getShoe(round.shoeId);
    if (shoe === null || shoe.cardsLeft > 0) return false;
    await this.void(
      roundId,
      `shoe ${shoe.shoeId} ran out of cards with round ${roundId} still waiting for one: its cut card was never reported`,
      context,
    );
    if (shoe.status !== 'closed')
      await this.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'exhausted' }, context);
    return true;
  }

  // --- sessions (003, 004: one player against the house, who deals) -------------------------

  /** Opens a player's own table from a single-player preset. */
  async openSession(
    input: { sessionId: string; config: TableConfig; session: TableSession },
    context: CommandContext,
  ): Promise<TableState> {
    return this.openTable(
      {
        tableId: input.sessionId,
        config: input.config,
        dealing: { mode: 'manual', bettingWindowMs: 0 },
        session: input.session,
      },
      context,
    );
  }

  /**
   * The session's round taking bets: the open one, or the next, opened now. The next opens once
   * the last is settled (its shoe is closed first, sealing the round's money): this waits for the
   * settlement of a round just dealt, up to `settleWaitMs`.
   */
  async sessionRound(
    sessionId: string,
    context: CommandContext,
    settleWaitMs = 10_000,
  ): Promise<{ round: RoundState; opened: boolean }> {
    requireMayDeal(await this.cachedTable(sessionId), context);
    const deadline = Date.now() + settleWaitMs;
    for (;;) {
      const current = await this.currentRound(sessionId);
      if (current !== null && !isFinished(current)) return { round: current, opened: false };
      try {
        return { round: await this.openRound(sessionId, context), opened: true };
      } catch (error) {
        const settling =
          error instanceof DomainError &&
          error.code === 'ROUND_IN_PROGRESS' &&
          current !== null &&
          isFinished(current);
        if (!settling || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /**
   * The owner deals their round (003's Deal, Rebet, Rebet x2): the previous spots repeated if
   * asked, betting closed, the cards drawn. A round dealt already is answered as it is, so the
   * request can be retried; a repeated rebet finds its bets placed (their ids derive from the
   * round and the spots) and places nothing twice. A rebet with other bets down is refused
   * (BETS_ALREADY_PLACED), before anything moves.
   */
  async dealAsPlayer(
    roundId: string,
    playerId: string,
    rebet: 0 | 1 | 2,
    context: CommandContext,
  ): Promise<RoundState> {
    requireMayDeal(await this.tableOfRound(roundId), context);
    let round = await this.getRound(roundId);
    if (isFinished(round) || round.status === 'dealt') return round;
    if (round.status === 'betting' && rebet !== 0) {
      try {
        round = (await this.rebet(roundId, playerId, rebet, context)).round;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'DUPLICATE_BET')) throw error;
      }
    }
    if (round.status === 'betting') {
      if (activeBets(round, playerId).length === 0)
        throw new DomainError(
          'NO_BETS_TO_DEAL',
          `${playerId} has no bets on round ${roundId}: bet, or rebet, before dealing`,
        );
    }
    return this.deal(roundId, context, { closeBetting: true });
  }

  /**
   * One step of closing a session (its owner leaving, or idle past its timeout): the unfinished
   * round is finished by the rules (a round still taking bets is voided and its bets refunded,
   * one whose betting closed is dealt and settled), its shoe closed once its money is recorded,
   * then the table. Each step is idempotent; answers whether the session is closed, or is
   * waiting for settlement (call again).
   */
  async closeSessionStep(
    sessionId: string,
    reason: string,
    context: CommandContext,
  ): Promise<'closed' | 'settling'> {
    const table = await this.getTable(sessionId);
    if (table.session === null)
      throw new DomainError('TABLE_NOT_FOUND', `table ${sessionId} is not a session`);
    if (table.status === 'closed') return 'closed';
    let round = await this.currentRound(sessionId);
    if (round !== null && !isFinished(round)) {
      if (round.status === 'betting' || round.paused)
        round = await this.void(round.roundId, reason, context);
      else round = await this.dealRound(round.roundId, context);
    }
    if (round !== null && !isSettled(round)) return 'settling';
    const shoe = await this.currentShoe(sessionId);
    if (shoe !== null && shoe.status !== 'closed')
      await this.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'completed' }, context);
    await this.closeTable(sessionId, reason, context);
    return 'closed';
  }

  // --- internals ----------------------------------------------------------------------------

  /**
   * Every void goes through here. A round whose deal is under way may hold cards the shoe drew
   * and the round has not recorded yet: the shoe seals the round first (it draws no more for it)
   * and the void records the cards it sealed, in the round's own append (ADR 0033). A deal that
   * starts between the read and the void's append makes the decider refuse DEAL_IN_PROGRESS:
   * read again, seal, void.
   */
  private async voidRound(
    roundId: string,
    order: { readonly reason: string; readonly pausedAs?: { readonly pauses: number } },
    context: CommandContext,
  ): Promise<{ state: RoundState; voided: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const round = await this.getRound(roundId);
      let sealed: DrawnCard[] | undefined;
      if (dealUnderWay(round)) {
        // The watchdog voids only the pause it saw; once sealed, the round can only be voided.
        const { pausedAs } = order;
        if (pausedAs !== undefined && !(round.paused && round.pauses === pausedAs.pauses))
          return { state: round, voided: false };
        sealed = await this.shoes.sealRound({ shoeId: round.shoeId, roundId }, context);
      }
      const command: RoundCommand = {
        type: 'VoidRound',
        ...order,
        ...(sealed === undefined ? {} : { sealed }),
      };
      try {
        const { state, events } = await this.round(roundId, command, context);
        return { state, voided: events.length > 0 };
      } catch (error) {
        const dealing = error instanceof DomainError && error.code === 'DEAL_IN_PROGRESS';
        if (!dealing || attempt >= VOID_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * What the shoe lifecycle decides on: the table, its latest shoe and that shoe's latest round.
   * `as-read` reads them all and finds the latest numbers in the store. `as-seen` takes the
   * latest shoe and round numbers this process saw (no probe of the next one) and the last round
   * as cached: for opening a round, whose append (`no-stream` on the next number) confirms that
   * no one opened it meanwhile, and whose refusals are asked again `as-read` (ADR 0022). The
   * table and the shoe are read either way: another process may close them.
   */
  private async tableShoe(
    tableId: string,
    mode: 'as-read' | 'as-seen' = 'as-read',
  ): Promise<TableShoe> {
    const table = await this.getTable(tableId);
    const seenShoe = mode === 'as-seen' ? this.hints.get(tableId) : 0;
    const shoe =
      seenShoe > 0
        ? await this.shoes.getShoe(shoeIdOf(tableId, seenShoe))
        : await this.currentShoe(tableId);
    const seenRound = shoe !== null && mode === 'as-seen' ? this.hints.get(shoe.shoeId) : 0;
    const lastNumber =
      shoe === null ? 0 : seenRound > 0 ? seenRound : await this.latestRoundNumber(shoe.shoeId);
    let lastRound: RoundState | null = null;
    if (shoe !== null && lastNumber > 0) {
      const stream = streams.round(roundIdOf(shoe.shoeId, lastNumber));
      lastRound =
        seenRound > 0
          ? await this.commands.ask(roundAggregate, stream, (round) => round)
          : await this.getRound(roundIdOf(shoe.shoeId, lastNumber));
    }
    return { table, shoe, lastNumber, lastRound };
  }

  /** Closes the finished shoe (revealing its seed) if there is one, and starts the next. */
  private async replaceShoe(next: NextShoe, context: CommandContext): Promise<ShoeSummary> {
    if (next.close !== null)
      await this.shoes.closeShoe(
        { shoeId: next.close.shoeId, reason: closeReasonOf(next.close) },
        context,
      );
    const shoe = await this.shoes.startShoe(
      { tableId: next.table.tableId, number: next.shoeNumber, config: next.table.config },
      context,
    );
    this.hints.set(next.table.tableId, shoe.number);
    return shoe;
  }

  private async latestRoundNumber(shoeId: string): Promise<number> {
    const number = await latestNumber(
      this.commands.store,
      (n) => streams.round(roundIdOf(shoeId, n)),
      this.hints.get(shoeId),
    );
    this.hints.set(shoeId, number);
    return number;
  }

  private async createRound(
    table: OpenTable,
    shoe: ShoeSummary,
    number: number,
    context: CommandContext,
  ): Promise<RoundState> {
    const roundId = roundIdOf(shoe.shoeId, number);
    const config = table.config;
    const rules = roundRulesOf(config);
    try {
      const { state } = await this.round(
        roundId,
        {
          type: 'OpenRound',
          roundId,
          tableId: table.tableId,
          shoeId: shoe.shoeId,
          number,
          cardSource: shoe.cardSource,
          currency: config.currency,
          rules,
          paytableId: paytableIdOf(rules),
          dealer: { dealerId: table.dealerId, shiftId: table.shiftId },
        },
        context,
      );
      this.hints.set(shoe.shoeId, number);
      return state;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'ALREADY_EXISTS') {
        throw new DomainError('ROUND_IN_PROGRESS', `round ${roundId} was opened by someone else`, {
          roundId,
        });
      }
      throw error;
    }
  }

  /** Brings a scanner round level with the cards its shoe has recorded for it (after a crash). */
  private async syncScannedCards(roundId: string, context: CommandContext): Promise<RoundState> {
    const round = await this.getRound(roundId);
    if (round.cardSource !== 'scanner') return round;
    const recorded: DrawnCard[] = await this.shoes.roundCards(round.shoeId, roundId);
    const dealt = round.player.length + round.banker.length;
    if (recorded.length <= dealt) return round;
    return (await this.round(roundId, { type: 'DealCards', cards: recorded.slice(dealt) }, context))
      .state;
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
        number = await latestNumber(this.commands.store, (n) =>
          streams.round(roundIdOf(shoeId, n)),
        );
        if (number < 1) continue;
      }
      const candidate = roundIdOf(shoeId, number);
      const { state } = await this.commands.load(roundAggregate, streams.round(candidate));
      const bets = activeBets(state, playerId);
      if (bets.length > 0) return { roundId: candidate, bets };
      number--;
    }
    return null;
  }

  /** The table as this process last saw it: who owns it never changes (ADR 0020). */
  /**
   * Accrued commission is a debt Croupier's wallet holds back from what the player can spend
   * until the dealer changes; the operator's wallet cannot be asked to hold anything back, so
   * the debt could be spent before it is collected (ADR 0029). Refused in seamless mode.
   */
  private requireCommissionTheWalletHolds(config: TableConfig): void {
    if (this.walletMode !== 'seamless' || config.commission !== 'accrued') return;
    throw new DomainError(
      'INVALID_TABLE_CONFIG',
      "config.commission: accrued commission (the land-based preset) is not supported in seamless mode (WALLET_MODE=seamless): the operator's wallet cannot hold back the commission a seat owes until the dealer changes; use commission 'deducted'",
      { field: 'config.commission', walletMode: this.walletMode },
    );
  }

  private async cachedTable(tableId: string): Promise<TableState> {
    const table = await this.commands.ask(tableAggregate, streams.table(tableId), (t) => t);
    if (table.status === 'none') throw new DomainError('TABLE_NOT_FOUND', `no table "${tableId}"`);
    return table;
  }

  private async tableOfRound(roundId: string): Promise<TableState | null> {
    const { tableId } = parseRoundId(roundId);
    const table = await this.commands.ask(tableAggregate, streams.table(tableId), (t) => t);
    return table.status === 'none' ? null : table;
  }

  private round(roundId: string, command: RoundCommand, context: CommandContext) {
    return handleRound(this.commands, roundId, command, context);
  }

  private table(tableId: string, command: TableCommand, context: CommandContext) {
    return this.commands.handle(tableAggregate, streams.table(tableId), command, context, {
      eventIds: (events: readonly TableEvent[]) => events.map(() => randomId()),
    });
  }
}
