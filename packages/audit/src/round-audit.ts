import { explainThirdCards, type Card } from '@croupier/baccarat';
import { parseRoundId, streams, type Adjustment } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { checkAnchor, type AnchorEvidence } from './checkpoint.js';
import { verifyStreamChain } from './chain.js';
import { describeEvent } from './describe.js';
import { locationOf, provenanceOf } from './parse.js';
import type { RoundAudit, TrailEntry } from './reports.js';
import type { BetAdjustment, BetExamination, DealtCard } from './round-model.js';
import { examineRound, type RoundExamination } from './round-examination.js';
import { checkOperatorStakes } from './operator-wallet-check.js';
import { operatorWalletMovements } from './operator-wallet-movements.js';
import { checkDigest } from './digest-check.js';
import { cardText, walkShoe, type ShoeWalk } from './shoe-walk.js';
import { VerdictBuilder, type CheckId } from './verdict.js';
import { roundCurrencyOf } from './money-text.js';

/** The events a round audit reads. */
export interface RoundEvidence {
  readonly roundId: string;
  /** The round stream, as stored. */
  readonly round: readonly RecordedEvent[];
  /**
   * The round's shoe stream: the round's cards are checked against what the shoe handed it
   * and, once the shoe has closed, against the order its revealed seed gives.
   */
  readonly shoe?: readonly RecordedEvent[] | null;
  /** Wallet events of the round (debits, payouts, refunds, commission): see `isWalletEventOf`. */
  readonly wallet?: readonly RecordedEvent[] | null;
  /**
   * Seamless mode (ADR 0026): what Croupier asked the operator's wallet for this round and what
   * it answered (`isOperatorWalletEventOf`). When given, the stakes are checked against these
   * records instead of Croupier's own wallet, which holds no balance then.
   */
  readonly operatorWallet?: readonly RecordedEvent[] | null;
  /** The first event of the table's next shoe, when it was shuffled (see `ShoeEvidence`). */
  readonly nextShoe?: RecordedEvent | null;
  /** A published checkpoint to check the round and shoe streams against (ADR 0024). */
  readonly anchor?: AnchorEvidence | null;
}

export const ROUND_CHECKS: readonly CheckId[] = [
  'hash-chain',
  'event-schema',
  'paytable',
  'lifecycle',
  'third-card-rule',
  'card-sequence',
  'outcome',
  'payouts',
  'refunds',
  'debits',
  'streams-agree',
  'commitment',
  'shuffle-order',
  'digest',
  'corrections',
  'anchored',
];

/** Verifies the hash chains of wallet excerpts, one chain per wallet stream. */
export function verifyWalletExcerpts(
  events: readonly RecordedEvent[],
  verdict: VerdictBuilder,
): void {
  const byStream = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const list = byStream.get(event.stream) ?? [];
    list.push(event);
    byStream.set(event.stream, list);
  }
  for (const [stream, list] of byStream) {
    const ordered = [...list].sort((a, b) =>
      a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0,
    );
    verifyStreamChain(stream, ordered, verdict, { excerpt: true });
  }
}

/**
 * The trail entry of an event: who, when, what, and where it sits in the log. `currency`: the
 * round's, which its amounts are in where the event names none.
 */
export function trailEntryOf(recorded: RecordedEvent, currency: string | null = null): TrailEntry {
  const { actor, occurredAt } = provenanceOf(recorded);
  const hash = recorded.metadata['hash'];
  return {
    stream: recorded.stream,
    revision: String(recorded.revision),
    position: String(recorded.position),
    eventId: recorded.id,
    type: recorded.type,
    actor,
    occurredAt,
    recordedAt: recorded.recordedAt.toISOString(),
    what: describeEvent(recorded, currency),
    hash: typeof hash === 'string' ? hash : null,
  };
}

/** Whether a shoe event concerns this round (cards drawn for it, a correction, its cut card). */
function shoeEventOfRound(recorded: RecordedEvent, roundId: string, number: number): boolean {
  const data = recorded.data as { roundId?: unknown; roundNumber?: unknown };
  if (data.roundId !== undefined) return data.roundId === roundId;
  return recorded.type === 'CutCardReached' && data.roundNumber === number;
}

/**
 * Audits one round for a dispute: its full trail in order (who, when, what), its cards with their
 * shoe positions, the third-card decisions explained, every bet with its settlement line and the
 * line recomputed, the wallet movements it caused, and a verdict naming every difference.
 */
export function auditRound(evidence: RoundEvidence): RoundAudit {
  const { roundId } = evidence;
  const verdict = new VerdictBuilder().inCurrency(roundCurrencyOf(evidence.round));
  const roundStream = streams.round(roundId);
  const { shoeId, roundNumber } = parseRoundId(roundId);

  verifyStreamChain(roundStream, evidence.round, verdict);
  if (evidence.round.length === 0) {
    verdict.fail(
      'hash-chain',
      'EVENT_MISSING',
      { stream: roundStream, revision: null, type: null },
      `round ${roundId} has no events, but its shoe or its players' wallets name it: its stream was deleted`,
      { expected: `the events of ${roundStream}`, found: null },
    );
  }
  if (evidence.shoe) verifyStreamChain(streams.shoe(shoeId), evidence.shoe, verdict);
  if (evidence.wallet) verifyWalletExcerpts(evidence.wallet, verdict);
  verdict.pass('hash-chain');

  const seamless = evidence.operatorWallet ?? null;
  const examined = examineRound(
    roundId,
    evidence.round,
    seamless === null ? (evidence.wallet ?? null) : null,
    verdict,
  );
  if (seamless !== null) {
    verifyWalletExcerpts(seamless, verdict);
    checkOperatorStakes(roundId, evidence.round, seamless, verdict);
  } else if (evidence.wallet === undefined || evidence.wallet === null)
    verdict.skip('debits', 'the wallet events were not supplied');

  if (evidence.shoe) {
    const walk = compareWithShoe(shoeId, evidence.shoe, examined, verdict);
    // Once the shoe has closed, its digest sealed this round's stream: a round rewritten and
    // re-hashed since (its own chain intact again) no longer has the sealed hash.
    checkDigest(
      shoeId,
      walk,
      {
        streams: new Map([
          [streams.shoe(shoeId), evidence.shoe],
          [roundStream, evidence.round],
        ]),
        partial: true,
        nextShoe: evidence.nextShoe ?? null,
      },
      verdict,
    );
  } else {
    verdict.skip('streams-agree', 'the shoe stream was not supplied');
    verdict.skip('commitment', 'the shoe stream was not supplied');
    verdict.skip('shuffle-order', 'the shoe stream was not supplied');
    verdict.skip('digest', 'the shoe stream was not supplied');
  }
  if (examined.corrections.length === 0) verdict.skip('corrections', 'no card was corrected');
  checkAnchor(
    evidence.anchor,
    new Map([
      [roundStream, evidence.round],
      ...(evidence.shoe ? [[streams.shoe(shoeId), evidence.shoe] as const] : []),
    ]),
    verdict,
    [...(evidence.wallet ?? []), ...(evidence.operatorWallet ?? [])],
  );

  const related = [
    ...evidence.round,
    ...(evidence.shoe ?? []).filter((e) => shoeEventOfRound(e, roundId, roundNumber)),
    ...(evidence.wallet ?? []).filter((e) =>
      examined.wallet?.some((m) => m.stream === e.stream && m.revision === String(e.revision)),
    ),
    ...(evidence.operatorWallet ?? []),
  ].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));

  return {
    roundId,
    tableId: examined.opened?.tableId ?? null,
    shoeId: examined.opened?.shoeId ?? null,
    number: examined.opened?.number ?? null,
    status: examined.status,
    paused: examined.paused,
    cardSource: examined.opened?.cardSource ?? null,
    currency: examined.opened?.currency ?? null,
    paytableId: examined.opened?.paytableId ?? null,
    trail: related.map((event) => trailEntryOf(event, examined.opened?.currency ?? null)),
    cards: examined.cards.map((card) => ({ ...card })),
    corrections: [...examined.corrections],
    result: resultOf(examined),
    thirdCards: thirdCardsOf(examined.cards),
    bets: examined.bets.map(({ bet, status, line, expected, refund, adjustments }) => ({
      betId: bet.betId,
      playerId: bet.playerId,
      type: bet.type,
      amount: bet.amount,
      bankerMode: bet.bankerMode,
      seat: bet.seat,
      status,
      settlement:
        line === null
          ? null
          : {
              result: line.result,
              payout: line.payout,
              commission: line.commission,
              commissionMode: line.commissionMode,
            },
      expected:
        expected === null
          ? null
          : { result: expected.result, payout: expected.payout, commission: expected.commission },
      refund,
      adjustments: adjustments.map((adjustment) => ({
        stream: adjustment.at.stream,
        revision: String(adjustment.at.revision),
        resettlementId: adjustment.resettlementId,
        kind: adjustment.kind,
        recorded: adjustment.recorded === null ? null : adjustmentLineOf(adjustment.recorded),
        expected: adjustmentLineOf(adjustment.expected),
      })),
      final: finalOf({ line, adjustments }),
    })),
    // Seamless mode: Croupier's wallet moved nothing; the calls to the operator's wallet are
    // the round's movements.
    wallet:
      examined.wallet !== null
        ? [...examined.wallet]
        : seamless === null
          ? null
          : operatorWalletMovements(seamless),
    verdict: verdict.verdict(ROUND_CHECKS),
  };
}

function adjustmentLineOf(line: BetAdjustment['expected'] | Adjustment) {
  return {
    previousPayout: line.previousPayout,
    payout: line.payout,
    delta: line.delta,
    result: line.result,
    previousCommission: line.previousCommission,
    commission: line.commission,
  };
}

/**
 * What a resettled bet is paid in the end: as its last resettlement line recorded it (its
 * settlement line if no resettlement recorded one), and as the rules give it; null if it was
 * never resettled.
 */
export function finalOf(
  bet: Pick<BetExamination, 'line' | 'adjustments'>,
): RoundAudit['bets'][number]['final'] {
  const last = bet.adjustments.at(-1);
  if (last === undefined) return null;
  const recorded = bet.adjustments.findLast((a) => a.recorded !== null)?.recorded ?? bet.line;
  const expected = {
    result: last.expected.result,
    payout: last.expected.payout,
    commission: last.expected.commission,
  };
  return {
    result: recorded?.result ?? expected.result,
    payout: recorded?.payout ?? expected.payout,
    commission: recorded?.commission ?? expected.commission,
    expected,
  };
}

function resultOf(examined: RoundExamination): RoundAudit['result'] {
  const r = examined.result;
  if (r === null) return null;
  return {
    winner: r.winner,
    player: {
      cards: [...r.player],
      total: r.playerTotal,
      natural: r.playerNatural,
      pair: r.playerPair,
      perfectPair: r.playerPerfectPair,
    },
    banker: {
      cards: [...r.banker],
      total: r.bankerTotal,
      natural: r.bankerNatural,
      pair: r.bankerPair,
      perfectPair: r.bankerPerfectPair,
    },
  };
}

function thirdCardsOf(cards: readonly DealtCard[]): RoundAudit['thirdCards'] {
  const hand = (side: 'player' | 'banker'): Card[] =>
    cards.filter((c) => c.hand === side).map((c) => c.card);
  try {
    return explainThirdCards(hand('player'), hand('banker')).map((d) => ({ ...d }));
  } catch {
    return []; // an incomplete or invalid deal: the findings say why
  }
}

/**
 * Checks the round's cards against its shoe's record and, once revealed, the seed's order.
 * Returns the shoe's walk (its own findings are the shoe replay's business, but the commitment).
 */
function compareWithShoe(
  shoeId: string,
  shoeEvents: readonly RecordedEvent[],
  examined: RoundExamination,
  verdict: VerdictBuilder,
): ShoeWalk {
  const scratch = new VerdictBuilder();
  const walk = walkShoe(shoeId, shoeEvents, scratch);
  for (const finding of scratch.findings) {
    if (finding.check === 'commitment') verdict.findings.push(finding);
  }
  const commitment = scratch.verdict(['commitment']).checks[0]!;
  if (commitment.status === 'pass') verdict.pass('commitment', commitment.detail);
  else if (commitment.status === 'skip')
    verdict.skip('commitment', commitment.detail ?? 'not checked');
  compareCards(examined, walk.rounds.get(examined.roundId)?.cards ?? [], verdict);
  compareSeal(examined, walk, verdict);
  if (walk.order === null) {
    verdict.skip(
      'shuffle-order',
      walk.shuffled?.cardSource === 'scanner'
        ? "a scanner shoe's cards come from the card reader: there is no seed"
        : 'the seed stays sealed until the shoe closes',
    );
    return walk;
  }
  checkAgainstOrder(examined, walk.order, verdict);
  return walk;
}

/** Each card of the round must be the card the revealed seed puts at its shoe position. */
export function checkAgainstOrder(
  examined: RoundExamination,
  order: readonly Card[],
  verdict: VerdictBuilder,
): void {
  for (const card of examined.cards) {
    const expected = order[card.shoePosition];
    if (expected === card.card) {
      verdict.pass('shuffle-order');
      continue;
    }
    verdict.fail(
      'shuffle-order',
      'CARD_MISMATCH',
      { stream: streams.round(examined.roundId), revision: card.revision, type: 'CardDealt' },
      `shoe position ${card.shoePosition}: the revealed seed puts ${expected ?? 'no card'} there, the round records ${card.card}`,
      { expected: expected ?? null, found: card.card },
    );
  }
}

/**
 * A round the shoe sealed for its void: the seal names exactly the cards the round dealt and
 * its void discarded, and a void that discarded cards was sealed at the shoe (unless the shoe
 * closed first, which seals every round).
 */
export function compareSeal(
  examined: RoundExamination,
  walk: Pick<ShoeWalk, 'seals' | 'closedAt'>,
  verdict: VerdictBuilder,
): void {
  const seal = walk.seals.get(examined.roundId);
  const recorded = [...examined.cards, ...(examined.discarded ?? [])].map((c) =>
    cardText({ card: c.card, position: c.shoePosition, hand: c.hand }),
  );
  if (seal === undefined) {
    if (examined.discarded === null || examined.discarded.length === 0 || walk.closedAt !== null)
      return;
    verdict.fail(
      'streams-agree',
      'STREAMS_DISAGREE',
      {
        stream: streams.round(examined.roundId),
        revision: examined.discarded[0]!.revision,
        type: 'RoundVoided',
      },
      'the void records cards from a seal the shoe never recorded',
      { expected: 'RoundSealed', found: null },
    );
    return;
  }
  const named = seal.cards.map(cardText);
  if (examined.status === 'voided' && named.join(' ') !== recorded.join(' ')) {
    verdict.fail(
      'streams-agree',
      'STREAMS_DISAGREE',
      locationOf(seal.at),
      `the shoe sealed round ${examined.roundId} with [${named.join(' ')}]; the round records [${recorded.join(' ')}] (dealt, then discarded by its void)`,
      { expected: named, found: recorded },
    );
  } else {
    verdict.pass('streams-agree');
  }
}

/** The round's cards must be the shoe's cards for it: same positions, cards and hands. */
export function compareCards(
  examined: RoundExamination,
  shoeCards: readonly { position: number; card: Card; hand: string; revision?: bigint }[],
  verdict: VerdictBuilder,
): void {
  const stream = streams.round(examined.roundId);
  const shoeStream = streams.shoe(parseRoundId(examined.roundId).shoeId);
  /** Whether the chain check found this event's stored hash wrong: the likely edited side. */
  const edited = (at: string, revision: bigint | undefined): boolean =>
    revision !== undefined &&
    verdict.findings.some(
      (f) => f.code === 'EVENT_EDITED' && f.stream === at && f.revision === String(revision),
    );
  // A round voided mid-deal records the cards it never dealt from the shoe's seal (ADR 0033).
  const recorded = [...examined.cards, ...(examined.discarded ?? [])];
  const count = Math.max(recorded.length, shoeCards.length);
  for (let index = 0; index < count; index++) {
    const dealt = recorded[index];
    const drawn = shoeCards[index];
    const found = dealt === undefined ? null : `${dealt.card}@${dealt.shoePosition}→${dealt.hand}`;
    const expected = drawn === undefined ? null : `${drawn.card}@${drawn.position}→${drawn.hand}`;
    if (found === expected) {
      verdict.pass('streams-agree');
      continue;
    }
    // Named on the side whose stored hash no longer matches, when only one does.
    const onShoe =
      drawn !== undefined &&
      edited(shoeStream, drawn.revision) &&
      !edited(stream, dealt === undefined ? undefined : BigInt(dealt.revision));
    verdict.fail(
      'streams-agree',
      'STREAMS_DISAGREE',
      onShoe
        ? { stream: shoeStream, revision: drawn.revision ?? null, type: 'CardsDrawn' }
        : {
            stream,
            revision: dealt?.revision ?? null,
            type: dealt === undefined ? null : 'CardDealt',
          },
      dealt === undefined
        ? `the shoe handed the round a card (${expected}) the round never recorded`
        : drawn === undefined
          ? `the round records card ${index + 1} (${found}), which the shoe never handed it`
          : `card ${index + 1} of the round: the shoe handed it ${expected}, the round records ${found}`,
      { expected, found },
    );
  }
}
