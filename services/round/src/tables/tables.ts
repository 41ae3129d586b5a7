import { randomId } from '@croupier/application';
import {
  DomainError,
  paytableIdOf,
  roundIdOf,
  shoeIdOf,
  streams,
  type CommandContext,
  type Dealing,
  type RoundRules,
  type ShoeSummary,
  type TableConfig,
  type TableSession,
  type MoneyHolder,
} from '@croupier/contracts';
import type { RoundState } from '../domain/round.decider.js';
import type { TableState } from '../domain/table.decider.js';
import type { Faults } from '../faults/faults.js';
import { roundAggregate } from '../shared/aggregates.js';
import type { RoundContext } from '../shared/round-context.js';
import { requireMayDeal } from '../shared/session-rules.js';
import {
  closeReasonOf,
  nextRoundOf,
  nextShoeOf,
  requireBurnt,
  shoeToCloseOf,
  type NextShoe,
  type OpenTable,
  type TableShoe,
} from './shoe-lifecycle.js';

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
 * Tables, their shoes and their rounds' opening: a table opened, closed, its dealer changed; the
 * next shoe started or the current one closed; the next round opened (see shoe-lifecycle.ts,
 * where the shoe lifecycle's rules live).
 */
export class Tables {
  /**
   * `money`: what the wallet that holds the players' money allows. A table whose commission is
   * accrued is refused at opening where it cannot hold commission back (ADR 0029).
   */
  constructor(
    private readonly rounds: RoundContext,
    private readonly faults: Faults,
    private readonly money: MoneyHolder,
  ) {}

  async openTable(
    input: { tableId: string; config: TableConfig; dealing: Dealing; session?: TableSession },
    context: CommandContext,
  ): Promise<TableState> {
    // Accrued commission is a debt Croupier's wallet holds back from what the player can spend
    // until the dealer changes; the operator's wallet cannot be asked to hold anything back, so
    // the debt could be spent before it is collected (ADR 0029).
    this.requireCommissionTheWalletHolds(input.config);
    const { state } = await this.rounds.table(
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
    const { state } = await this.rounds.table(
      tableId,
      { type: 'ChangeDealer', dealerId, shiftId: randomId() },
      context,
    );
    return state;
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
    const { state } = await this.rounds.table(tableId, { type: 'CloseTable', reason }, context);
    await this.voidBettingRound(tableId, reason, context);
    return state;
  }

  /** Voids the table's latest round if it still takes bets (its bets are refunded). */
  private async voidBettingRound(
    tableId: string,
    reason: string,
    context: CommandContext,
  ): Promise<void> {
    const round = await this.rounds.currentRound(tableId);
    if (round === null || round.status !== 'betting') return;
    try {
      const why = `table closed: ${reason}`;
      // A void's reason is at most 500 characters, as the close's is.
      await this.faults.void(round.roundId, why.length <= 500 ? why : 'table closed', context);
    } catch (error) {
      // Betting closed (or the round was voided) meanwhile: it is no longer taking bets.
      if (!(error instanceof DomainError)) throw error;
    }
  }

  /**
   * Opens the table's next round: in the current shoe, or round 1 of a new shoe once the current
   * one is finished (see nextRoundOf, where the shoe lifecycle's rules live).
   */
  async openRound(tableId: string, context: CommandContext): Promise<RoundState> {
    const table = await this.rounds.cachedTable(tableId);
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
    return this.rounds.shoes.closeShoe({ shoeId: shoe.shoeId, reason: 'operator' }, context);
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
    const { rounds } = this;
    const table = await rounds.getTable(tableId);
    const seenShoe = mode === 'as-seen' ? rounds.hints.get(tableId) : 0;
    const shoe =
      seenShoe > 0
        ? await rounds.shoes.getShoe(shoeIdOf(tableId, seenShoe))
        : await rounds.currentShoe(tableId);
    const seenRound = shoe !== null && mode === 'as-seen' ? rounds.hints.get(shoe.shoeId) : 0;
    const lastNumber =
      shoe === null ? 0 : seenRound > 0 ? seenRound : await rounds.latestRoundNumber(shoe.shoeId);
    let lastRound: RoundState | null = null;
    if (shoe !== null && lastNumber > 0) {
      const stream = streams.round(roundIdOf(shoe.shoeId, lastNumber));
      lastRound =
        seenRound > 0
          ? await rounds.commands.ask(roundAggregate, stream, (round) => round)
          : await rounds.getRound(roundIdOf(shoe.shoeId, lastNumber));
    }
    return { table, shoe, lastNumber, lastRound };
  }

  /** Closes the finished shoe (revealing its seed) if there is one, and starts the next. */
  private async replaceShoe(next: NextShoe, context: CommandContext): Promise<ShoeSummary> {
    if (next.close !== null)
      await this.rounds.shoes.closeShoe(
        { shoeId: next.close.shoeId, reason: closeReasonOf(next.close) },
        context,
      );
    const shoe = await this.rounds.shoes.startShoe(
      { tableId: next.table.tableId, number: next.shoeNumber, config: next.table.config },
      context,
    );
    this.rounds.hints.set(next.table.tableId, shoe.number);
    return shoe;
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
      const { state } = await this.rounds.round(
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
          ...bettingCloseOf(table, context),
        },
        context,
      );
      this.rounds.hints.set(shoe.shoeId, number);
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

  /**
   * Accrued commission is a debt Croupier's wallet holds back from what the player can spend
   * until the dealer changes; the operator's wallet cannot be asked to hold anything back, so
   * the debt could be spent before it is collected (ADR 0029). Refused there (seamless mode).
   */
  private requireCommissionTheWalletHolds(config: TableConfig): void {
    if (this.money.accruesCommission || config.commission !== 'accrued') return;
    throw new DomainError(
      'INVALID_TABLE_CONFIG',
      `config.commission: accrued commission (the land-based preset) is not supported in ${this.money.mode} mode (WALLET_MODE=${this.money.mode}): the operator's wallet cannot hold back the commission a seat owes until the dealer changes; use commission 'deducted'`,
      { field: 'config.commission', walletMode: this.money.mode },
    );
  }
}

/**
 * When an auto-dealt round's betting closes: now plus its table's window, recorded in the round so
 * that its dealer, in any process and after a restart, closes it then, and a seamless debit's
 * budget ends by then (ADR 0044). A round dealt by hand has no such time.
 */
function bettingCloseOf(table: OpenTable, context: CommandContext): { bettingClosesAt?: string } {
  if (table.dealing?.mode !== 'auto') return {};
  return {
    bettingClosesAt: new Date(
      context.now().getTime() + table.dealing.bettingWindowMs,
    ).toISOString(),
  };
}
