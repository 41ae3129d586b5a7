import { nextCardRecipient } from '@croupier/baccarat';
import { DomainError, type RoundEvent } from '@croupier/contracts';
import type { Decider } from '@croupier/application';
import { cardsOf, replaceCard } from './round-guards.js';
import {
  initialRoundState,
  releaseKey,
  type RoundCommand,
  type RoundState,
} from './round.state.js';
import { decideBets } from '../bets/bets.decide.js';
import { decideDealing } from '../dealing/dealing.decide.js';
import { decideFaults } from '../faults/faults.decide.js';

export * from './round.state.js';

export {
  dealUnderWay,
  nextScannedCard,
  requireCorrectable,
  requireTakesCards,
  waitsForCard,
  type CardCorrectionRequest,
} from './round-guards.js';

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
        bettingClosesAt: d.bettingClosesAt === undefined ? null : Date.parse(d.bettingClosesAt),
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
      // The schedule no longer holds: a round paused while betting gets a new window on resume.
      return { ...state, paused: true, pauses: state.pauses + 1, bettingClosesAt: null };
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

/**
 * The round's decider: each capability decides its own commands (bets/, dealing/, faults/), on
 * the one state every slice shares, evolved here.
 */
function decide(command: RoundCommand, state: RoundState): RoundEvent[] {
  switch (command.type) {
    case 'OpenRound': {
      if (state.status !== 'none')
        throw new DomainError('ALREADY_EXISTS', `round ${command.roundId} exists`);
      const { type: _type, ...data } = command;
      return [{ type: 'RoundOpened', data }];
    }
    case 'PlaceBets':
    case 'ClearBets':
    case 'ReleaseStakes':
      return decideBets(command, state);
    case 'CloseBetting':
    case 'StartDeal':
    case 'DealCards':
    case 'CorrectCard':
    case 'ConfirmResult':
      return decideDealing(command, state);
    case 'PauseRound':
    case 'ResumeRound':
    case 'VoidRound':
      return decideFaults(command, state);
  }
}

export const roundDecider: Decider<RoundCommand, RoundEvent, RoundState> = {
  decide,
  evolve: evolveRound,
  initialState: initialRoundState,
};
