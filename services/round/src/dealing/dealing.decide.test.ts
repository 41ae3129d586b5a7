import type { RoundEvent } from '@croupier/contracts';
import { roundDecider } from '../domain/round.decider.js';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { ROUND, opened, closed, started, natural } from '../domain/round.fixtures.js';

const spec = deciderSpecification(roundDecider);

describe('round decider: dealing', () => {
  it('deals an rng round and completes it in the same step', () => {
    const events = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    expect(events.map((e) => e.type)).toEqual([
      'CardDealt',
      'CardDealt',
      'CardDealt',
      'CardDealt',
      'RoundCompleted',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'RoundCompleted',
      data: {
        roundId: ROUND,
        player: { cards: ['9C', 'KH'], total: 9, natural: true, pair: false, perfectPair: false },
        banker: { cards: ['2D', '3S'], total: 5, natural: false, pair: false, perfectPair: false },
        winner: 'player',
      },
    });
  });

  it('refuses cards out of the third-card order', () => {
    spec
      .given([opened(), closed, started])
      .when({ type: 'DealCards', cards: [{ position: 10, card: '9C', hand: 'banker' }] })
      .thenThrows({ code: 'INVALID_DEAL' });
    spec.given([opened()]).when(natural).thenThrows({ code: 'ROUND_NOT_DEALING' });
    // The shoe draws only for a round that committed to its deal first (ADR 0033).
    spec.given([opened(), closed]).when(natural).thenThrows({ code: 'ROUND_NOT_DEALING' });
  });

  it('waits for a scanned round to be confirmed, and lets a supervisor correct a card first', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    expect(dealt.map((e) => e.type)).toEqual(['CardDealt', 'CardDealt', 'CardDealt', 'CardDealt']);
    const history = [scanner, closed, started, ...dealt];
    // 9C misread: it was 5C, so Player 5 must now draw: the correction is consistent, dealing goes on.
    spec
      .given(history)
      .when({ type: 'CorrectCard', shoePosition: 10, card: '5C', reason: 'misread' })
      .then([
        {
          type: 'CardCorrected',
          data: { roundId: ROUND, shoePosition: 10, previous: '9C', card: '5C', reason: 'misread' },
        },
      ]);
    const corrected = spec.stateAfter([
      ...history,
      {
        type: 'CardCorrected',
        data: { roundId: ROUND, shoePosition: 10, previous: '9C', card: '5C', reason: 'misread' },
      },
    ]);
    expect(corrected.status).toBe('dealing');
    const confirmed = roundDecider.decide({ type: 'ConfirmResult' }, spec.stateAfter(history));
    expect(confirmed.map((e) => e.type)).toEqual(['RoundCompleted']);
  });

  it('refuses a correction that would make the cards already dealt break the rules', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(
      {
        type: 'DealCards',
        cards: [
          { position: 10, card: '2C', hand: 'player' },
          { position: 11, card: '2D', hand: 'banker' },
          { position: 12, card: '3H', hand: 'player' },
          { position: 13, card: '3S', hand: 'banker' },
          { position: 14, card: '4S', hand: 'player' },
        ],
      },
      spec.stateAfter([scanner, closed, started]),
    );
    // With a 9C first the Player has a natural: no third card should have been dealt.
    spec
      .given([scanner, closed, started, ...dealt])
      .when({ type: 'CorrectCard', shoePosition: 10, card: '5C', reason: 'misread' })
      .thenThrows({ code: 'INVALID_CORRECTION' });
  });

  it('corrects a card of a completed round only if the round stays complete, and corrects its result', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    const confirmed = roundDecider.decide(
      { type: 'ConfirmResult' },
      spec.stateAfter([scanner, closed, started, ...dealt]),
    );
    const history = [scanner, closed, started, ...dealt, ...confirmed];
    // Banker's second card 3S read as 7S: Banker 9 ties Player 9.
    const [correctedCard, corrected] = roundDecider.decide(
      { type: 'CorrectCard', shoePosition: 13, card: '7S', reason: 'video review' },
      spec.stateAfter(history),
    );
    expect(correctedCard?.type).toBe('CardCorrected');
    expect(corrected).toMatchObject({
      type: 'RoundResultCorrected',
      data: { winner: 'tie', reason: 'video review' },
    });
    // Player's first card 9C read as 4C: Player 4 would draw: the round cannot stay complete.
    spec
      .given(history)
      .when({ type: 'CorrectCard', shoePosition: 10, card: '4C', reason: 'video review' })
      .thenThrows({ code: 'INVALID_CORRECTION' });
  });

  it('commits to the deal before the shoe draws: DealStarted, with BettingClosed when asked', () => {
    spec.given([opened(), closed]).when({ type: 'StartDeal' }).then([started]);
    spec.given([opened()]).when({ type: 'StartDeal', closeBetting: true }).then([closed, started]);
    spec.given([opened()]).when({ type: 'StartDeal' }).thenThrows({ code: 'ROUND_NOT_DEALING' });
    // Started already (a retried deal), or dealt in full: nothing more.
    spec.given([opened(), closed, started]).when({ type: 'StartDeal' }).then([]);
    const completed = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    spec
      .given([opened(), closed, started, ...completed])
      .when({ type: 'StartDeal' })
      .then([]);
    const voided: RoundEvent = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } };
    spec
      .given([opened(), closed, voided])
      .when({ type: 'StartDeal' })
      .thenThrows({ code: 'ROUND_FINISHED' });
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'x' } };
    spec
      .given([opened(), paused])
      .when({ type: 'StartDeal', closeBetting: true })
      .thenThrows({ code: 'ROUND_PAUSED' });
  });
});
