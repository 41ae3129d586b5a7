import {
  betCombinationsOf,
  evaluateRound,
  InvalidDealError,
  nextCardRecipient,
  validateBets,
  validateBetSet,
  BetRejectedError,
  type Card,
  type Hand,
} from '@croupier/baccarat';
import {
  DomainError,
  funMarkOf,
  type CardSource,
  type DrawnCard,
  type PlacedBet,
  type RoundEvent,
  type RoundId,
  type RoundRules,
  type RoundStatus,
  type SettledSpot,
  type SettlementLine,
  type Adjustment,
  type ShoeId,
  type TableId,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';

/** A bet as proposed to the round; the wallet has already been debited for it. */
export interface BetRequest {
  readonly betId: string;
  readonly type: string;
  readonly amount: unknown;
  readonly bankerMode?: string | undefined;
  readonly seat?: number | null | undefined;
}

export type RoundCommand =
  | {
      type: 'OpenRound';
      roundId: RoundId;
      tableId: TableId;
      shoeId: ShoeId;
      number: number;
      cardSource: CardSource;
      currency: string;
      rules: RoundRules;
      paytableId: string;
      dealer: { dealerId: string | null; shiftId: string };
    }
  | { type: 'PlaceBets'; playerId: string; bets: readonly BetRequest[]; rebetOf: RoundId | null }
  /**
   * Takes the player's bets off the round before betting closes: all of them, or only `betIds`
   * (one chip or one bet removed, 003). Recorded as BetsCleared either way, and refunded alike.
   */
  | { type: 'ClearBets'; playerId: string; betIds?: readonly string[] }
  /**
   * Releases debited stakes the round will never take as bets (it refused them, or they never
   * arrived): recorded before their refund, so no bet can follow under their ids.
   */
  | {
      type: 'ReleaseStakes';
      playerId: string;
      stakes: readonly { betId: string; amount: number }[];
      reason: 'bet-rejected' | 'orphaned-debit';
    }
  | { type: 'CloseBetting' }
  /**
   * The round commits to its deal before the shoe draws for it (DealStarted, ADR 0033), closing
   * betting in the same append when `closeBetting` and betting is still open. A round whose
   * deal started is voided only with the cards its shoe sealed for it.
   */
  | { type: 'StartDeal'; closeBetting?: boolean }
  | { type: 'DealCards'; cards: readonly DrawnCard[] }
  | { type: 'CorrectCard'; shoePosition: number; card: Card; reason: string }
  | { type: 'ConfirmResult' }
  | {
      type: 'PauseRound';
      reason: string;
      /**
       * The watchdog's pause of a stalled deal: what it saw when the deadline passed. Nothing is
       * paused unless the round still waits for a card with as many cards and pauses as seen, so
       * a card, a resume or another process's pause in between leaves the round alone.
       */
      stalled?: StallObservation;
    }
  | { type: 'ResumeRound' }
  | {
      type: 'VoidRound';
      reason: string;
      /**
       * The watchdog's void of a round paused too long: voided only while still in the pause it
       * saw (`pauses`, counted from the round's first), never after a resume.
       */
      pausedAs?: { readonly pauses: number };
      /**
       * The cards the round's shoe sealed for it (ShoePort.sealRound): required while its deal
       * is under way, so the void records the ones it never dealt. Once the shoe is sealed the
       * round can take no card, so the void stands even if the pause `pausedAs` names is over.
       */
      sealed?: readonly DrawnCard[];
    };

/** A round waiting for a card as the watchdog saw it: its cards and pauses so far. */
export interface StallObservation {
  readonly cards: number;
  readonly pauses: number;
}

export interface ActiveBet extends PlacedBet {
  readonly status: 'active' | 'cleared';
}

/** A debited stake the round released for refund: no bet is ever placed under its id. */
export interface ReleasedStake {
  readonly playerId: string;
  readonly betId: string;
  readonly amount: number;
}

/** Released stakes are keyed by bet id and player: the id alone is the client's to choose. */
export const releaseKey = (betId: string, playerId: string): string => `${betId}/${playerId}`;

export interface CardAt {
  readonly card: Card;
  readonly shoePosition: number;
}

export interface RoundState {
  readonly status: RoundStatus;
  readonly paused: boolean;
  /** DealStarted is recorded (or, in a round recorded before it existed, a card was dealt). */
  readonly dealStarted: boolean;
  /** RoundPaused events so far: names each pause, so a watchdog acts only on the one it saw. */
  readonly pauses: number;
  readonly roundId: RoundId;
  readonly tableId: TableId;
  readonly shoeId: ShoeId;
  readonly number: number;
  readonly cardSource: CardSource;
  readonly currency: string;
  readonly rules: RoundRules | null;
  readonly paytableId: string | null;
  readonly dealerId: string | null;
  readonly bets: ReadonlyMap<string, ActiveBet>;
  readonly player: readonly CardAt[];
  readonly banker: readonly CardAt[];
  readonly settlementId: string | null;
  readonly settledLines: readonly SettlementLine[];
  /** The spots the lines were paid by (none for a round settled before spots, ADR 0032). */
  readonly settledSpots: readonly SettledSpot[];
  /** Per-bet adjustments of every resettlement, in order (a void or a corrected result). */
  readonly adjustments: readonly Adjustment[];
  readonly refundedBetIds: ReadonlySet<string>;
  readonly releasedStakes: ReadonlyMap<string, ReleasedStake>;
}

export const initialRoundState = (): RoundState => ({
  status: 'none',
  paused: false,
  dealStarted: false,
  pauses: 0,
  roundId: '',
  tableId: '',
  shoeId: '',
  number: 0,
  cardSource: 'rng',
  currency: '',
  rules: null,
  paytableId: null,
  dealerId: null,
  bets: new Map(),
  player: [],
  banker: [],
  settlementId: null,
  settledLines: [],
  settledSpots: [],
  adjustments: [],
  refundedBetIds: new Set(),
  releasedStakes: new Map(),
});

export function activeBets(state: RoundState, playerId?: string): ActiveBet[] {
  return [...state.bets.values()].filter(
    (bet) => bet.status === 'active' && (playerId === undefined || bet.playerId === playerId),
  );
}

/**
 * Runs a bet-set rule of packages/baccarat and answers its refusal as the round's: the rule's own
 * code, naming the field. Every change to a player's bets passes here, so no sequence of changes
 * (place, remove one chip, rebet) can leave a set the rules would refuse (issue 24).
 */
function judged<T>(rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    if (error instanceof BetRejectedError) {
      throw new DomainError(error.code, error.message, { field: error.field });
    }
    throw error;
  }
}

const cardsOf = (hand: readonly CardAt[]): Card[] => hand.map((c) => c.card);

function replaceCard(hand: readonly CardAt[], shoePosition: number, card: Card): CardAt[] {
  return hand.map((c) => (c.shoePosition === shoePosition ? { ...c, card } : c));
}

export function evolveRound(state: RoundState, event: RoundEvent): RoundState {
  switch (event.type) {
    case 'RoundOpened': {
      const d = event.data;
      return {
        ...state,
        status: 'betting',
        roundId: d.roundId,
        tableId: d.tableId,
        shoeId: d.shoeId,
        number: d.number,
        cardSource: d.cardSource,
        currency: d.currency,
        rules: d.rules,
        paytableId: d.paytableId,
        dealerId: d.dealer.dealerId,
      };
    }
    case 'BetPlaced': {
      const { roundId: _round, rebetOf: _rebet, fun: _fun, ...bet } = event.data;
      const bets = new Map(state.bets);
      bets.set(bet.betId, { ...bet, status: 'active' });
      return { ...state, bets };
    }
    case 'BetsCleared': {
      const bets = new Map(state.bets);
      for (const betId of event.data.betIds) {
        const bet = bets.get(betId);
        if (bet) bets.set(betId, { ...bet, status: 'cleared' });
      }
      return { ...state, bets };
    }
    case 'StakeReleased': {
      const { playerId, betId, amount } = event.data;
      const releasedStakes = new Map(state.releasedStakes);
      releasedStakes.set(releaseKey(betId, playerId), { playerId, betId, amount });
      return { ...state, releasedStakes };
    }
    case 'BettingClosed':
      return { ...state, status: 'closed' };
    case 'DealStarted':
      return { ...state, dealStarted: true };
    case 'CardDealt': {
      const card = { card: event.data.card, shoePosition: event.data.shoePosition };
      const player = event.data.hand === 'player' ? [...state.player, card] : state.player;
      const banker = event.data.hand === 'banker' ? [...state.banker, card] : state.banker;
      const complete = nextCardRecipient(cardsOf(player), cardsOf(banker)) === null;
      return {
        ...state,
        player,
        banker,
        dealStarted: true,
        status: complete ? 'dealt' : 'dealing',
      };
    }
    case 'CardCorrected': {
      const { shoePosition, card } = event.data;
      const player = replaceCard(state.player, shoePosition, card);
      const banker = replaceCard(state.banker, shoePosition, card);
      if (state.status === 'completed') return { ...state, player, banker };
      const complete = nextCardRecipient(cardsOf(player), cardsOf(banker)) === null;
      return { ...state, player, banker, status: complete ? 'dealt' : 'dealing' };
    }
    case 'RoundPaused':
      return { ...state, paused: true, pauses: state.pauses + 1 };
    case 'RoundResumed':
      return { ...state, paused: false };
    case 'RoundCompleted':
      return { ...state, status: 'completed' };
    case 'RoundResultCorrected':
      return state;
    case 'RoundResettled':
      return { ...state, adjustments: [...state.adjustments, ...event.data.adjustments] };
    case 'RoundSettled':
      return {
        ...state,
        settlementId: event.data.settlementId,
        settledLines: event.data.lines,
        settledSpots: event.data.spots ?? [],
      };
    case 'BetsRefunded': {
      const refundedBetIds = new Set(state.refundedBetIds);
      for (const line of event.data.lines) refundedBetIds.add(line.betId);
      return { ...state, refundedBetIds };
    }
    case 'RoundVoided':
      return { ...state, status: 'voided', paused: false };
  }
}

function requireOpen(state: RoundState): void {
  if (state.status === 'none') throw new DomainError('ROUND_NOT_FOUND', 'no such round');
}

function requireNotPaused(state: RoundState): void {
  if (state.paused) throw new DomainError('ROUND_PAUSED', `round ${state.roundId} is paused`);
}

function requireNotFinished(state: RoundState): void {
  if (state.status === 'completed' || state.status === 'voided') {
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} is ${state.status}`);
  }
}

/**
 * Refuses a round that takes no card from a shoe of this source now. The service asks it before
 * the shoe draws (the shoe's stream is another's, so the refusal must come first) and decide asks
 * it again when the cards arrive: one rule, in one place. A completed round is not refused here:
 * an rng deal retried after it completed is answered with the round as it is.
 */
export function requireTakesCards(state: RoundState, source: CardSource): void {
  requireOpen(state);
  if (state.cardSource !== source) {
    throw new DomainError(
      'WRONG_CARD_SOURCE',
      source === 'rng'
        ? 'a scanner table posts each card it reads'
        : 'an rng table deals its own cards',
    );
  }
  if (state.status === 'betting')
    throw new DomainError('ROUND_NOT_DEALING', 'close betting before dealing');
  requireNotPaused(state);
  if (state.status === 'voided')
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} was voided`);
}

/**
 * Whether the shoe may have drawn cards the round has not recorded: its deal started and it is
 * neither completed nor voided. Such a round is voided only with the cards its shoe sealed.
 */
export function dealUnderWay(state: RoundState): boolean {
  return state.dealStarted && state.status !== 'completed' && state.status !== 'voided';
}

/**
 * Where the next scanned card goes: the hand the third-card rule gives it and its place among the
 * round's cards, or the refusal (INVALID_DEAL once the rule wants no more cards).
 */
export function nextScannedCard(state: RoundState): { hand: Hand; index: number } {
  requireTakesCards(state, 'scanner');
  const hand = nextCardRecipient(cardsOf(state.player), cardsOf(state.banker));
  if (hand === null)
    throw new DomainError('INVALID_DEAL', `round ${state.roundId} needs no more cards`);
  return { hand, index: state.player.length + state.banker.length };
}

/** A supervisor's correction of a scanned card: which card, what it becomes, and why. */
export type CardCorrectionRequest = Omit<Extract<RoundCommand, { type: 'CorrectCard' }>, 'type'>;

/**
 * Refuses a correction the round cannot take: asked before the shoe records it, and by decide.
 * Returns the card being replaced (the same card again changes nothing and is not refused).
 */
export function requireCorrectable(state: RoundState, correction: CardCorrectionRequest): CardAt {
  requireOpen(state);
  if (state.status === 'voided')
    throw new DomainError('ROUND_FINISHED', `round ${state.roundId} was voided`);
  if (state.cardSource !== 'scanner')
    throw new DomainError('WRONG_CARD_SOURCE', 'only scanned cards can be corrected');
  const { shoePosition, card } = correction;
  const old = [...state.player, ...state.banker].find((c) => c.shoePosition === shoePosition);
  if (old === undefined) {
    throw new DomainError(
      'INVALID_CORRECTION',
      `no card of round ${state.roundId} came from shoe position ${shoePosition}`,
    );
  }
  if (old.card === card) return old;
  const player = replaceCard(state.player, shoePosition, card);
  const banker = replaceCard(state.banker, shoePosition, card);
  let due: Hand | null;
  try {
    due = nextCardRecipient(cardsOf(player), cardsOf(banker));
  } catch (error) {
    if (error instanceof InvalidDealError) {
      throw new DomainError(
        'INVALID_CORRECTION',
        `with ${card} at position ${shoePosition} the cards already dealt break the third-card rule (${error.message}); void the round instead`,
      );
    }
    throw error;
  }
  // A completed round can only take a correction that leaves it complete: its result is
  // corrected, and settlement pays the difference (never by editing the settlement).
  if (state.status === 'completed' && due !== null) {
    throw new DomainError(
      'INVALID_CORRECTION',
      `with ${card} at position ${shoePosition} the round would need another card; void the round instead`,
    );
  }
  return old;
}

function completion(
  state: RoundState,
  player: readonly CardAt[],
  banker: readonly CardAt[],
): RoundEvent {
  const result = evaluateRound(cardsOf(player), cardsOf(banker));
  const hand = (side: Hand) => ({
    cards: side === 'player' ? [...result.player] : [...result.banker],
    total: side === 'player' ? result.playerTotal : result.bankerTotal,
    natural: side === 'player' ? result.playerNatural : result.bankerNatural,
    pair: side === 'player' ? result.playerPair : result.bankerPair,
    perfectPair: side === 'player' ? result.playerPerfectPair : result.bankerPerfectPair,
  });
  return {
    type: 'RoundCompleted',
    data: {
      roundId: state.roundId,
      player: hand('player'),
      banker: hand('banker'),
      winner: result.winner,
    },
  };
}

/** Whether a request repeats a bet on the round: same player and stake, and mode/seat if given. */
function repeats(bet: ActiveBet, playerId: string, request: BetRequest): boolean {
  return (
    bet.status === 'active' &&
    bet.playerId === playerId &&
    bet.type === request.type &&
    bet.amount === request.amount &&
    (request.bankerMode === undefined || request.bankerMode === bet.bankerMode) &&
    (request.seat === undefined || request.seat === bet.seat)
  );
}

/**
 * A bet id names one bet. The same bet submitted again (a double submit) is refused and the first
 * one stands; an id that names another bet (another stake, another player, a cleared bet) is a
 * conflict. Either way nothing is appended and no wallet is touched.
 */
function requireFreshBetIds(
  command: Extract<RoundCommand, { type: 'PlaceBets' }>,
  state: RoundState,
): void {
  const ids = command.bets.map((bet) => bet.betId);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) {
    throw new DomainError('VALIDATION_ERROR', `betId ${twice} appears twice in one request`, {
      field: 'betId',
    });
  }
  const released = command.bets.filter((bet) =>
    state.releasedStakes.has(releaseKey(bet.betId, command.playerId)),
  );
  if (released.length > 0) {
    const betIds = released.map((bet) => bet.betId);
    throw new DomainError(
      'ID_CONFLICT',
      `betId ${betIds.join(', ')} was refused on round ${state.roundId} and its stake returned; a new bet needs a new id`,
      { field: 'betId', betIds },
    );
  }
  const known = command.bets.filter((bet) => state.bets.has(bet.betId));
  if (known.length === 0) return;
  const betIds = known.map((bet) => bet.betId);
  if (known.every((bet) => repeats(state.bets.get(bet.betId)!, command.playerId, bet))) {
    throw new DomainError(
      'DUPLICATE_BET',
      `betId ${betIds.join(', ')} ${betIds.length === 1 ? 'is' : 'are'} already placed on round ${state.roundId}: a double submit; the first stands and nothing changed`,
      { field: 'betId', betIds },
    );
  }
  throw new DomainError(
    'ID_CONFLICT',
    `betId ${betIds.join(', ')} already names another bet on round ${state.roundId}; a new bet needs a new id`,
    { field: 'betId', betIds },
  );
}

function placeBets(
  command: Extract<RoundCommand, { type: 'PlaceBets' }>,
  state: RoundState,
): RoundEvent[] {
  requireOpen(state);
  requireNotPaused(state);
  if (state.status !== 'betting')
    throw new DomainError('BETTING_CLOSED', `betting on round ${state.roundId} is closed`);
  requireFreshBetIds(command, state);
  const combinations = betCombinationsOf(state.rules!);
  if (command.bets.length > combinations) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `body.bets: at most ${combinations} bets in one request, one for each bet (and banker mode${state.rules!.seats === null ? '' : ', seat'}) this table offers; got ${command.bets.length}`,
      { field: 'body.bets' },
    );
  }
  const standing = activeBets(state, command.playerId);
  // Rebet repeats the previous round's spots as the round's bets (003: "the same bets as the
  // previous round", then the round is dealt); on top of chips already down it would deal
  // something else. Asked after the ids, so a retried rebet is still a double submit.
  if (command.rebetOf !== null && standing.length > 0) {
    throw new DomainError(
      'BETS_ALREADY_PLACED',
      `${command.playerId} has bets on round ${state.roundId}: deal them, or clear them before a rebet`,
    );
  }
  const valid = judged(() => validateBets(state.rules!, state.number, standing, command.bets));
  return valid.map((bet, index) => ({
    type: 'BetPlaced',
    data: {
      roundId: state.roundId,
      betId: command.bets[index]!.betId,
      playerId: command.playerId,
      type: bet.type,
      amount: bet.amount,
      bankerMode: bet.bankerMode ?? null,
      seat: bet.seat,
      rebetOf: command.rebetOf,
      ...funMarkOf(state.currency),
    },
  }));
}

function dealCards(
  command: Extract<RoundCommand, { type: 'DealCards' }>,
  state: RoundState,
): RoundEvent[] {
  requireTakesCards(state, state.cardSource);
  requireNotFinished(state);
  // The shoe draws only for a round that committed to its deal first (ADR 0033).
  if (!state.dealStarted)
    throw new DomainError(
      'ROUND_NOT_DEALING',
      `the deal of round ${state.roundId} has not started`,
    );
  const dealtPositions = new Set([...state.player, ...state.banker].map((c) => c.shoePosition));
  const fresh = command.cards.filter((c) => !dealtPositions.has(c.position));
  const player = [...state.player];
  const banker = [...state.banker];
  const events: RoundEvent[] = [];
  for (const drawn of fresh) {
    const due = nextCardRecipient(cardsOf(player), cardsOf(banker));
    if (due === null)
      throw new DomainError('INVALID_DEAL', `round ${state.roundId} needs no more cards`);
    if (due !== drawn.hand) {
      throw new DomainError(
        'INVALID_DEAL',
        `the next card goes to the ${due}, not the ${drawn.hand}`,
      );
    }
    (due === 'player' ? player : banker).push({ card: drawn.card, shoePosition: drawn.position });
    events.push({
      type: 'CardDealt',
      data: { roundId: state.roundId, hand: due, card: drawn.card, shoePosition: drawn.position },
    });
  }
  const complete = nextCardRecipient(cardsOf(player), cardsOf(banker)) === null;
  // An rng round is settled as dealt; a scanned one waits for the dealer to confirm the result.
  if (complete && state.cardSource === 'rng' && events.length > 0)
    events.push(completion(state, player, banker));
  return events;
}

/** Whether a round waits for a card (closed, or dealing with more due) and is not paused. */
export function waitsForCard(state: RoundState): boolean {
  return !state.paused && (state.status === 'closed' || state.status === 'dealing');
}

/** The round still waits for a card exactly as the watchdog saw it. */
function stillStalled(state: RoundState, seen: StallObservation): boolean {
  return (
    waitsForCard(state) &&
    state.player.length + state.banker.length === seen.cards &&
    state.pauses === seen.pauses
  );
}

function startDeal(
  command: Extract<RoundCommand, { type: 'StartDeal' }>,
  state: RoundState,
): RoundEvent[] {
  requireOpen(state);
  const events: RoundEvent[] = [];
  if (state.status === 'betting' && command.closeBetting === true) {
    requireNotPaused(state);
    events.push({ type: 'BettingClosed', data: { roundId: state.roundId } });
  } else {
    requireTakesCards(state, state.cardSource);
    // Started already (a retried deal, the next scanned card) or dealt in full: nothing to do.
    if (state.dealStarted || state.status === 'completed') return [];
  }
  events.push({ type: 'DealStarted', data: { roundId: state.roundId } });
  return events;
}

/**
 * A void of a round whose deal is under way records the cards its shoe drew for it and it never
 * dealt (`discarded`), as the shoe sealed them: the round and the shoe agree on every card. Without
 * the sealed cards it is refused DEAL_IN_PROGRESS (the deal started since the caller looked).
 * A completed (even settled) round may be voided too: settlement refunds its bets if it was not
 * settled yet, or takes every bet back to its stake with compensating records if it was
 * (ADR 0009, 0033).
 */
function voidRound(
  command: Extract<RoundCommand, { type: 'VoidRound' }>,
  state: RoundState,
): RoundEvent[] {
  requireOpen(state);
  if (state.status === 'voided') return [];
  const { sealed, pausedAs } = command;
  if (
    sealed === undefined &&
    pausedAs !== undefined &&
    !(state.paused && state.pauses === pausedAs.pauses)
  )
    return [];
  if (sealed === undefined && dealUnderWay(state)) {
    throw new DomainError(
      'DEAL_IN_PROGRESS',
      `the deal of round ${state.roundId} is under way: it is voided with the cards its shoe sealed for it`,
    );
  }
  const dealt = new Set([...state.player, ...state.banker].map((c) => c.shoePosition));
  const discarded = sealed?.filter((drawn) => !dealt.has(drawn.position));
  return [
    {
      type: 'RoundVoided',
      data: {
        roundId: state.roundId,
        reason: command.reason,
        ...(discarded === undefined ? {} : { discarded: [...discarded] }),
      },
    },
  ];
}

function decide(command: RoundCommand, state: RoundState): RoundEvent[] {
  switch (command.type) {
    case 'OpenRound': {
      if (state.status !== 'none')
        throw new DomainError('ALREADY_EXISTS', `round ${command.roundId} exists`);
      const { type: _type, ...data } = command;
      return [{ type: 'RoundOpened', data }];
    }
    case 'PlaceBets':
      return placeBets(command, state);
    case 'ClearBets': {
      requireOpen(state);
      requireNotPaused(state);
      if (state.status !== 'betting')
        throw new DomainError('BETTING_CLOSED', `betting on round ${state.roundId} is closed`);
      const mine = activeBets(state, command.playerId);
      const bets =
        command.betIds === undefined
          ? mine
          : mine.filter((bet) => command.betIds!.includes(bet.betId));
      if (
        bets.length === 0 ||
        (command.betIds !== undefined && bets.length < command.betIds.length)
      )
        throw new DomainError(
          'NO_BETS_TO_CLEAR',
          command.betIds === undefined
            ? `${command.playerId} has no bets on round ${state.roundId}`
            : `${command.playerId} has no standing bet ${command.betIds.join(', ')} on round ${state.roundId}`,
        );
      // Removing chips must leave the rest a set the rules accept (a hedge kept, a spot at its
      // minimum); clearing everything always does.
      const removed = new Set(bets.map((bet) => bet.betId));
      judged(() => {
        validateBetSet(
          state.rules!,
          state.number,
          mine.filter((bet) => !removed.has(bet.betId)),
        );
      });
      return [
        {
          type: 'BetsCleared',
          data: {
            roundId: state.roundId,
            playerId: command.playerId,
            betIds: bets.map((b) => b.betId),
          },
        },
      ];
    }
    case 'ReleaseStakes':
      requireOpen(state);
      return command.stakes
        .filter(
          (stake) =>
            // A stake that became this player's bet is the round's to close (settle or void).
            state.bets.get(stake.betId)?.playerId !== command.playerId &&
            !state.releasedStakes.has(releaseKey(stake.betId, command.playerId)),
        )
        .map((stake) => ({
          type: 'StakeReleased',
          data: {
            roundId: state.roundId,
            playerId: command.playerId,
            betId: stake.betId,
            amount: stake.amount,
            reason: command.reason,
            ...funMarkOf(state.currency),
          },
        }));
    case 'CloseBetting':
      requireOpen(state);
      requireNotPaused(state);
      if (state.status !== 'betting') return [];
      return [{ type: 'BettingClosed', data: { roundId: state.roundId } }];
    case 'StartDeal':
      return startDeal(command, state);
    case 'DealCards':
      return dealCards(command, state);
    case 'CorrectCard': {
      const old = requireCorrectable(state, command);
      if (old.card === command.card) return [];
      const corrected: RoundEvent = {
        type: 'CardCorrected',
        data: {
          roundId: state.roundId,
          shoePosition: command.shoePosition,
          previous: old.card,
          card: command.card,
          reason: command.reason,
        },
      };
      if (state.status !== 'completed') return [corrected];
      const player = replaceCard(state.player, command.shoePosition, command.card);
      const banker = replaceCard(state.banker, command.shoePosition, command.card);
      const completed = completion(state, player, banker);
      if (completed.type !== 'RoundCompleted') throw new Error('completion yields RoundCompleted');
      return [
        corrected,
        { type: 'RoundResultCorrected', data: { ...completed.data, reason: command.reason } },
      ];
    }
    case 'ConfirmResult':
      requireOpen(state);
      requireNotPaused(state);
      if (state.status === 'completed') return [];
      if (state.status !== 'dealt')
        throw new DomainError('ROUND_NOT_DEALING', `round ${state.roundId} is not fully dealt`);
      return [completion(state, state.player, state.banker)];
    case 'PauseRound':
      requireOpen(state);
      if (command.stalled !== undefined && !stillStalled(state, command.stalled)) return [];
      requireNotFinished(state);
      if (state.paused) return [];
      return [{ type: 'RoundPaused', data: { roundId: state.roundId, reason: command.reason } }];
    case 'ResumeRound':
      requireOpen(state);
      requireNotFinished(state);
      if (!state.paused)
        throw new DomainError('ROUND_NOT_PAUSED', `round ${state.roundId} is not paused`);
      return [{ type: 'RoundResumed', data: { roundId: state.roundId } }];
    case 'VoidRound':
      return voidRound(command, state);
  }
}

export const roundDecider: Decider<RoundCommand, RoundEvent, RoundState> = {
  decide,
  evolve: evolveRound,
  initialState: initialRoundState,
};
