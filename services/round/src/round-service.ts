import type { CommandHandler } from '@croupier/application';
import { moneyHolder, type MoneyHolder, type ShoePort, type WalletPort } from '@croupier/contracts';
import { BetWorkflowRunner } from './bets/bet-workflow-runner.js';
import { Bets } from './bets/bets.js';
import { Dealing } from './dealing/dealing.js';
import { Faults } from './faults/faults.js';
import { Rebets } from './rebet/rebet.js';
import { Seats } from './seats/seats.js';
import { Sessions } from './sessions/sessions.js';
import { RoundContext } from './shared/round-context.js';
import { Tables } from './tables/tables.js';

export type { BetInput } from './bets/bets.js';
export type { DroppedBet, Rebet } from './rebet/rebet.js';
export { roundRulesOf } from './tables/tables.js';

/**
 * The round service's command side, one capability per folder: tables (and their shoes and
 * rounds' opening), seats, bets, rebet, dealing, faults, sessions. Each slice holds its own
 * commands and shares only the aggregates (`RoundContext`); this class builds them once and
 * answers for them, so a process (and its tests) holds the whole service in one value. It asks
 * the shoe for cards and the wallet for stakes through their ports, never through their
 * internals.
 */
export class RoundService {
  readonly context: RoundContext;
  readonly faults: Faults;
  readonly tables: Tables;
  readonly seats: Seats;
  readonly bets: Bets;
  readonly rebets: Rebets;
  readonly dealing: Dealing;
  readonly sessions: Sessions;

  /**
   * `money`: what the wallet that holds the players' money allows, picked where the process is
   * composed (ADR 0037): where it cannot hold commission back, a table whose commission is
   * accrued is refused at opening (ADR 0029). Default Croupier's own wallet (transfer).
   */
  constructor(
    commands: CommandHandler,
    shoes: ShoePort,
    wallets: WalletPort,
    options: { readonly money?: MoneyHolder } = {},
  ) {
    const context = new RoundContext(commands, shoes);
    this.context = context;
    this.faults = new Faults(context);
    this.tables = new Tables(context, this.faults, options.money ?? moneyHolder('transfer'));
    this.seats = new Seats(context);
    this.bets = new Bets(context, new BetWorkflowRunner(commands, wallets), this.seats);
    this.rebets = new Rebets(context, this.bets);
    this.dealing = new Dealing(context, this.faults);
    this.sessions = new Sessions(context, this);
  }

  // Reads (the shared aggregates).
  readonly getTable: RoundContext['getTable'] = (...a) => this.context.getTable(...a);
  readonly currentShoe: RoundContext['currentShoe'] = (...a) => this.context.currentShoe(...a);
  readonly currentRound: RoundContext['currentRound'] = (...a) => this.context.currentRound(...a);
  readonly getRound: RoundContext['getRound'] = (...a) => this.context.getRound(...a);
  readonly getRoundAs: RoundContext['getRoundAs'] = (...a) => this.context.getRoundAs(...a);
  // tables/
  readonly openTable: Tables['openTable'] = (...a) => this.tables.openTable(...a);
  readonly changeDealer: Tables['changeDealer'] = (...a) => this.tables.changeDealer(...a);
  readonly closeTable: Tables['closeTable'] = (...a) => this.tables.closeTable(...a);
  readonly openRound: Tables['openRound'] = (...a) => this.tables.openRound(...a);
  readonly startShoe: Tables['startShoe'] = (...a) => this.tables.startShoe(...a);
  readonly closeCurrentShoe: Tables['closeCurrentShoe'] = (...a) =>
    this.tables.closeCurrentShoe(...a);
  // seats/
  readonly takeSeat: Seats['takeSeat'] = (...a) => this.seats.takeSeat(...a);
  readonly leaveSeat: Seats['leaveSeat'] = (...a) => this.seats.leaveSeat(...a);
  // bets/ and rebet/
  readonly placeBets: Bets['placeBets'] = (...a) => this.bets.placeBets(...a);
  readonly clearBets: Bets['clearBets'] = (...a) => this.bets.clearBets(...a);
  readonly sweepOrphanedDebits: Bets['sweepOrphanedDebits'] = (...a) =>
    this.bets.sweepOrphanedDebits(...a);
  readonly rebet: Rebets['rebet'] = (...a) => this.rebets.rebet(...a);
  // dealing/
  readonly closeBetting: Dealing['closeBetting'] = (...a) => this.dealing.closeBetting(...a);
  readonly deal: Dealing['deal'] = (...a) => this.dealing.deal(...a);
  readonly postScannedCard: Dealing['postScannedCard'] = (...a) =>
    this.dealing.postScannedCard(...a);
  readonly reportCutCard: Dealing['reportCutCard'] = (...a) => this.dealing.reportCutCard(...a);
  readonly correctCard: Dealing['correctCard'] = (...a) => this.dealing.correctCard(...a);
  readonly confirmResult: Dealing['confirmResult'] = (...a) => this.dealing.confirmResult(...a);
  // faults/
  readonly pause: Faults['pause'] = (...a) => this.faults.pause(...a);
  readonly resume: Faults['resume'] = (...a) => this.faults.resume(...a);
  readonly void: Faults['void'] = (...a) => this.faults.void(...a);
  readonly pauseStalled: Faults['pauseStalled'] = (...a) => this.faults.pauseStalled(...a);
  readonly voidPaused: Faults['voidPaused'] = (...a) => this.faults.voidPaused(...a);
  readonly voidOnExhaustedShoe: Faults['voidOnExhaustedShoe'] = (...a) =>
    this.faults.voidOnExhaustedShoe(...a);
  // sessions/
  readonly openSession: Sessions['openSession'] = (...a) => this.sessions.openSession(...a);
  readonly sessionRound: Sessions['sessionRound'] = (...a) => this.sessions.sessionRound(...a);
  readonly dealAsPlayer: Sessions['dealAsPlayer'] = (...a) => this.sessions.dealAsPlayer(...a);
  readonly closeSessionStep: Sessions['closeSessionStep'] = (...a) =>
    this.sessions.closeSessionStep(...a);
}
