import {
  burnCount,
  cutCardIndex,
  dealRound,
  lastRoundAfterCutCard,
  SHUFFLE_ALGORITHM,
  shuffleCommitment,
  shuffleShoe,
  type Card,
  type Hand,
} from '@croupier/baccarat';
import {
  DomainError,
  type CardSource,
  type DigestEntry,
  type DrawnCard,
  type RoundId,
  type ShoeEvent,
  type ShoeCloseReason,
  type ShoeId,
  type TableId,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';

/**
 * The shoe: the ledger of every card. It is shuffled (rng: from a committed secret seed) or
 * filled by a card reader (scanner), burns per the rule, hands cards to rounds in order, notes
 * the cut card and the last round, and closes revealing the seed.
 */
export type ShoeCommand =
  | {
      type: 'ShuffleShoe';
      shoeId: ShoeId;
      tableId: TableId;
      number: number;
      decks: number;
      cardSource: CardSource;
      shufflePolicy: 'shoe' | 'every-round';
      burn: boolean;
      /** Cut card, in cards from the end; null for none. */
      cutCard: number | null;
      /** rng shoes: the secret seed (hex) and the same seed sealed for storage. */
      rng: { seed: string; sealedSeed: string } | null;
    }
  | { type: 'BurnScannedCard'; shownCard: Card }
  | { type: 'DrawRound'; roundId: RoundId; roundNumber: number; seed: string }
  | {
      type: 'DrawScannedCard';
      roundId: RoundId;
      roundNumber: number;
      /** The card's place in the round (0-5): a retried post of the same card is recognized. */
      index: number;
      card: Card;
      hand: Hand;
    }
  | { type: 'ReportCutCard'; roundId: RoundId; roundNumber: number }
  /** A round is being voided mid-deal: the shoe draws no more for it (ADR 0033). */
  | { type: 'SealRound'; roundId: RoundId }
  | { type: 'CorrectCard'; roundId: RoundId; position: number; card: Card; reason: string }
  | {
      type: 'CloseShoe';
      reason: ShoeCloseReason;
      seed: string | null;
      digest: { streams: DigestEntry[]; value: string };
    };

export interface ShoeRound {
  readonly number: number;
  readonly cards: readonly DrawnCard[];
}

export interface ShoeState {
  readonly status: 'none' | 'awaiting-burn' | 'dealing' | 'closed';
  readonly shoeId: ShoeId;
  readonly tableId: TableId;
  readonly decks: number;
  readonly cardSource: CardSource;
  readonly shufflePolicy: 'shoe' | 'every-round';
  readonly burn: boolean;
  readonly cutCardIndex: number | null;
  readonly commitment: string | null;
  readonly sealedSeed: string | null;
  /** Position of the next card to come out. */
  readonly position: number;
  /** Cards seen so far (burned face up, drawn), for the composition check on scanner shoes. */
  readonly seen: ReadonlyMap<Card, number>;
  readonly rounds: ReadonlyMap<RoundId, ShoeRound>;
  /** Rounds the shoe draws no more cards for (RoundSealed): voided mid-deal. */
  readonly sealed: ReadonlySet<RoundId>;
  readonly lastRoundDrawn: number;
  readonly lastRoundNumber: number | null;
  /** Where the cut card came out and in which round; null until it does. */
  readonly cutCardReached: { readonly position: number; readonly roundNumber: number } | null;
}

export const initialShoeState = (): ShoeState => ({
  status: 'none',
  shoeId: '',
  tableId: '',
  decks: 0,
  cardSource: 'rng',
  shufflePolicy: 'shoe',
  burn: false,
  cutCardIndex: null,
  commitment: null,
  sealedSeed: null,
  position: 0,
  seen: new Map(),
  rounds: new Map(),
  sealed: new Set(),
  lastRoundDrawn: 0,
  lastRoundNumber: null,
  cutCardReached: null,
});

const countSeen = (
  seen: ReadonlyMap<Card, number>,
  card: Card,
  delta: number,
): Map<Card, number> => {
  const next = new Map(seen);
  next.set(card, (next.get(card) ?? 0) + delta);
  return next;
};

export function evolveShoe(state: ShoeState, event: ShoeEvent): ShoeState {
  switch (event.type) {
    case 'ShoeShuffled': {
      const d = event.data;
      return {
        ...state,
        status: d.burn && d.cardSource === 'scanner' ? 'awaiting-burn' : 'dealing',
        shoeId: d.shoeId,
        tableId: d.tableId,
        decks: d.decks,
        cardSource: d.cardSource,
        shufflePolicy: d.shufflePolicy,
        burn: d.burn,
        cutCardIndex: d.cutCardIndex,
        commitment: d.commitment,
        sealedSeed: d.sealedSeed,
      };
    }
    case 'CardBurned': {
      const { card } = event.data;
      return {
        ...state,
        status: 'dealing',
        position: event.data.position + 1,
        seen: card === null ? state.seen : countSeen(state.seen, card, 1),
      };
    }
    case 'CardsDrawn': {
      const { roundId, roundNumber, cards } = event.data;
      const previous = state.rounds.get(roundId)?.cards ?? [];
      const rounds = new Map(state.rounds);
      rounds.set(roundId, { number: roundNumber, cards: [...previous, ...cards] });
      let seen = state.seen;
      for (const drawn of cards) seen = countSeen(seen, drawn.card, 1);
      return {
        ...state,
        rounds,
        seen,
        position: cards.at(-1)!.position + 1,
        lastRoundDrawn: Math.max(state.lastRoundDrawn, roundNumber),
      };
    }
    case 'CardCorrected': {
      const { roundId, position, previous, card } = event.data;
      const round = state.rounds.get(roundId);
      if (round === undefined) return state;
      const rounds = new Map(state.rounds);
      rounds.set(roundId, {
        ...round,
        cards: round.cards.map((drawn) =>
          drawn.position === position ? { ...drawn, card } : drawn,
        ),
      });
      return { ...state, rounds, seen: countSeen(countSeen(state.seen, previous, -1), card, 1) };
    }
    case 'CutCardReached':
      return {
        ...state,
        lastRoundNumber: event.data.lastRoundNumber,
        cutCardReached: { position: event.data.position, roundNumber: event.data.roundNumber },
      };
    case 'RoundSealed':
      return { ...state, sealed: new Set(state.sealed).add(event.data.roundId) };
    case 'ShoeClosed':
      return { ...state, status: 'closed' };
  }
}

function requireDealing(state: ShoeState): void {
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  if (state.status === 'closed')
    throw new DomainError('SHOE_CLOSED', `shoe ${state.shoeId} is closed`);
  if (state.status === 'awaiting-burn') {
    throw new DomainError('INVALID_DEAL', `shoe ${state.shoeId} must burn before its first round`);
  }
}

/** A round sealed for its void (ADR 0033) takes no more cards, whatever its number. */
function requireNotSealed(state: ShoeState, roundId: RoundId): void {
  if (state.sealed.has(roundId))
    throw new DomainError(
      'ROUND_FINISHED',
      `round ${roundId} was voided: the shoe deals it no more`,
    );
}

/** Whether a round number may draw now: in order, and not past the last round. */
function requireRoundMayDraw(state: ShoeState, roundNumber: number): void {
  if (roundNumber < state.lastRoundDrawn) {
    throw new DomainError(
      'INVALID_DEAL',
      `round ${roundNumber} comes before round ${state.lastRoundDrawn}, which has drawn`,
    );
  }
  if (state.lastRoundNumber !== null && roundNumber > state.lastRoundNumber) {
    throw new DomainError(
      'SHOE_FINISHED',
      `the cut card is out: round ${state.lastRoundNumber} was the shoe's last`,
    );
  }
  if (state.shufflePolicy === 'every-round' && roundNumber !== 1) {
    throw new DomainError('SHOE_FINISHED', 'a shoe shuffled for one round deals only round 1');
  }
}

/** The CutCardReached event if the cut card came out while this round drew these cards. */
function cutCardEvent(
  state: ShoeState,
  roundNumber: number,
  cards: readonly DrawnCard[],
  alreadyInRound: number,
): ShoeEvent[] {
  const cut = state.cutCardIndex;
  if (cut === null || state.lastRoundNumber !== null) return [];
  const index = cards.findIndex((drawn) => drawn.position >= cut);
  if (index < 0) return [];
  return [
    {
      type: 'CutCardReached',
      data: {
        shoeId: state.shoeId,
        position: cut,
        roundNumber,
        lastRoundNumber: lastRoundAfterCutCard(roundNumber, alreadyInRound + index),
      },
    },
  ];
}

function available(state: ShoeState, card: Card): boolean {
  return (state.seen.get(card) ?? 0) < state.decks;
}

function decide(command: ShoeCommand, state: ShoeState): ShoeEvent[] {
  switch (command.type) {
    case 'ShuffleShoe': {
      if (state.status !== 'none')
        throw new DomainError('ALREADY_EXISTS', `shoe ${command.shoeId} exists`);
      const totalCards = command.decks * 52;
      const params = { shoeId: command.shoeId, decks: command.decks };
      const rng = command.cardSource === 'rng';
      if (rng !== (command.rng !== null)) {
        throw new DomainError(
          'WRONG_CARD_SOURCE',
          'an rng shoe needs a seed and a scanner shoe none',
        );
      }
      const seed = command.rng === null ? null : Buffer.from(command.rng.seed, 'hex');
      const events: ShoeEvent[] = [
        {
          type: 'ShoeShuffled',
          data: {
            shoeId: command.shoeId,
            tableId: command.tableId,
            number: command.number,
            decks: command.decks,
            cardSource: command.cardSource,
            shufflePolicy: command.shufflePolicy,
            burn: command.burn,
            cutCardIndex:
              command.cutCard === null ? null : cutCardIndex(totalCards, command.cutCard),
            algorithm: seed === null ? null : SHUFFLE_ALGORITHM,
            commitment: seed === null ? null : shuffleCommitment(seed, params),
            sealedSeed: command.rng?.sealedSeed ?? null,
          },
        },
      ];
      if (seed !== null && command.burn) {
        const order = shuffleShoe(seed, params);
        const shown = order[0]!;
        events.push({
          type: 'CardBurned',
          data: { shoeId: command.shoeId, position: 0, card: shown, shown: true },
        });
        for (let position = 1; position <= burnCount(shown); position++) {
          events.push({
            type: 'CardBurned',
            data: { shoeId: command.shoeId, position, card: order[position]!, shown: false },
          });
        }
      }
      return events;
    }
    case 'BurnScannedCard': {
      if (state.status === 'none')
        throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
      if (state.status !== 'awaiting-burn') {
        throw new DomainError(
          'INVALID_DEAL',
          `shoe ${state.shoeId} is not waiting for its burn card`,
        );
      }
      if (!available(state, command.shownCard)) {
        throw new DomainError(
          'IMPOSSIBLE_CARD',
          `a ${state.decks}-deck shoe holds no more ${command.shownCard}`,
        );
      }
      const events: ShoeEvent[] = [
        {
          type: 'CardBurned',
          data: { shoeId: state.shoeId, position: 0, card: command.shownCard, shown: true },
        },
      ];
      for (let position = 1; position <= burnCount(command.shownCard); position++) {
        events.push({
          type: 'CardBurned',
          data: { shoeId: state.shoeId, position, card: null, shown: false },
        });
      }
      return events;
    }
    case 'DrawRound': {
      requireDealing(state);
      if (state.cardSource !== 'rng')
        throw new DomainError('WRONG_CARD_SOURCE', 'cards of a scanner shoe are scanned');
      requireNotSealed(state, command.roundId);
      if (state.rounds.has(command.roundId)) return []; // drawn already: a retried deal
      requireRoundMayDraw(state, command.roundNumber);
      const seed = Buffer.from(command.seed, 'hex');
      const params = { shoeId: state.shoeId, decks: state.decks };
      if (shuffleCommitment(seed, params) !== state.commitment) {
        throw new DomainError(
          'SEED_MISMATCH',
          `the seed does not match shoe ${state.shoeId}'s commitment`,
        );
      }
      const order = shuffleShoe(seed, params);
      let position = state.position;
      const dealt = dealRound(() => {
        const card = order[position++];
        if (card === undefined) throw new DomainError('SHOE_FINISHED', 'the shoe ran out of cards');
        return card;
      });
      const cards: DrawnCard[] = dealt.sequence.map(({ hand, card }, index) => ({
        position: state.position + index,
        card,
        hand,
      }));
      return [
        {
          type: 'CardsDrawn',
          data: {
            shoeId: state.shoeId,
            roundId: command.roundId,
            roundNumber: command.roundNumber,
            cards,
          },
        },
        ...cutCardEvent(state, command.roundNumber, cards, 0),
      ];
    }
    case 'DrawScannedCard': {
      requireDealing(state);
      if (state.cardSource !== 'scanner')
        throw new DomainError('WRONG_CARD_SOURCE', 'an rng shoe deals its own cards');
      requireNotSealed(state, command.roundId);
      const already = state.rounds.get(command.roundId)?.cards[command.index];
      if (already !== undefined) {
        if (already.card === command.card && already.hand === command.hand) return [];
        throw new DomainError(
          'INVALID_DEAL',
          `card ${command.index + 1} of round ${command.roundId} was ${already.card}`,
        );
      }
      if ((state.rounds.get(command.roundId)?.cards.length ?? 0) !== command.index) {
        throw new DomainError(
          'INVALID_DEAL',
          `round ${command.roundId} expects another card first`,
        );
      }
      requireRoundMayDraw(state, command.roundNumber);
      if (!available(state, command.card)) {
        throw new DomainError(
          'IMPOSSIBLE_CARD',
          `a ${state.decks}-deck shoe holds no more ${command.card}`,
          {
            card: command.card,
          },
        );
      }
      if (state.position >= state.decks * 52)
        throw new DomainError('SHOE_FINISHED', 'the shoe has no cards left');
      const drawn: DrawnCard = { position: state.position, card: command.card, hand: command.hand };
      return [
        {
          type: 'CardsDrawn',
          data: {
            shoeId: state.shoeId,
            roundId: command.roundId,
            roundNumber: command.roundNumber,
            cards: [drawn],
          },
        },
      ];
    }
    case 'ReportCutCard': {
      requireDealing(state);
      if (state.cardSource !== 'scanner')
        throw new DomainError('WRONG_CARD_SOURCE', 'an rng shoe places its own cut card');
      if (state.lastRoundNumber !== null) return [];
      requireRoundMayDraw(state, command.roundNumber);
      const inRound = state.rounds.get(command.roundId)?.cards.length ?? 0;
      return [
        {
          type: 'CutCardReached',
          data: {
            shoeId: state.shoeId,
            position: state.position,
            roundNumber: command.roundNumber,
            lastRoundNumber: lastRoundAfterCutCard(command.roundNumber, inRound),
          },
        },
      ];
    }
    case 'SealRound': {
      if (state.status === 'none')
        throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
      // A closed shoe draws for no round: its cards for the round are final already.
      if (state.status === 'closed' || state.sealed.has(command.roundId)) return [];
      return [
        {
          type: 'RoundSealed',
          data: {
            shoeId: state.shoeId,
            roundId: command.roundId,
            cards: [...(state.rounds.get(command.roundId)?.cards ?? [])],
          },
        },
      ];
    }
    case 'CorrectCard': {
      // Also after the shoe closed: a misread found in a settled round is corrected afterwards.
      if (state.status === 'none')
        throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
      if (state.cardSource !== 'scanner')
        throw new DomainError('WRONG_CARD_SOURCE', 'only scanned cards can be misread');
      const drawn = state.rounds
        .get(command.roundId)
        ?.cards.find((c) => c.position === command.position);
      if (drawn === undefined) {
        throw new DomainError(
          'INVALID_CORRECTION',
          `round ${command.roundId} drew no card at position ${command.position}`,
        );
      }
      if (drawn.card === command.card) return [];
      if (!available(state, command.card)) {
        throw new DomainError(
          'IMPOSSIBLE_CARD',
          `a ${state.decks}-deck shoe holds no more ${command.card}`,
        );
      }
      return [
        {
          type: 'CardCorrected',
          data: {
            shoeId: state.shoeId,
            roundId: command.roundId,
            position: command.position,
            previous: drawn.card,
            card: command.card,
            reason: command.reason,
          },
        },
      ];
    }
    case 'CloseShoe': {
      if (state.status === 'none')
        throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
      if (state.status === 'closed') return [];
      if (
        command.reason === 'completed' &&
        state.shufflePolicy === 'shoe' &&
        state.lastRoundNumber === null
      ) {
        throw new DomainError(
          'SHOE_NOT_FINISHED',
          `shoe ${state.shoeId}: the cut card has not come out`,
        );
      }
      // Exhausted is a fact of the ledger, not a claim: every card of the shoe is out.
      if (command.reason === 'exhausted' && state.position < state.decks * 52) {
        throw new DomainError(
          'SHOE_NOT_FINISHED',
          `shoe ${state.shoeId} still holds ${state.decks * 52 - state.position} cards`,
        );
      }
      if (state.commitment !== null) {
        if (
          command.seed === null ||
          shuffleCommitment(Buffer.from(command.seed, 'hex'), {
            shoeId: state.shoeId,
            decks: state.decks,
          }) !== state.commitment
        ) {
          throw new DomainError(
            'SEED_MISMATCH',
            `the revealed seed does not match shoe ${state.shoeId}'s commitment`,
          );
        }
      }
      return [
        {
          type: 'ShoeClosed',
          data: {
            shoeId: state.shoeId,
            reason: command.reason,
            roundsDealt: state.lastRoundDrawn,
            seed: state.commitment === null ? null : command.seed,
            digest: { algorithm: 'sha256/jcs', ...command.digest },
          },
        },
      ];
    }
  }
}

export const shoeDecider: Decider<ShoeCommand, ShoeEvent, ShoeState> = {
  decide,
  evolve: evolveShoe,
  initialState: initialShoeState,
};
