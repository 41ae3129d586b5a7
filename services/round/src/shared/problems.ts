import type { BetRejectionCode } from '@croupier/baccarat';
import type { ErrorCode } from '@croupier/contracts';

/**
 * The domain error codes each round-service route can answer, for the OpenAPI document (the
 * routes' `config.problems`). Read off the code paths: the route, RoundService, the round and
 * table deciders, and what the shoe and wallet ports refuse. They include what other requests
 * can cause meanwhile (a supervisor pausing the round, another process appending), not what
 * only an altered store could. Schema validation, tokens, roles and transport problems are
 * added by the document itself (packages/http/src/openapi.ts).
 */
type Codes = readonly ErrorCode[];

/** Every command that appends through the one command handler, when the stream kept changing. */
const CONTENDED = 'CONCURRENCY_CONFLICT' satisfies ErrorCode;

/** Every reason a bet breaks the table's rules (typed: a new reason does not compile unlisted). */
const betRules: { readonly [Code in BetRejectionCode]: true } = {
  UNKNOWN_BET: true,
  BET_NOT_OFFERED: true,
  BET_PAST_MAX_ROUND: true,
  INVALID_AMOUNT: true,
  BET_BELOW_MIN: true,
  BET_ABOVE_MAX: true,
  BET_DIFFERENCE_LIMIT: true,
  INVALID_SEAT: true,
  BANKER_MODE_NOT_OFFERED: true,
};
const BET_RULES = Object.keys(betRules) as BetRejectionCode[];

/** The round refuses bets: gone, paused, or past betting (settled and voided rounds included). */
const BETTING_STATE: Codes = ['ROUND_NOT_FOUND', 'ROUND_PAUSED', 'BETTING_CLOSED'];
/** A bet id placed already (a double submit), or naming another bet, here or on another round. */
const BET_IDS: Codes = ['DUPLICATE_BET', 'ID_CONFLICT'];
/** The limits a player's whole set of bets is judged by, on every change to it (ADR 0032). */
const SET_LIMITS: Codes = [
  'BET_PAST_MAX_ROUND',
  'INVALID_AMOUNT',
  'BET_BELOW_MIN',
  'BET_ABOVE_MAX',
  'BET_DIFFERENCE_LIMIT',
];
/** The wallet refuses to debit the stakes (in seamless mode, with a code of its own too). */
const STAKE_DEBIT: Codes = [
  'WALLET_NOT_FOUND',
  'CURRENCY_MISMATCH',
  'INSUFFICIENT_FUNDS',
  'OPERATOR_WALLET_REFUSED',
];

/** Whole-shoe steps close the finished shoe, revealing its seed, which must match its commitment. */
const SEED_REVEALED = 'SEED_MISMATCH' satisfies ErrorCode;

export const ROUND_PROBLEMS = {
  /** The preset or config fails the rules; `dealing` is checked by the route (400). */
  openTable: ['INVALID_TABLE_CONFIG', 'ALREADY_EXISTS'],
  listTables: [],
  getTable: ['TABLE_NOT_FOUND'],
  paytable: ['TABLE_NOT_FOUND'],
  roads: ['TABLE_NOT_FOUND'],
  closeTable: ['TABLE_NOT_FOUND', 'TABLE_CLOSED', CONTENDED],
  changeDealer: ['TABLE_NOT_FOUND', 'TABLE_CLOSED', CONTENDED],
  /** FORBIDDEN: a player's session (its shoes are its own). */
  startShoe: [
    'FORBIDDEN',
    'TABLE_NOT_FOUND',
    'TABLE_CLOSED',
    'SHOE_NOT_FINISHED',
    'ROUND_IN_PROGRESS',
    SEED_REVEALED,
    CONTENDED,
  ],
  /**
   * An unknown table is TABLE_NOT_FOUND; a table with no shoe yet, SHOE_NOT_FOUND; a player's
   * session, FORBIDDEN (the session closes its own shoes).
   */
  closeCurrentShoe: [
    'FORBIDDEN',
    'TABLE_NOT_FOUND',
    'SHOE_NOT_FOUND',
    'ROUND_IN_PROGRESS',
    SEED_REVEALED,
    CONTENDED,
  ],
  /**
   * INVALID_DEAL: the table's scanner shoe waits for its burn card; INVALID_TABLE_CONFIG: an
   * accrued-commission table in seamless mode (opened before the deployment changed mode).
   */
  openRound: [
    'FORBIDDEN',
    'TABLE_NOT_FOUND',
    'TABLE_CLOSED',
    'ROUND_IN_PROGRESS',
    'INVALID_DEAL',
    'INVALID_TABLE_CONFIG',
    SEED_REVEALED,
    CONTENDED,
  ],
  /** FORBIDDEN: a player reading a round of another player's session. */
  getRound: ['ROUND_NOT_FOUND', 'FORBIDDEN'],
  /** VALIDATION_ERROR too: one bet id twice in the request. */
  placeBets: [
    'FORBIDDEN',
    ...BETTING_STATE,
    ...BET_IDS,
    'VALIDATION_ERROR',
    ...BET_RULES,
    ...STAKE_DEBIT,
    CONTENDED,
  ],
  clearBets: [
    'FORBIDDEN',
    'ROUND_NOT_FOUND',
    'ROUND_PAUSED',
    'BETTING_CLOSED',
    'NO_BETS_TO_CLEAR',
    CONTENDED,
  ],
  /**
   * NO_BETS_TO_CLEAR: the bet is not the player's, or not standing (removed already). The bets
   * left must still keep the rules: a spot at its minimum, a hedge within the difference limit.
   */
  removeBet: [
    'FORBIDDEN',
    'ROUND_NOT_FOUND',
    'ROUND_PAUSED',
    'BETTING_CLOSED',
    'NO_BETS_TO_CLEAR',
    'BET_BELOW_MIN',
    'BET_DIFFERENCE_LIMIT',
    CONTENDED,
  ],
  /**
   * The previous bets passed this table's rules and were debited from this wallet in this
   * currency, and the repeat stakes at least as much per bet type: only the round number, the
   * maximums and the funds can refuse them now (and an amount doubled past the exact range; a
   * spot recorded before spots were judged whole may be under its minimum). Their bet ids derive
   * from the round, the multiplier, the spot and the bets cleared: a repeated rebet is a double
   * submit (an id taken elsewhere, ID_CONFLICT). Bets already down refuse it (BETS_ALREADY_PLACED).
   */
  rebet: [
    'FORBIDDEN',
    ...BETTING_STATE,
    'NO_PREVIOUS_BETS',
    'BETS_ALREADY_PLACED',
    ...BET_IDS,
    ...SET_LIMITS,
    'INSUFFICIENT_FUNDS',
    CONTENDED,
  ],
  closeBetting: ['ROUND_NOT_FOUND', 'ROUND_PAUSED', 'FORBIDDEN', CONTENDED],
  /** The shoe draws the whole round by the rules; only a shoe closed or cut meanwhile refuses. */
  /** FORBIDDEN: a player dealing a table that is not their session, a dealer dealing a session. */
  deal: [
    'FORBIDDEN',
    'NO_BETS_TO_DEAL',
    'NO_PREVIOUS_BETS',
    'BETS_ALREADY_PLACED',
    'DUPLICATE_BET',
    'ID_CONFLICT',
    ...SET_LIMITS,
    'INSUFFICIENT_FUNDS',
    'BETTING_CLOSED',
    'ROUND_NOT_FOUND',
    'WRONG_CARD_SOURCE',
    'ROUND_NOT_DEALING',
    'ROUND_PAUSED',
    'ROUND_FINISHED',
    'SHOE_CLOSED',
    'SHOE_FINISHED',
    SEED_REVEALED,
    CONTENDED,
  ],
  /** A voided round is not dealt either: ROUND_NOT_DEALING. */
  confirmResult: ['ROUND_NOT_FOUND', 'ROUND_PAUSED', 'ROUND_NOT_DEALING', CONTENDED],
  resume: ['ROUND_NOT_FOUND', 'ROUND_FINISHED', 'ROUND_NOT_PAUSED', CONTENDED],
  /** Any round of the shoe, even a finished one: the shoe decides (INVALID_DEAL: an older round). */
  reportCutCard: ['ROUND_NOT_FOUND', 'WRONG_CARD_SOURCE', 'SHOE_CLOSED', 'INVALID_DEAL', CONTENDED],
  /**
   * INVALID_DEAL: the round needs no more cards, or the shoe expects another first. A voided
   * round still short of cards answers ROUND_FINISHED; its closed shoe, SHOE_CLOSED.
   */
  postScannedCard: [
    'ROUND_NOT_FOUND',
    'WRONG_CARD_SOURCE',
    'ROUND_NOT_DEALING',
    'ROUND_PAUSED',
    'ROUND_FINISHED',
    'INVALID_DEAL',
    'SHOE_CLOSED',
    'SHOE_FINISHED',
    'IMPOSSIBLE_CARD',
    CONTENDED,
  ],
  /** Paused rounds and settled ones take corrections too; voided ones do not. */
  correctCard: [
    'ROUND_NOT_FOUND',
    'ROUND_FINISHED',
    'WRONG_CARD_SOURCE',
    'INVALID_CORRECTION',
    'IMPOSSIBLE_CARD',
    CONTENDED,
  ],
  pause: ['ROUND_NOT_FOUND', 'ROUND_FINISHED', CONTENDED],
  /** INVALID_SEAT: past the table's seats, or a table without seats. */
  takeSeat: ['TABLE_NOT_FOUND', 'TABLE_CLOSED', 'INVALID_SEAT', 'SEAT_TAKEN', CONTENDED],
  leaveSeat: ['TABLE_NOT_FOUND', 'TABLE_CLOSED', 'NOT_SEATED', CONTENDED],
  openSession: ['INVALID_TABLE_CONFIG', CONTENDED],
  /** FORBIDDEN: another player's session. */
  getSession: ['TABLE_NOT_FOUND', 'FORBIDDEN'],
  /** ROUND_IN_PROGRESS: the last round's settlement took longer than the wait. */
  sessionRound: [
    'TABLE_NOT_FOUND',
    'FORBIDDEN',
    'TABLE_CLOSED',
    'ROUND_IN_PROGRESS',
    SEED_REVEALED,
    CONTENDED,
  ],
  dealSession: [
    'TABLE_NOT_FOUND',
    'FORBIDDEN',
    'TABLE_CLOSED',
    'ROUND_IN_PROGRESS',
    'NO_BETS_TO_DEAL',
    'NO_PREVIOUS_BETS',
    'BETS_ALREADY_PLACED',
    ...BETTING_STATE,
    ...BET_IDS,
    ...SET_LIMITS,
    'INSUFFICIENT_FUNDS',
    'SHOE_CLOSED',
    'SHOE_FINISHED',
    SEED_REVEALED,
    CONTENDED,
  ],
  closeSession: ['TABLE_NOT_FOUND', 'FORBIDDEN', 'ROUND_IN_PROGRESS', SEED_REVEALED, CONTENDED],
  /**
   * Any round, paused or settled; voiding a voided one changes nothing. DEAL_IN_PROGRESS: deals
   * kept starting while the void read the round (it retries a few times first, ADR 0033).
   */
  void: ['ROUND_NOT_FOUND', 'DEAL_IN_PROGRESS', CONTENDED],
} as const satisfies Readonly<Record<string, Codes>>;
