import { evaluateRound, nextCardRecipient, type Hand } from '@croupier/baccarat';
import { DomainError, type RoundEvent } from '@croupier/contracts';
import type { CardAt, RoundCommand, RoundState } from '../domain/round.state.js';
import {
  cardsOf,
  replaceCard,
  requireCorrectable,
  requireNotFinished,
  requireNotPaused,
  requireOpen,
  requireTakesCards,
} from '../domain/round-guards.js';

/** The round's decisions on its deal: betting closed, the deal started, cards, the result. */
export function decideDealing(
  command: Extract<
    RoundCommand,
    { type: 'CloseBetting' | 'StartDeal' | 'DealCards' | 'CorrectCard' | 'ConfirmResult' }
  >,
  state: RoundState,
): RoundEvent[] {
  switch (command.type) {
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
  }
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
