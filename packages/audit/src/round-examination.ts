import { createHash } from 'node:crypto';
import {
  evaluateRound,
  InvalidDealError,
  nextCardRecipient,
  settleBet,
  type BetSettlement,
  type Card,
  type Hand,
  type RoundOutcome,
  type RoundResult,
} from '@croupier/baccarat';
import {
  roundEventSchema,
  streams,
  type PlacedBet,
  type RoundEvent,
  type SettlementLine,
} from '@croupier/contracts';
import { canonicalJson, type RecordedEvent } from '@croupier/eventstore';
import { locationOf, parseStream, provenanceOf } from './parse.js';
import type { VerdictBuilder } from './verdict.js';
import { checkRoundWallet } from './wallet-check.js';

type Opened = Extract<RoundEvent, { type: 'RoundOpened' }>['data'];
type Completed = Extract<RoundEvent, { type: 'RoundCompleted' }>['data'];

export type RoundStatus =
  'none' | 'betting' | 'closed' | 'dealing' | 'dealt' | 'completed' | 'voided';

/** A card of the round, as it stands after any correction. */
export interface DealtCard {
  /** Its place in the round: 0 for the Player's first card. */
  readonly index: number;
  readonly hand: Hand;
  readonly card: Card;
  readonly shoePosition: number;
  /** Revision of the CardDealt that dealt it. */
  readonly revision: string;
}

/** A correction of a misread card: what it was, what it became, who changed it and why. */
export interface CardCorrection {
  readonly stream: string;
  readonly revision: string;
  readonly shoePosition: number;
  readonly previous: Card;
  readonly card: Card;
  readonly reason: string;
  readonly actor: { id: string; role: string } | null;
  readonly occurredAt: string | null;
}

export interface BetExamination {
  readonly bet: PlacedBet;
  readonly status: 'active' | 'cleared';
  /** The settlement line recorded for it, if any. */
  readonly line: SettlementLine | null;
  /** What the paytable gives it, recomputed from the cards. */
  readonly expected: BetSettlement | null;
  readonly refund: { amount: number; reason: 'voided' | 'cleared' } | null;
}

/** A wallet movement a round caused: a debit, a payout, a refund or accrued commission. */
export interface WalletMovement {
  readonly stream: string;
  readonly revision: string;
  readonly type: string;
  readonly playerId: string;
  readonly betId: string;
  readonly amount: number;
  /** The payout's result or the refund's reason. */
  readonly detail: string | null;
  readonly occurredAt: string | null;
}

export interface RoundExamination {
  readonly roundId: string;
  readonly opened: Opened | null;
  readonly status: RoundStatus;
  readonly paused: boolean;
  readonly cards: readonly DealtCard[];
  readonly corrections: readonly CardCorrection[];
  /** The rules re-evaluated from the cards, once they make a complete round. */
  readonly result: RoundResult | null;
  readonly completed: Completed | null;
  readonly settlementId: string | null;
  readonly bets: readonly BetExamination[];
  readonly wallet: readonly WalletMovement[] | null;
}

/** sha256 of the canonical JSON of a round's rules: how a paytable is named in game records. */
export function paytableIdOf(rules: unknown): string {
  return createHash('sha256').update(canonicalJson(rules)).digest('hex');
}

export interface BetState {
  bet: PlacedBet;
  status: 'active' | 'cleared';
  line: SettlementLine | null;
  expected: BetSettlement | null;
  refund: { amount: number; reason: 'voided' | 'cleared' } | null;
}

/**
 * Replays one round stream and checks it: the paytable, the third-card rule card by card, the
 * recorded result against the rules re-evaluated from the cards, every settlement line against
 * the paytable, every refund, and (given the wallet events of the round) that every debit is
 * closed by exactly one payout or refund of the right amount.
 */
export function examineRound(
  roundId: string,
  events: readonly RecordedEvent[],
  walletEvents: readonly RecordedEvent[] | null,
  verdict: VerdictBuilder,
): RoundExamination {
  const stream = streams.round(roundId);
  const parsed = parseStream(events, roundEventSchema, verdict);
  let opened: Opened | null = null;
  let status: RoundStatus = 'none';
  let paused = false;
  const player: Card[] = [];
  const banker: Card[] = [];
  const cards: DealtCard[] = [];
  const corrections: CardCorrection[] = [];
  const bets = new Map<string, BetState>();
  let result: RoundResult | null = null;
  let completed: Completed | null = null;
  let settledBy: RecordedEvent | null = null;
  let settlementId: string | null = null;
  let voidRefunded = false as boolean;
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
        const { roundId: _roundId, rebetOf: _rebetOf, ...bet } = event.data;
        bets.set(bet.betId, { bet, status: 'active', line: null, expected: null, refund: null });
        break;
      }
      case 'BetsCleared':
        for (const betId of event.data.betIds) {
          const bet = bets.get(betId);
          if (bet) bet.status = 'cleared';
        }
        break;
      case 'BettingClosed':
        status = 'closed';
        break;
      case 'CardDealt':
        dealCard(event.data, recorded);
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
        result = checkOutcome(event.data, recorded);
        break;
      case 'RoundSettled':
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
        settlementId = event.data.settlementId;
        checkSettlement(event.data, recorded);
        break;
      case 'BetsRefunded':
        checkRefund(event.data, recorded);
        break;
      case 'RoundVoided':
        status = 'voided';
        paused = false;
        break;
      default:
        // A result re-recorded after a card correction has RoundCompleted's shape: same check.
        if (recorded.type === 'RoundResultCorrected') {
          const corrected = (event as { data: Completed }).data;
          completed = corrected;
          result = checkOutcome(corrected, recorded);
          correctedSinceResult = false;
        } else {
          verdict.note(
            `${recorded.stream}@${recorded.revision}: ${recorded.type} is shown but not verified by this auditor`,
          );
        }
    }
  }
  if (correctedSinceResult) {
    verdict.fail(
      'outcome',
      'OUTCOME_MISMATCH',
      { stream, revision: events.at(-1)?.revision ?? null, type: null },
      'a card was corrected after the round completed, but no corrected result was recorded',
    );
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

  function checkOutcome(data: Completed, recorded: RecordedEvent): RoundResult | null {
    const at = locationOf(recorded);
    let evaluated: RoundResult;
    try {
      evaluated = evaluateRound(player, banker);
    } catch (error) {
      verdict.fail(
        'outcome',
        'OUTCOME_MISMATCH',
        at,
        `the recorded cards do not make a complete round: ${error instanceof Error ? error.message : String(error)}`,
        { found: `Player [${player.join(' ')}], Banker [${banker.join(' ')}]` },
      );
      return null;
    }
    const compare = (what: string, expected: unknown, found: unknown) => {
      if (canonicalJson(expected) === canonicalJson(found)) return;
      verdict.fail(
        'outcome',
        'OUTCOME_MISMATCH',
        at,
        `${what}: the rules give ${canonicalJson(expected)} from the cards, the record says ${canonicalJson(found)}`,
        { expected, found },
      );
    };
    compare('winner', evaluated.winner, data.winner);
    compare("Player's cards", evaluated.player, data.player.cards);
    compare("Banker's cards", evaluated.banker, data.banker.cards);
    compare('Player total', evaluated.playerTotal, data.player.total);
    compare('Banker total', evaluated.bankerTotal, data.banker.total);
    compare('Player natural', evaluated.playerNatural, data.player.natural);
    compare('Banker natural', evaluated.bankerNatural, data.banker.natural);
    compare('Player pair', evaluated.playerPair, data.player.pair);
    compare('Banker pair', evaluated.bankerPair, data.banker.pair);
    compare('Player perfect pair', evaluated.playerPerfectPair, data.player.perfectPair);
    compare('Banker perfect pair', evaluated.bankerPerfectPair, data.banker.perfectPair);
    verdict.pass('outcome');
    return evaluated;
  }

  function checkSettlement(
    data: Extract<RoundEvent, { type: 'RoundSettled' }>['data'],
    recorded: RecordedEvent,
  ): void {
    const at = locationOf(recorded);
    const rules = opened?.rules;
    const outcome = result ?? outcomeNow();
    if (status !== 'completed' || rules === undefined || outcome === null) {
      verdict.fail(
        'payouts',
        'PAYOUT_MISMATCH',
        at,
        'the round is settled but it has no rules or no complete result to settle by',
      );
      return;
    }
    const standing = [...bets.values()].filter((b) => b.status === 'active');
    const lines = new Map(data.lines.map((line) => [line.betId, line]));
    for (const line of data.lines) {
      if (!standing.some((b) => b.bet.betId === line.betId)) {
        verdict.fail(
          'payouts',
          'PAYOUT_MISMATCH',
          at,
          `a settlement line pays bet ${line.betId}, which is not a standing bet of the round`,
          { expected: 'no line', found: line },
        );
      }
    }
    for (const state of standing) {
      const { bet } = state;
      const expected = settleBet(
        { type: bet.type, stake: bet.amount, bankerMode: bet.bankerMode ?? undefined },
        outcome,
        rules,
      );
      state.expected = expected;
      const line = lines.get(bet.betId);
      if (line === undefined) {
        verdict.fail(
          'payouts',
          'BET_NOT_SETTLED',
          at,
          `bet ${bet.betId} (${bet.playerId}, ${bet.amount} on ${bet.type}) has no settlement line`,
          { expected: { result: expected.result, payout: expected.payout }, found: null },
        );
        continue;
      }
      state.line = line;
      const fields: [string, unknown, unknown][] = [
        ['player', bet.playerId, line.playerId],
        ['bet type', bet.type, line.type],
        ['banker mode', bet.bankerMode, line.bankerMode],
        ['seat', bet.seat, line.seat],
        ['stake', bet.amount, line.stake],
        ['result', expected.result, line.result],
        ['payout', expected.payout, line.payout],
        ['commission', expected.commission, line.commission],
        ['commission mode', rules.commission, line.commissionMode],
      ];
      for (const [field, want, got] of fields) {
        if (want === got) continue;
        verdict.fail(
          'payouts',
          'PAYOUT_MISMATCH',
          at,
          `bet ${bet.betId} (${bet.playerId}, ${bet.amount} on ${bet.type}): ${field} recomputed ${String(want)}, recorded ${String(got)}`,
          { expected: want, found: got },
        );
      }
    }
    const sum = (pick: (line: SettlementLine) => number) =>
      data.lines.reduce((total, line) => total + pick(line), 0);
    const totals: [string, number, number][] = [
      ['staked', sum((l) => l.stake), data.totals.staked],
      ['paid out', sum((l) => l.payout), data.totals.paidOut],
      ['commission', sum((l) => l.commission), data.totals.commission],
    ];
    for (const [field, want, got] of totals) {
      if (want === got) continue;
      verdict.fail(
        'payouts',
        'TOTALS_MISMATCH',
        at,
        `the settlement's total ${field} is not the sum of its lines`,
        { expected: want, found: got },
      );
    }
    verdict.pass('payouts');
  }

  function checkRefund(
    data: Extract<RoundEvent, { type: 'BetsRefunded' }>['data'],
    recorded: RecordedEvent,
  ): void {
    const at = locationOf(recorded);
    if (data.reason === 'voided' && status !== 'voided') {
      verdict.fail(
        'refunds',
        'REFUND_MISMATCH',
        at,
        'stakes are refunded as voided but the round is not voided',
      );
    }
    if (data.reason === 'voided') voidRefunded = true;
    for (const line of data.lines) {
      const state = bets.get(line.betId);
      if (state === undefined) {
        verdict.fail(
          'refunds',
          'REFUND_MISMATCH',
          at,
          `bet ${line.betId} is refunded but was never placed on the round`,
          {
            expected: 'no refund',
            found: line,
          },
        );
        continue;
      }
      if (state.refund !== null) {
        verdict.fail('refunds', 'REFUND_MISMATCH', at, `bet ${line.betId} is refunded twice`, {
          expected: 'one refund',
          found: 'two',
        });
        continue;
      }
      if (data.reason === 'cleared' && state.status !== 'cleared') {
        verdict.fail(
          'refunds',
          'REFUND_MISMATCH',
          at,
          `bet ${line.betId} is refunded as cleared but was not cleared`,
        );
      }
      if (line.amount !== state.bet.amount || line.playerId !== state.bet.playerId) {
        verdict.fail(
          'refunds',
          'REFUND_MISMATCH',
          at,
          `bet ${line.betId}: the refund does not return its stake to its player`,
          {
            expected: { playerId: state.bet.playerId, amount: state.bet.amount },
            found: { playerId: line.playerId, amount: line.amount },
          },
        );
      }
      state.refund = { amount: line.amount, reason: data.reason };
    }
    verdict.pass('refunds');
  }

  // After the replay: what the whole stream owes.
  if (status === 'completed' && settledBy === null) {
    verdict.skip('payouts', 'the round is complete but not settled yet');
  }
  if (status === 'voided' && voidRefunded) {
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
  const finished =
    (status === 'completed' && settledBy !== null) ||
    (status === 'voided' && (voidRefunded || refundedAll));
  const wallet =
    walletEvents === null
      ? null
      : checkRoundWallet(
          {
            roundId,
            status,
            finished,
            settlementId,
            bets: [...bets.values()],
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
    corrections,
    result,
    completed,
    settlementId,
    bets: [...bets.values()].map((state) => ({ ...state })),
    wallet,
  };
}
