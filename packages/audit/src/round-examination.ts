import {
  evaluateRound,
  InvalidDealError,
  nextCardRecipient,
  type Card,
  type Hand,
  type RoundOutcome,
  type RoundResult,
} from '@croupier/baccarat';
import {
  paytableIdOf,
  roundEventSchema,
  streams,
  type RoundEvent,
  type RoundStatus,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf, parseStream, provenanceOf } from './parse.js';
import type { VerdictBuilder } from './verdict.js';
import { checkOutcome } from './outcome-check.js';
import {
  checkResettlement,
  pendingResettlement,
  type RoundForResettlement,
} from './resettlement-check.js';
import type {
  BetExamination,
  BetState,
  CardCorrection,
  DealtCard,
  WalletMovement,
} from './round-model.js';
import { checkRefund, checkSettlement } from './settlement-check.js';
import { checkRoundWallet, type ReleasedStakeRecord } from './wallet-check.js';

type Opened = Extract<RoundEvent, { type: 'RoundOpened' }>['data'];
type Completed = Extract<RoundEvent, { type: 'RoundCompleted' }>['data'];

export interface RoundExamination {
  readonly roundId: string;
  readonly opened: Opened | null;
  readonly status: RoundStatus;
  readonly paused: boolean;
  readonly cards: readonly DealtCard[];
  /**
   * Cards the shoe drew for the round that it never dealt, as its void recorded them from the
   * shoe's seal (RoundVoided.discarded, ADR 0033); null when the void recorded none (no deal had
   * started) or the round is not voided. Their revision is the void's.
   */
  readonly discarded: readonly DealtCard[] | null;
  readonly corrections: readonly CardCorrection[];
  /** The rules re-evaluated from the cards, once they make a complete round. */
  readonly result: RoundResult | null;
  readonly completed: Completed | null;
  readonly settlementId: string | null;
  readonly bets: readonly BetExamination[];
  readonly wallet: readonly WalletMovement[] | null;
}

export interface ExamineOptions {
  /**
   * Checks the money of this player's bets only: a wallet audit supplies one player's wallet
   * events, so the other players' bets are not expected to be debited there.
   */
  readonly player?: string;
}

/** What the round's state must be for each event, for the lifecycle findings. */
const expected: Partial<Record<string, string>> = {
  BetPlaced: 'betting',
  BetsCleared: 'betting',
  BettingClosed: 'betting',
  DealStarted: 'closed, deal not started',
  CardDealt: 'closed or dealing',
  RoundCompleted: 'dealt',
  RoundPaused: 'not finished, not paused',
  RoundResumed: 'paused',
  RoundVoided: 'not voided',
  CardCorrected: 'not voided',
  RoundResultCorrected: 'completed, a card corrected since its result',
};

/**
 * Replays one round stream and checks it: the paytable, the third-card rule card by card, the
 * recorded result (and any result corrected after a card correction) against the rules
 * re-evaluated from the cards, every settlement line against the paytable, every refund, every
 * resettlement after a void or a corrected result against what the rules pay now, and (given the
 * wallet events of the round) that every debit is closed by exactly one payout or refund of the
 * right amount and every resettlement line applied by exactly one payout adjustment.
 */
export function examineRound(
  roundId: string,
  events: readonly RecordedEvent[],
  walletEvents: readonly RecordedEvent[] | null,
  verdict: VerdictBuilder,
  options: ExamineOptions = {},
): RoundExamination {
  const stream = streams.round(roundId);
  const parsed = parseStream(events, roundEventSchema, verdict);
  let opened: Opened | null = null;
  let status: RoundStatus = 'none';
  let paused = false;
  /** DealStarted recorded (or a card dealt, in a round recorded before DealStarted existed). */
  let dealStarted = false as boolean;
  let discarded: DealtCard[] | null = null;
  let voidedBy: RecordedEvent | null = null;
  const player: Card[] = [];
  const banker: Card[] = [];
  const cards: DealtCard[] = [];
  const corrections: CardCorrection[] = [];
  const bets = new Map<string, BetState>();
  /** Debited stakes the round released for refund, keyed `betId/playerId`. */
  const released = new Map<string, ReleasedStakeRecord>();
  let result: RoundResult | null = null;
  let completed: Completed | null = null;
  let settledBy: RecordedEvent | null = null;
  /** Its RoundSettled lists spots: paid spot by spot (earlier rounds chip by chip). */
  let settledBySpot = true;
  let settlementId: string | null = null;
  let voidRefunded = false as boolean;
  /** A result corrected after the round was settled: settlement owes a resettlement by it. */
  let correctedAfterSettlement = false as boolean;
  /** A card corrected after the result was recorded: a corrected result must follow. */
  let correctedSinceResult = false as boolean;

  const outcomeNow = (): RoundOutcome | null => {
    try {
      return nextCardRecipient(player, banker) === null ? evaluateRound(player, banker) : null;
    } catch {
      return null;
    }
  };

  for (const { recorded, event } of parsed) {
    const at = locationOf(recorded);
    if (event.data.roundId !== roundId) {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        at,
        `${event.type} names round ${event.data.roundId} but is stored in ${stream}`,
        { expected: roundId, found: event.data.roundId },
      );
      continue;
    }
    checkTurn(event, recorded);
    switch (event.type) {
      case 'RoundOpened':
        if (opened !== null || recorded.revision !== 0n) {
          verdict.fail(
            'event-schema',
            'WRONG_STREAM',
            at,
            'RoundOpened must be the first and only opening of the round',
          );
          break;
        }
        opened = event.data;
        status = 'betting';
        if (paytableIdOf(event.data.rules) === event.data.paytableId) {
          verdict.pass('paytable');
        } else {
          verdict.fail(
            'paytable',
            'PAYTABLE_MISMATCH',
            at,
            'the paytable id is not the hash of the rules the round was opened with',
            { expected: paytableIdOf(event.data.rules), found: event.data.paytableId },
          );
        }
        break;
      case 'BetPlaced': {
        const { roundId: _roundId, rebetOf: _rebetOf, fun: _fun, ...bet } = event.data;
        if (bets.has(bet.betId)) break; // named by checkTurn; the first record stands
        bets.set(bet.betId, {
          bet,
          status: 'active',
          line: null,
          expected: null,
          refund: null,
          placed: recorded,
          paid: null,
          adjustments: [],
        });
        break;
      }
      case 'BetsCleared':
        for (const betId of event.data.betIds) {
          const bet = bets.get(betId);
          if (bet) bet.status = 'cleared';
        }
        break;
      case 'StakeReleased': {
        const { betId, playerId, amount } = event.data;
        released.set(`${betId}/${playerId}`, { betId, playerId, amount, recorded });
        break;
      }
      case 'BettingClosed':
        status = 'closed';
        break;
      case 'DealStarted':
        dealStarted = true;
        break;
      case 'CardDealt':
        dealCard(event.data, recorded);
        dealStarted = true;
        break;
      case 'CardCorrected':
        correctCard(event.data, recorded);
        break;
      case 'RoundPaused':
        paused = true;
        break;
      case 'RoundResumed':
        paused = false;
        break;
      case 'RoundCompleted':
        completed = event.data;
        status = 'completed';
        result = checkOutcome(player, banker, event.data, recorded, verdict);
        break;
      case 'RoundSettled':
        // A voided round is never paid: voided before settlement, it is refunded (ADR 0033).
        if (voidedBy !== null) {
          verdict.fail(
            'payouts',
            'PAYOUT_MISMATCH',
            at,
            `the round is settled after it was voided (revision ${voidedBy.revision}): a voided round is refunded, never paid`,
            { expected: 'BetsRefunded', found: 'RoundSettled' },
          );
          break;
        }
        if (settledBy !== null) {
          verdict.fail(
            'payouts',
            'PAYOUT_MISMATCH',
            at,
            `the round is settled a second time (first at revision ${settledBy.revision})`,
          );
          break;
        }
        settledBy = recorded;
        settledBySpot = event.data.spots !== undefined;
        settlementId = event.data.settlementId;
        checkSettlement(
          {
            status,
            rules: opened?.rules ?? null,
            outcome: result ?? outcomeNow(),
            bets: [...bets.values()],
          },
          event.data,
          recorded,
          verdict,
        );
        break;
      case 'RoundResultCorrected': {
        // The corrected result is checked like RoundCompleted, against the cards as corrected.
        const { reason: _reason, ...corrected } = event.data;
        completed = corrected;
        result = checkOutcome(player, banker, corrected, recorded, verdict);
        correctedSinceResult = false;
        if (settledBy !== null) correctedAfterSettlement = true;
        break;
      }
      case 'RoundResettled':
        checkResettlement(resettlementView(), event.data, recorded, verdict);
        break;
      case 'BetsRefunded':
        checkRefund({ status, settled: settledBy !== null, bets }, event.data, recorded, verdict);
        if (event.data.reason === 'voided') voidRefunded = true;
        break;
      case 'RoundVoided':
        if (status !== 'voided') {
          voidedBy = recorded;
          discarded = voidDiscards(event.data, recorded);
        }
        status = 'voided';
        paused = false;
        break;
    }
  }

  /**
   * The cards a void records from the shoe's seal: only a round whose deal started can have any,
   * and none the round dealt itself. Named under streams-agree: they are the shoe's cards.
   */
  function voidDiscards(
    data: Extract<RoundEvent, { type: 'RoundVoided' }>['data'],
    recorded: RecordedEvent,
  ): DealtCard[] | null {
    if (data.discarded === undefined) return null;
    const dealt = new Set(cards.map((c) => c.shoePosition));
    const twice = data.discarded.filter((drawn) => dealt.has(drawn.position));
    if (data.discarded.length > 0 && !dealStarted) {
      verdict.fail(
        'streams-agree',
        'STREAMS_DISAGREE',
        locationOf(recorded),
        'the void records cards discarded from a deal that never started',
        { expected: [], found: data.discarded.map((d) => d.card) },
      );
    } else if (twice.length > 0) {
      verdict.fail(
        'streams-agree',
        'STREAMS_DISAGREE',
        locationOf(recorded),
        `the void records as discarded card(s) the round dealt: shoe position(s) ${twice.map((d) => d.position).join(', ')}`,
      );
    }
    return data.discarded.map((drawn, index) => ({
      index: cards.length + index,
      hand: drawn.hand,
      card: drawn.card,
      shoePosition: drawn.position,
      revision: String(recorded.revision),
    }));
  }

  /** The round as a resettlement is checked against: the result the rules give, never the record. */
  function resettlementView(): RoundForResettlement {
    return {
      status,
      settledAt: settledBy,
      correctedAfterSettlement,
      bySpot: settledBySpot,
      rules: opened?.rules ?? null,
      outcome: result ?? outcomeNow(),
      bets: [...bets.values()],
    };
  }
  if (correctedSinceResult) {
    verdict.fail(
      'outcome',
      'OUTCOME_MISMATCH',
      { stream, revision: events.at(-1)?.revision ?? null, type: null },
      'a card was corrected after the round completed, but no corrected result was recorded',
    );
  }

  /**
   * Whether the round allowed this event when it was recorded, as the round's decider does: a
   * bet or a clear only while betting is open, betting closed once, cards only after betting
   * closed, nothing while paused but a void, one result of a fully dealt round, nothing dealt
   * or bet on a voided one. Past-posting (a bet recorded after the cards) is named here even
   * when the stream was re-hashed around it.
   */
  function checkTurn(event: RoundEvent, recorded: RecordedEvent): void {
    const at = locationOf(recorded);
    if (event.type === 'BetPlaced') {
      const first = bets.get(event.data.betId);
      if (first !== undefined) {
        verdict.fail(
          'lifecycle',
          'EVENT_DUPLICATED',
          at,
          `bet ${event.data.betId} is placed a second time (first at revision ${first.placed?.revision ?? '?'})`,
          { expected: 'one BetPlaced per bet', found: 'two' },
        );
      }
    }
    const why = outOfTurn(event);
    if (why === null) {
      verdict.pass('lifecycle');
      return;
    }
    verdict.fail('lifecycle', 'LIFECYCLE_VIOLATION', at, `${event.type} ${why}`, {
      expected: expected[event.type] ?? null,
      found: paused ? `${status}, paused` : status,
    });
  }

  /** Why the round could not have taken this event in its current state, or null. */
  function outOfTurn(event: RoundEvent): string | null {
    const finished = status === 'completed' || status === 'voided';
    const whilePaused = paused ? 'was recorded while the round was paused' : null;
    switch (event.type) {
      case 'BetPlaced':
        if (released.has(`${event.data.betId}/${event.data.playerId}`))
          return `places bet ${event.data.betId}, whose stake the round had released for refund`;
        return status !== 'betting' ? 'was recorded after betting closed' : whilePaused;
      case 'BetsCleared': {
        if (status !== 'betting') return 'was recorded after betting closed';
        if (whilePaused !== null) return whilePaused;
        const unknown = event.data.betIds.filter((betId) => {
          const bet = bets.get(betId);
          return (
            bet === undefined || bet.status !== 'active' || bet.bet.playerId !== event.data.playerId
          );
        });
        return unknown.length === 0
          ? null
          : `clears bet(s) ${unknown.join(', ')}, not standing bets of ${event.data.playerId}`;
      }
      case 'StakeReleased': {
        // A stake is released only when it never became the player's bet on this round.
        const bet = bets.get(event.data.betId);
        if (bet !== undefined && bet.bet.playerId === event.data.playerId)
          return `releases the stake of bet ${event.data.betId}, which ${event.data.playerId} placed on the round: only its settlement or void closes it`;
        return released.has(`${event.data.betId}/${event.data.playerId}`)
          ? `releases the stake of bet ${event.data.betId} a second time`
          : null;
      }
      case 'BettingClosed':
        return status !== 'betting' ? 'closes betting a second time, or too late' : whilePaused;
      case 'DealStarted':
        if (dealStarted) return 'starts the deal a second time';
        if (status !== 'closed') return `was recorded in a ${status} round`;
        return whilePaused;
      case 'CardDealt':
        // A card after the round was complete is named by the third-card rule.
        if (status === 'betting') return 'was recorded while betting was still open';
        if (status === 'voided' || status === 'none') return `was recorded in a ${status} round`;
        return whilePaused;
      case 'RoundCompleted':
        // Cards that do not make a complete round are named by the outcome check.
        if (status === 'completed') return 'completes the round a second time';
        if (status === 'voided' || status === 'betting' || status === 'none')
          return `was recorded in a ${status} round`;
        return whilePaused;
      case 'RoundPaused':
        if (finished || status === 'none') return `pauses a ${status} round`;
        return paused ? 'pauses a round already paused' : null;
      case 'RoundResumed':
        if (finished || status === 'none') return `resumes a ${status} round`;
        return paused ? null : 'resumes a round that was not paused';
      case 'RoundVoided':
        return status === 'voided' || status === 'none' ? `voids a ${status} round` : null;
      case 'CardCorrected':
        return status === 'voided' || status === 'none' ? `corrects a ${status} round` : null;
      case 'RoundResultCorrected':
        if (status !== 'completed') return `was recorded in a ${status} round`;
        return correctedSinceResult
          ? null
          : 're-records the result, but no card was corrected since it was recorded';
      default:
        return null;
    }
  }

  function dealCard(
    data: Extract<RoundEvent, { type: 'CardDealt' }>['data'],
    recorded: RecordedEvent,
  ): void {
    const at = locationOf(recorded);
    let due: Hand | null | 'invalid';
    try {
      due = nextCardRecipient(player, banker);
    } catch (error) {
      if (!(error instanceof InvalidDealError)) throw error;
      due = 'invalid';
    }
    if (due === null) {
      verdict.fail(
        'third-card-rule',
        'THIRD_CARD_RULE',
        at,
        `${data.card} was dealt to the ${data.hand} after the rules ended the round (Player [${player.join(' ')}], Banker [${banker.join(' ')}])`,
        { expected: 'no card', found: `${data.card} to the ${data.hand}` },
      );
    } else if (due !== 'invalid' && due !== data.hand) {
      verdict.fail(
        'third-card-rule',
        'THIRD_CARD_RULE',
        at,
        `${data.card} went to the ${data.hand}, but the rules give this card to the ${due}`,
        { expected: due, found: data.hand },
      );
    } else {
      verdict.pass('third-card-rule');
    }
    const last = cards.at(-1);
    if (last !== undefined && data.shoePosition !== last.shoePosition + 1) {
      verdict.fail(
        'card-sequence',
        'CARD_OUT_OF_SEQUENCE',
        at,
        `card ${cards.length + 1} of the round came from shoe position ${data.shoePosition}, not the next one`,
        { expected: String(last.shoePosition + 1), found: String(data.shoePosition) },
      );
    } else {
      verdict.pass('card-sequence');
    }
    (data.hand === 'player' ? player : banker).push(data.card);
    cards.push({
      index: cards.length,
      hand: data.hand,
      card: data.card,
      shoePosition: data.shoePosition,
      revision: String(recorded.revision),
    });
    if (status === 'betting' || status === 'closed' || status === 'dealing') {
      status = outcomeNow() !== null ? 'dealt' : 'dealing';
    }
  }

  function correctCard(
    data: Extract<RoundEvent, { type: 'CardCorrected' }>['data'],
    recorded: RecordedEvent,
  ): void {
    const at = locationOf(recorded);
    const { actor, occurredAt } = provenanceOf(recorded);
    corrections.push({
      stream: recorded.stream,
      revision: String(recorded.revision),
      shoePosition: data.shoePosition,
      previous: data.previous,
      card: data.card,
      reason: data.reason,
      actor,
      occurredAt,
    });
    const index = cards.findIndex((c) => c.shoePosition === data.shoePosition);
    const target = cards[index];
    if (status === 'completed') correctedSinceResult = true;
    if (target === undefined || target.card !== data.previous) {
      verdict.fail(
        'corrections',
        'CORRECTION_INVALID',
        at,
        target === undefined
          ? `no card of the round came from shoe position ${data.shoePosition}`
          : `the correction says the card was ${data.previous}, the round shows ${target.card}`,
        { expected: target?.card ?? null, found: data.previous },
      );
      if (target === undefined) return;
    } else if (actor === null || data.reason.trim() === '') {
      verdict.fail(
        'corrections',
        'CORRECTION_INVALID',
        at,
        'a correction must record who made it and why',
      );
    } else {
      verdict.pass('corrections');
    }
    cards[index] = { ...target, card: data.card };
    const handCards = target.hand === 'player' ? player : banker;
    const inHand = cards.filter((c) => c.hand === target.hand).findIndex((c) => c.index === index);
    handCards[inHand] = data.card;
  }

  // After the replay: what the whole stream owes.
  if (status === 'completed' && settledBy === null) {
    verdict.skip('payouts', 'the round is complete but not settled yet');
  }
  const pending = pendingResettlement(resettlementView());
  if (pending !== null) {
    verdict.note(`${stream}: ${pending}`);
    verdict.pass('payouts', pending);
  }
  if (status === 'voided' && settledBy !== null) {
    verdict.pass(
      'refunds',
      'voided after settlement: every stake comes back by resettlement (checked under payouts), not by refunds',
    );
  } else if (status === 'voided' && voidRefunded) {
    for (const state of bets.values()) {
      if (state.refund === null) {
        verdict.fail(
          'refunds',
          'REFUND_MISMATCH',
          { stream, revision: events.at(-1)?.revision ?? null, type: null },
          `bet ${state.bet.betId} of the voided round was never refunded`,
          { expected: state.bet.amount, found: null },
        );
      }
    }
  } else if (status === 'voided' && bets.size === 0) {
    verdict.pass('refunds', 'the voided round had no bets to refund');
  } else if (status === 'voided') {
    verdict.skip('refunds', 'the round is voided; its refunds are not recorded yet');
  }

  const refundedAll = [...bets.values()].every((state) => state.refund !== null);
  // Once settled, every stake is closed by its payout, whatever happened to the round since.
  const finished = settledBy !== null || (status === 'voided' && (voidRefunded || refundedAll));
  const wallet =
    walletEvents === null
      ? null
      : checkRoundWallet(
          {
            roundId,
            status,
            finished,
            settlementId,
            settledAt: settledBy,
            place:
              opened === null ? null : { tableId: opened.tableId, shiftId: opened.dealer.shiftId },
            currency: opened?.currency ?? null,
            bets: [...bets.values()].filter(
              (state) => options.player === undefined || state.bet.playerId === options.player,
            ),
            released: [...released.values()].filter(
              (release) => options.player === undefined || release.playerId === options.player,
            ),
            events: walletEvents,
          },
          verdict,
        );

  return {
    roundId,
    opened,
    status,
    paused,
    cards,
    discarded,
    corrections,
    result,
    completed,
    settlementId,
    bets: [...bets.values()].map((state) => ({ ...state })),
    wallet,
  };
}
