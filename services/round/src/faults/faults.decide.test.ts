import type { RoundEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import { ROUND, opened, closed, started, naturalCards, natural } from '../domain/round.fixtures.js';
import { roundDecider, type RoundCommand } from '../domain/round.decider.js';

const spec = deciderSpecification(roundDecider);

describe('round decider: faults', () => {
  it('pauses, resumes and voids, a completed round too', () => {
    const pause: RoundCommand = { type: 'PauseRound', reason: 'card on the floor' };
    spec
      .given([opened()])
      .when(pause)
      .then([{ type: 'RoundPaused', data: { roundId: ROUND, reason: 'card on the floor' } }]);
    spec.given([opened()]).when({ type: 'ResumeRound' }).thenThrows({ code: 'ROUND_NOT_PAUSED' });
    spec
      .given([opened()])
      .when({ type: 'VoidRound', reason: 'table fault' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'table fault' } }]);
    const completed = roundDecider.decide(natural, spec.stateAfter([opened(), closed, started]));
    // A completed round can still be voided: settlement then resettles every bet to its stake.
    spec
      .given([opened(), closed, started, ...completed])
      .when({ type: 'VoidRound', reason: 'late' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'late' } }]);
    const voided = { type: 'RoundVoided', data: { roundId: ROUND, reason: 'late' } } as const;
    spec
      .given([opened(), closed, started, ...completed, voided])
      .when({ type: 'VoidRound', reason: 'again' })
      .then([]);
  });

  it('pauses a stalled deal only as the watchdog saw it: a card, a resume or a pause first leave it alone', () => {
    const scanner = opened({ cardSource: 'scanner' });
    const card: RoundEvent = {
      type: 'CardDealt',
      data: { roundId: ROUND, hand: 'player', card: '4C', shoePosition: 3 },
    };
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    const stall = (cards: number, pauses: number): RoundCommand => ({
      type: 'PauseRound',
      reason: 'dealing stalled',
      stalled: { cards, pauses },
    });
    const pausedNow = [
      { type: 'RoundPaused', data: { roundId: ROUND, reason: 'dealing stalled' } },
    ] as const;
    spec
      .given([scanner, closed, started])
      .when(stall(0, 0))
      .then([...pausedNow]);
    spec
      .given([scanner, closed, started, card])
      .when(stall(1, 0))
      .then([...pausedNow]);
    // A card came after the watchdog looked.
    spec.given([scanner, closed, started, card]).when(stall(0, 0)).then([]);
    // Another watchdog paused first, or a supervisor paused and resumed since.
    spec.given([scanner, closed, started, paused]).when(stall(0, 0)).then([]);
    spec.given([scanner, closed, started, paused, resumed]).when(stall(0, 0)).then([]);
    spec
      .given([scanner, closed, started, paused, resumed])
      .when(stall(0, 1))
      .then([...pausedNow]);
    // Still betting, or every card in: not waiting for a card.
    spec.given([scanner]).when(stall(0, 0)).then([]);
    const dealt = roundDecider.decide(natural, spec.stateAfter([scanner, closed, started]));
    spec
      .given([scanner, closed, started, ...dealt])
      .when(stall(dealt.length, 0))
      .then([]);
  });

  it('voids a paused round only while it is in the pause the watchdog saw', () => {
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    const voidPaused = (pauses: number): RoundCommand => ({
      type: 'VoidRound',
      reason: 'not resumed',
      pausedAs: { pauses },
    });
    const voided = [
      { type: 'RoundVoided', data: { roundId: ROUND, reason: 'not resumed' } },
    ] as const;
    spec
      .given([opened(), closed, paused])
      .when(voidPaused(1))
      .then([...voided]);
    spec.given([opened(), closed, paused, resumed]).when(voidPaused(1)).then([]);
    spec.given([opened(), closed, paused, resumed, paused]).when(voidPaused(1)).then([]);
    spec
      .given([opened(), closed, paused, resumed, paused])
      .when(voidPaused(2))
      .then([...voided]);
    spec.given([opened(), closed]).when(voidPaused(0)).then([]);
  });

  it('voids a round whose deal is under way only with the cards its shoe sealed, recording those it never dealt', () => {
    const drawn = naturalCards;
    const underWay = [opened(), closed, started];
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault' })
      .thenThrows({ code: 'DEAL_IN_PROGRESS' });
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault', sealed: drawn })
      .then([
        { type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault', discarded: [...drawn] } },
      ]);
    // Sealed before the shoe drew: nothing to discard, and the void says so.
    spec
      .given(underWay)
      .when({ type: 'VoidRound', reason: 'fault', sealed: [] })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault', discarded: [] } }]);
    // A scanned round with two cards dealt and a third drawn: only the third is discarded.
    const scanner = opened({ cardSource: 'scanner' });
    const two = roundDecider.decide(
      { type: 'DealCards', cards: drawn.slice(0, 2) },
      spec.stateAfter([scanner, closed, started]),
    );
    spec
      .given([scanner, closed, started, ...two])
      .when({ type: 'VoidRound', reason: 'reader fault', sealed: drawn.slice(0, 3) })
      .then([
        {
          type: 'RoundVoided',
          data: { roundId: ROUND, reason: 'reader fault', discarded: [drawn[2]!] },
        },
      ]);
    // Once sealed, the round takes no card: the watchdog's void stands even after a resume.
    const paused: RoundEvent = { type: 'RoundPaused', data: { roundId: ROUND, reason: 'stall' } };
    const resumed: RoundEvent = { type: 'RoundResumed', data: { roundId: ROUND } };
    spec
      .given([...underWay, paused, resumed])
      .when({ type: 'VoidRound', reason: 'stalled', pausedAs: { pauses: 1 }, sealed: [] })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'stalled', discarded: [] } }]);
    // No deal started, or dealt in full: no card can be out unrecorded, no seal needed.
    spec
      .given([opened(), closed])
      .when({ type: 'VoidRound', reason: 'fault' })
      .then([{ type: 'RoundVoided', data: { roundId: ROUND, reason: 'fault' } }]);
  });
});
