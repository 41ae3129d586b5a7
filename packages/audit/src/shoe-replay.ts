import { parseRoundId, parseShoeId, streams } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { verifyStreamChain } from './chain.js';
import { checkAnchor, type AnchorEvidence } from './checkpoint.js';
import { checkDigest } from './digest-check.js';
import { locationOf } from './parse.js';
import type { RoundSummary, ShoeReplay } from './reports.js';
import {
  checkAgainstOrder,
  compareCards,
  compareSeal,
  finalOf,
  verifyWalletExcerpts,
} from './round-audit.js';
import { examineRound } from './round-examination.js';
import { walkShoe, type ShoeWalk } from './shoe-walk.js';
import { VerdictBuilder, type CheckId } from './verdict.js';
import { roundCurrencyOf } from './money-text.js';
import { checkOperatorStakes } from './operator-wallet-check.js';
import { walletEventsByRound } from './wallet-evidence.js';

/** The events a shoe replay reads: the shoe stream, every round stream of the shoe, and the
 * wallet movements of those rounds. */
export interface ShoeEvidence {
  readonly shoeId: string;
  readonly shoe: readonly RecordedEvent[];
  /** Rounds `shoeId.1`, `shoeId.2`, ... as found, each stream as stored. */
  readonly rounds: readonly {
    readonly roundId: string;
    readonly events: readonly RecordedEvent[];
  }[];
  readonly wallet?: readonly RecordedEvent[] | null;
  /**
   * Seamless mode (ADR 0026): the operator-wallet records naming the shoe's rounds. A round with
   * such records has its stakes checked against them instead of Croupier's wallet.
   */
  readonly operatorWallet?: readonly RecordedEvent[] | null;
  /**
   * The first event of the table's next shoe (`table.k+1`), when it has been shuffled: a shoe
   * is closed before the next one is shuffled, so this shoe must have its ShoeClosed.
   */
  readonly nextShoe?: RecordedEvent | null;
  /** A published checkpoint to check the shoe and round streams against (ADR 0024). */
  readonly anchor?: AnchorEvidence | null;
}

/**
 * What the operator published outside the database when the shoe was shuffled (its
 * commitment) and closed (its digest): the anchors a consistent rewrite of the whole record
 * cannot move. Hex, as the replay reports them.
 */
export interface PublishedValues {
  readonly commitment?: string | null;
  readonly digest?: string | null;
}

export interface ReplayOptions {
  /** Called after each stream is replayed: `done` of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Values published outside the store, to compare the record with. */
  readonly published?: PublishedValues | null;
}

export const SHOE_CHECKS: readonly CheckId[] = [
  'hash-chain',
  'event-schema',
  'commitment',
  'shuffle-order',
  'burn',
  'card-sequence',
  'third-card-rule',
  'cut-card',
  'last-round',
  'streams-agree',
  'paytable',
  'lifecycle',
  'outcome',
  'payouts',
  'refunds',
  'debits',
  'digest',
  'composition',
  'corrections',
  'published',
  'anchored',
];

/**
 * Replays a whole shoe from its events alone, as a regulator does: every stream's hash chain;
 * for rng shoes the commitment against the revealed seed and every burned and dealt card
 * against the order it gives; the burn, the cut card and the last round; that every dealt card
 * is the next one of the shoe and the same in the shoe and round streams; every round's outcome,
 * settlement and wallet movements; and the ShoeClosed digest recomputed from the recorded heads.
 */
export function replayShoe(evidence: ShoeEvidence, options: ReplayOptions = {}): ShoeReplay {
  const { shoeId } = evidence;
  const verdict = new VerdictBuilder();
  const shoeStream = streams.shoe(shoeId);
  const rounds = distinctRounds(evidence.rounds, verdict).sort(
    (a, b) => parseRoundId(a.roundId).roundNumber - parseRoundId(b.roundId).roundNumber,
  );
  const total = rounds.length + 1;

  verifyStreamChain(shoeStream, evidence.shoe, verdict);
  if (evidence.wallet) verifyWalletExcerpts(evidence.wallet, verdict);
  const walk = walkShoe(shoeId, evidence.shoe, verdict);
  options.onProgress?.(1, total);

  checkDistinctIds([...evidence.shoe, ...rounds.flatMap((r) => r.events)], verdict);
  const walletByRound = evidence.wallet ? walletEventsByRound(evidence.wallet) : null;
  const operatorByRound = operatorRecordsByRound(evidence.operatorWallet ?? []);
  if (evidence.operatorWallet) verifyWalletExcerpts(evidence.operatorWallet, verdict);
  const summaries: RoundSummary[] = [];
  const corrections = [...walk.corrections];
  let expectedNumber = 1;
  for (const [index, { roundId, events }] of rounds.entries()) {
    const before = verdict.findings.length;
    const stream = streams.round(roundId);
    const { shoeId: ofShoe, roundNumber } = parseRoundId(roundId);
    if (ofShoe !== shoeId) {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        { stream, revision: null, type: null },
        `round ${roundId} is not a round of shoe ${shoeId}`,
      );
    }
    for (; expectedNumber < roundNumber; expectedNumber++) {
      verdict.fail(
        'hash-chain',
        'EVENT_MISSING',
        { stream: streams.round(`${shoeId}.${expectedNumber}`), revision: null, type: null },
        `round stream ${shoeId}.${expectedNumber} is missing between its neighbours`,
      );
    }
    expectedNumber = roundNumber + 1;
    verifyStreamChain(stream, events, verdict);
    verdict.inCurrency(roundCurrencyOf(events));
    const seamless = operatorByRound.get(roundId) ?? null;
    const walletOfRound =
      walletByRound === null || seamless !== null ? null : (walletByRound.get(roundId) ?? []);
    const examined = examineRound(roundId, events, walletOfRound, verdict);
    if (seamless !== null) checkOperatorStakes(roundId, events, seamless, verdict);
    corrections.push(...examined.corrections);
    checkRoundInShoe(roundId, roundNumber, events, examined.opened, walk, verdict);
    compareCards(examined, walk.rounds.get(roundId)?.cards ?? [], verdict);
    compareSeal(examined, walk, verdict);
    if (walk.order !== null) checkAgainstOrder(examined, walk.order, verdict);
    for (const correction of examined.corrections) {
      const inShoe = walk.corrections.some(
        (c) =>
          c.shoePosition === correction.shoePosition &&
          c.previous === correction.previous &&
          c.card === correction.card,
      );
      if (!inShoe) {
        verdict.fail(
          'corrections',
          'CORRECTION_INVALID',
          { stream, revision: correction.revision, type: 'CardCorrected' },
          `the round corrects position ${correction.shoePosition} from ${correction.previous} to ${correction.card}, but the shoe records no such correction`,
        );
      }
    }
    const findings = verdict.findings.length - before;
    const standing = examined.bets.filter((b) => b.status === 'active');
    summaries.push({
      roundId,
      number: roundNumber,
      status: examined.status,
      winner: examined.result?.winner ?? examined.completed?.winner ?? null,
      player: examined.cards.filter((c) => c.hand === 'player').map((c) => c.card),
      banker: examined.cards.filter((c) => c.hand === 'banker').map((c) => c.card),
      bets: standing.length,
      currency: examined.opened?.currency ?? null,
      staked: standing.reduce((sum, b) => sum + b.bet.amount, 0),
      paidOut: standing.reduce((sum, b) => sum + (finalOf(b)?.payout ?? b.line?.payout ?? 0), 0),
      ok: findings === 0,
      findings,
    });
    options.onProgress?.(index + 2, total);
  }
  // Wallet movements and operator-wallet records (seamless mode) naming a round the shoe does
  // not hold: a movement no round of the shoe justifies.
  for (const [roundId, records] of [...(walletByRound ?? []), ...operatorByRound]) {
    if (rounds.some((r) => r.roundId === roundId)) continue;
    const ofShoe = roundOfShoe(roundId, shoeId);
    for (const record of records) {
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        locationOf(record),
        ofShoe
          ? `${record.type} for round ${roundId}, which has no stream: the shoe's record holds no such round`
          : `${record.type} for round ${roundId}, which is not a round of shoe ${shoeId}`,
        { expected: `a round of ${shoeId} with a stream`, found: roundId },
      );
    }
  }
  for (const [roundId] of walk.rounds) {
    if (!rounds.some((r) => r.roundId === roundId)) {
      verdict.fail(
        'streams-agree',
        'STREAMS_DISAGREE',
        { stream: streams.round(roundId), revision: null, type: null },
        `the shoe handed cards to round ${roundId}, whose stream is missing`,
      );
    }
  }
  if (walk.corrections.length === 0 && corrections.length === 0)
    verdict.skip('corrections', 'no card was corrected');
  if (!evidence.wallet && !evidence.operatorWallet)
    verdict.skip('debits', 'the wallet events were not supplied');
  verdict.pass('hash-chain');

  const digest = checkDigest(
    shoeId,
    walk,
    {
      streams: new Map<string, readonly RecordedEvent[]>([
        [shoeStream, evidence.shoe],
        ...rounds.map(
          ({ roundId, events }) =>
            [streams.round(roundId), events] as [string, readonly RecordedEvent[]],
        ),
      ]),
      nextShoe: evidence.nextShoe ?? null,
    },
    verdict,
  );
  checkPublished(evidence, walk, options.published, verdict);
  checkAnchor(
    evidence.anchor,
    new Map([
      [streams.shoe(shoeId), evidence.shoe],
      ...evidence.rounds.map(
        ({ roundId, events }) =>
          [streams.round(roundId), events] as [string, readonly RecordedEvent[]],
      ),
    ]),
    verdict,
    [...(evidence.wallet ?? []), ...(evidence.operatorWallet ?? [])],
  );
  const shuffled = walk.shuffled;
  const burn =
    walk.burned.length === 0
      ? null
      : { shown: walk.burned[0]?.card ?? null, cards: walk.burned.length };
  return {
    shoeId,
    tableId: shuffled?.tableId ?? parseShoeId(shoeId).tableId,
    number: shuffled?.number ?? null,
    status: shuffled === null ? 'missing' : walk.closed === null ? 'open' : 'closed',
    decks: shuffled?.decks ?? null,
    cardSource: shuffled?.cardSource ?? null,
    shufflePolicy: shuffled?.shufflePolicy ?? null,
    algorithm: shuffled?.algorithm ?? null,
    commitment: shuffled?.commitment ?? null,
    seed: walk.closed?.seed ?? null,
    burn,
    cutCard:
      shuffled === null || (shuffled.cutCardIndex === null && walk.cut === null)
        ? null
        : {
            index: shuffled.cutCardIndex,
            position: walk.cut?.position ?? null,
            roundNumber: walk.cut?.roundNumber ?? null,
            lastRoundNumber: walk.cut?.lastRoundNumber ?? null,
          },
    cardsUsed: walk.position,
    roundsDealt: walk.lastRoundDrawn,
    digest,
    rounds: summaries,
    corrections,
    events: {
      shoe: evidence.shoe.length,
      rounds: rounds.reduce((sum, r) => sum + r.events.length, 0),
      wallet: (evidence.wallet?.length ?? 0) + (evidence.operatorWallet?.length ?? 0),
    },
    verdict: verdict.verdict(SHOE_CHECKS),
  };
}

/** Whether a round id names a round of this shoe. */
function roundOfShoe(roundId: string, shoeId: string): boolean {
  try {
    return parseRoundId(roundId).shoeId === shoeId;
  } catch {
    return false;
  }
}

/** Each round stream once: a stream listed twice is named, and its first listing replayed. */
function distinctRounds(
  rounds: ShoeEvidence['rounds'],
  verdict: VerdictBuilder,
): { roundId: string; events: readonly RecordedEvent[] }[] {
  const seen = new Set<string>();
  const distinct: { roundId: string; events: readonly RecordedEvent[] }[] = [];
  for (const round of rounds) {
    try {
      parseRoundId(round.roundId);
    } catch {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        { stream: streams.round(round.roundId), revision: null, type: null },
        `"${round.roundId}" is not a round id`,
      );
      continue;
    }
    if (seen.has(round.roundId)) {
      verdict.fail(
        'hash-chain',
        'EVENT_DUPLICATED',
        { stream: streams.round(round.roundId), revision: null, type: null },
        `round stream ${round.roundId} is listed more than once`,
        { expected: 'one listing', found: 'two or more' },
      );
      continue;
    }
    seen.add(round.roundId);
    distinct.push(round);
  }
  return distinct;
}

/** An event id is recorded once in the whole log: the same id at two places is a copy. */
function checkDistinctIds(events: readonly RecordedEvent[], verdict: VerdictBuilder): void {
  const first = new Map<string, RecordedEvent>();
  for (const event of events) {
    const earlier = first.get(event.id);
    if (earlier === undefined) {
      first.set(event.id, event);
      continue;
    }
    if (earlier.stream === event.stream && earlier.revision === event.revision) continue;
    verdict.fail(
      'hash-chain',
      'EVENT_DUPLICATED',
      locationOf(event),
      `event ${event.id} is also recorded at ${earlier.stream}@${earlier.revision}`,
      { expected: 'each event id once', found: `${earlier.stream}@${earlier.revision}` },
    );
  }
}

/**
 * The record against what the operator published outside it: the commitment when the shoe was
 * shuffled, the digest when it closed. A consistent rewrite or a record cut before its close
 * verifies on its own; it cannot match a value published before the rewrite.
 */
function checkPublished(
  evidence: ShoeEvidence,
  walk: ShoeWalk,
  published: PublishedValues | null | undefined,
  verdict: VerdictBuilder,
): void {
  const commitment = published?.commitment?.toLowerCase() || null;
  const digest = published?.digest?.toLowerCase() || null;
  if (commitment === null && digest === null) {
    verdict.skip(
      'published',
      'no published commitment or digest was given (casino verify/replay --commitment --digest)',
    );
    return;
  }
  const shoeStream = streams.shoe(evidence.shoeId);
  const compared: string[] = [];
  if (commitment !== null) {
    compared.push('commitment');
    if (walk.shuffledAt === null) {
      verdict.fail(
        'published',
        'EVENT_MISSING',
        { stream: shoeStream, revision: 0n, type: 'ShoeShuffled' },
        `the operator published commitment ${commitment}, but the record has no ShoeShuffled`,
        { expected: commitment, found: null },
      );
    } else if (walk.shuffled?.commitment !== commitment) {
      verdict.fail(
        'published',
        'COMMITMENT_MISMATCH',
        locationOf(walk.shuffledAt),
        'ShoeShuffled records another commitment than the one published when the shoe was shuffled',
        { expected: commitment, found: walk.shuffled?.commitment ?? null },
      );
    }
  }
  if (digest !== null) {
    compared.push('digest');
    if (walk.closed === null || walk.closedAt === null) {
      verdict.fail(
        'published',
        'EVENT_MISSING',
        { stream: shoeStream, revision: BigInt(evidence.shoe.length), type: 'ShoeClosed' },
        `the operator published digest ${digest} when the shoe closed, but the record has no ShoeClosed: it was cut short`,
        { expected: digest, found: null },
      );
    } else if (walk.closed.digest.value !== digest) {
      verdict.fail(
        'published',
        'DIGEST_MISMATCH',
        locationOf(walk.closedAt),
        'ShoeClosed records another digest than the one published when the shoe closed: the streams it seals were rewritten',
        { expected: digest, found: walk.closed.digest.value },
      );
    }
  }
  verdict.pass('published', `compared with the published ${compared.join(' and ')}`);
}

/** A round stream must belong to the shoe, and be opened before it closed and up to its last. */
function checkRoundInShoe(
  roundId: string,
  roundNumber: number,
  events: readonly RecordedEvent[],
  opened: { shoeId: string; number: number; cardSource: string } | null,
  walk: ShoeWalk,
  verdict: VerdictBuilder,
): void {
  const first = events[0];
  if (opened !== null && first !== undefined) {
    const expected = {
      shoeId: walk.shuffled?.shoeId,
      number: roundNumber,
      cardSource: walk.shuffled?.cardSource,
    };
    const found = { shoeId: opened.shoeId, number: opened.number, cardSource: opened.cardSource };
    if (JSON.stringify(expected) !== JSON.stringify(found)) {
      verdict.fail(
        'event-schema',
        'WRONG_STREAM',
        locationOf(first),
        `round ${roundId} was opened as round ${opened.number} of ${opened.shoeId} (${opened.cardSource})`,
        { expected, found },
      );
    }
  }
  const last = walk.cut?.lastRoundNumber ?? null;
  const policy = walk.shuffled?.shufflePolicy;
  if ((last !== null && roundNumber > last) || (policy === 'every-round' && roundNumber > 1)) {
    verdict.fail(
      'last-round',
      'ROUND_AFTER_LAST',
      first === undefined ? { stream: streams.round(roundId), revision: null } : locationOf(first),
      `round ${roundNumber} was opened after the shoe's last round ${last ?? 1}`,
      { expected: `round ${last ?? 1} at most`, found: `round ${roundNumber}` },
    );
  }
  if (walk.closedAt !== null && first !== undefined && first.position > walk.closedAt.position) {
    verdict.fail(
      'last-round',
      'ROUND_AFTER_LAST',
      locationOf(first),
      `round ${roundId} was opened after shoe ${walk.shuffled?.shoeId ?? ''} closed`,
    );
  }
}

/** Seamless mode's records by the round they name. */
function operatorRecordsByRound(records: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const grouped = new Map<string, RecordedEvent[]>();
  for (const record of records) {
    const roundId = (record.data as { roundId?: unknown } | null)?.roundId;
    if (typeof roundId !== 'string') continue;
    grouped.set(roundId, [...(grouped.get(roundId) ?? []), record]);
  }
  return grouped;
}
