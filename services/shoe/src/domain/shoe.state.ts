import type { Card } from '@croupier/baccarat';
import type {
  CardSource,
  DrawnCard,
  RoundId,
  ShoeEvent,
  ShoeId,
  TableId,
} from '@croupier/contracts';

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
