import { DomainError, type RoundEvent } from '@croupier/contracts';
import { deciderSpecification, workflowSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { roundDecider, type BetRequest } from '../domain/round.decider.js';
import { BET_A, BET_B, ROUND, closed, opened, placed, released } from '../domain/round.fixtures.js';
import { betWorkflow, type BetWorkflowInput, type BetWorkflowStep } from './bet-workflow.js';

/** The bet workflow told what each recipient answered, with no store and no wallet. */
const spec = workflowSpecification(betWorkflow);
const roundAfter = (events: RoundEvent[]) => deciderSpecification(roundDecider).stateAfter(events);

const BETS: BetRequest[] = [
  { betId: BET_A, type: 'banker', amount: 500, bankerMode: 'commission' },
  { betId: BET_B, type: 'tie', amount: 100 },
];
const STAKES = [
  { betId: BET_A, amount: 500 },
  { betId: BET_B, amount: 100 },
];
const requested = (
  events: RoundEvent[] = [opened()],
  bets: BetRequest[] = BETS,
): BetWorkflowInput => ({
  type: 'BetsRequested',
  roundId: ROUND,
  playerId: 'alice',
  bets,
  rebetOf: null,
  round: roundAfter(events),
});
const debit: BetWorkflowStep = {
  type: 'DebitStakes',
  playerId: 'alice',
  roundId: ROUND,
  currency: 'EUR',
  stakes: STAKES,
  bettingClosesAt: null,
};
const placeBets: BetWorkflowStep = {
  type: 'PlaceBets',
  roundId: ROUND,
  playerId: 'alice',
  bets: BETS,
  rebetOf: null,
};
const release = (stakes: { betId: string; amount: number }[]): BetWorkflowStep => ({
  type: 'ReleaseStakes',
  roundId: ROUND,
  playerId: 'alice',
  stakes,
  reason: 'bet-rejected',
});
const debited = (
  stakes: { betId: string; amount: number }[],
  refusal = null as null | {
    code: 'INSUFFICIENT_FUNDS';
    message: string;
    details: Record<string, unknown>;
  },
): BetWorkflowInput => ({ type: 'StakesDebited', debited: stakes, refusal });
const bettingClosed = new DomainError('BETTING_CLOSED', `betting on round ${ROUND} is closed`);
const INSUFFICIENT = {
  code: 'INSUFFICIENT_FUNDS' as const,
  message: 'alice cannot cover 100',
  details: { betId: BET_B },
};

describe('bet workflow: a request', () => {
  it('asks the wallet for the stakes the round judged, and moves nothing on a refusal', () => {
    spec.when(requested()).then([debit]);
    // Judged on the round as told: betting closed, nothing is debited.
    spec.when(requested([opened(), closed])).thenThrows({ code: 'BETTING_CLOSED' });
    // A limit of the set, the rule's own code.
    spec
      .when(requested([opened()], [{ betId: BET_A, type: 'player', amount: 50 }]))
      .thenThrows({ code: 'BET_BELOW_MIN' });
  });

  it('carries the betting close the round recorded to the debit, and none once the round was paused', () => {
    // The auto-dealer closes betting then: the debit's budget ends by it (ADR 0044).
    const closesAt = '2026-12-02T10:00:10.000Z';
    spec
      .when(requested([opened({ bettingClosesAt: closesAt })]))
      .then([{ ...debit, bettingClosesAt: Date.parse(closesAt) }]);
    // Paused while betting, the round gets a new window on resume, which no record names.
    const pausedAndResumed: RoundEvent[] = [
      opened({ bettingClosesAt: closesAt }),
      { type: 'RoundPaused', data: { roundId: ROUND, reason: 'table check' } },
      { type: 'RoundResumed', data: { roundId: ROUND } },
    ];
    spec.when(requested(pausedAndResumed)).then([debit]);
  });

  it('records the bets once every stake is debited, and answers with the round', () => {
    spec.given([requested(), debit]).when(debited(STAKES)).then([placeBets]);
    // A retry whose stakes an earlier call debited: nothing debited now, the bets still go in.
    spec.given([requested(), debit]).when(debited([])).then([placeBets]);
    const round = roundAfter([opened(), placed(BET_A, 'banker', 500)]);
    spec
      .given([requested(), debit, debited(STAKES), placeBets])
      .when({ type: 'BetsPlaced', round })
      .then([{ type: 'Placed', round }]);
  });

  it('gives back through the round what a partly refused debit took, then fails with the refusal', () => {
    const history = [requested(), debit];
    spec
      .given(history)
      .when(debited([STAKES[0]!], INSUFFICIENT))
      .then([release([STAKES[0]!])]);
    // Nothing taken: the refusal at once.
    const [step] = betWorkflow.decide(debited([], INSUFFICIENT), spec.stateAfter(history));
    expect(step).toMatchObject({ type: 'Failed', error: { code: 'INSUFFICIENT_FUNDS' } });
    // The round released it (it holds no such bet): refunded, then the refusal.
    const afterRelease = [...history, debited([STAKES[0]!], INSUFFICIENT), release([STAKES[0]!])];
    const round = roundAfter([opened(), released(BET_A, 500)]);
    spec
      .given(afterRelease)
      .when({ type: 'StakesReleased', round })
      .then([
        {
          type: 'RefundStakes',
          roundId: ROUND,
          playerId: 'alice',
          currency: 'EUR',
          stakes: [STAKES[0]!],
          reason: 'bet-rejected',
        },
      ]);
    const refunded = betWorkflow.decide(
      { type: 'StakesRefunded', refunded: 1 },
      spec.stateAfter([...afterRelease, { type: 'StakesReleased', round }]),
    );
    expect(refunded).toMatchObject([{ type: 'Failed', error: { code: 'INSUFFICIENT_FUNDS' } }]);
  });

  it('refunds only the stakes the round released: a bet a concurrent request placed keeps its stake', () => {
    const history = [requested(), debit, debited(STAKES), placeBets];
    spec
      .given(history)
      .when({ type: 'BetsRefused', error: bettingClosed })
      .then([release(STAKES)]);
    // Betting closed, but an identical request placed BET_A first: only BET_B is released.
    const round = roundAfter([
      opened(),
      placed(BET_A, 'banker', 500),
      closed,
      released(BET_B, 100),
    ]);
    spec
      .given([...history, { type: 'BetsRefused', error: bettingClosed }, release(STAKES)])
      .when({ type: 'StakesReleased', round })
      .then([
        {
          type: 'RefundStakes',
          roundId: ROUND,
          playerId: 'alice',
          currency: 'EUR',
          stakes: [STAKES[1]!],
          reason: 'bet-rejected',
        },
      ]);
    spec
      .given([...history, { type: 'BetsRefused', error: bettingClosed }, release(STAKES)])
      .when({ type: 'StakesRefunded', refunded: 1 })
      .then([{ type: 'Failed', error: bettingClosed }]);
  });

  it('leaves to the sweep the stakes of an append that did not answer: the bets may stand', () => {
    const unreachable = new Error('connection terminated');
    spec
      .given([requested(), debit, debited(STAKES), placeBets])
      .when({ type: 'PlacingFailed', error: unreachable })
      .then([{ type: 'Failed', error: unreachable }]);
  });

  it('names the bet ids when the store says one is taken elsewhere', () => {
    const conflict = new DomainError('ID_CONFLICT', 'event id taken');
    const [step] = betWorkflow.decide(
      { type: 'DebitFailed', error: conflict },
      spec.stateAfter([requested(), debit]),
    );
    expect(step).toMatchObject({
      type: 'Failed',
      error: { code: 'ID_CONFLICT', details: { field: 'betId', betIds: [BET_A, BET_B] } },
    });
  });
});

describe('bet workflow: the sweep of a debit whose bet never came', () => {
  const orphan = { playerId: 'alice', roundId: ROUND, betId: BET_A, amount: 500, debitedAt: 0 };

  it('waits while the round takes bets, else releases through the round and refunds', () => {
    spec
      .when({ type: 'OrphanFound', debit: orphan, round: roundAfter([opened()]) })
      .then([{ type: 'Swept', refunded: 0 }]);
    const round = roundAfter([opened(), closed]);
    const found: BetWorkflowInput = { type: 'OrphanFound', debit: orphan, round };
    spec.when(found).then([
      {
        type: 'ReleaseStakes',
        roundId: ROUND,
        playerId: 'alice',
        stakes: [{ betId: BET_A, amount: 500 }],
        reason: 'orphaned-debit',
      },
    ]);
    const releasedRound = roundAfter([opened(), closed, released(BET_A, 500)]);
    spec
      .given([found])
      .when({ type: 'StakesReleased', round: releasedRound })
      .then([
        {
          type: 'RefundStakes',
          roundId: ROUND,
          playerId: 'alice',
          currency: 'EUR',
          stakes: [{ betId: BET_A, amount: 500 }],
          reason: 'orphaned-debit',
        },
      ]);
    spec
      .given([found])
      .when({ type: 'StakesRefunded', refunded: 1 })
      .then([{ type: 'Swept', refunded: 1 }]);
  });

  it('refunds at once a debit for a round that does not exist, to the wallet its mark names', () => {
    const none = roundAfter([]);
    spec.when({ type: 'OrphanFound', debit: orphan, round: none }).then([
      {
        type: 'RefundStakes',
        roundId: ROUND,
        playerId: 'alice',
        stakes: [{ betId: BET_A, amount: 500 }],
        reason: 'orphaned-debit',
      },
    ]);
    spec.when({ type: 'OrphanFound', debit: { ...orphan, fun: true }, round: none }).then([
      {
        type: 'RefundStakes',
        roundId: ROUND,
        playerId: 'alice',
        currency: 'FUN',
        stakes: [{ betId: BET_A, amount: 500 }],
        reason: 'orphaned-debit',
      },
    ]);
  });
});
