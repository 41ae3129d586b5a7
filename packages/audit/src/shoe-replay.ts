import { createHash } from 'node:crypto';
import { parseRoundId, parseShoeId, streams, type DigestEntry } from '@croupier/contracts';
import { canonicalJson, type RecordedEvent } from '@croupier/eventstore';
import { verifyStreamChain } from './chain.js';
import { locationOf } from './parse.js';
import type { RoundSummary, ShoeReplay } from './reports.js';
import { checkAgainstOrder, compareCards, verifyWalletExcerpts } from './round-audit.js';
import { examineRound } from './round-examination.js';
import { walkShoe, type ShoeWalk } from './shoe-walk.js';
import { VerdictBuilder, type CheckId } from './verdict.js';
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
}

export interface ReplayOptions {
  /** Called after each stream is replayed: `done` of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
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
  'outcome',
  'payouts',
  'refunds',
  'debits',
  'digest',
  'composition',
  'corrections',
];

/** sha256 over the canonical JSON of the digest entries, as ShoeClosed seals them. */
export function digestValueOf(entries: readonly DigestEntry[]): string {
  return createHash('sha256').update(canonicalJson(entries)).digest('hex');
}

const byPosition = (a: RecordedEvent, b: RecordedEvent) =>
  a.position < b.position ? -1 : a.position > b.position ? 1 : 0;

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
  const total = evidence.rounds.length + 1;
  const shoeStream = streams.shoe(shoeId);

  verifyStreamChain(shoeStream, evidence.shoe, verdict);
  if (evidence.wallet) verifyWalletExcerpts(evidence.wallet, verdict);
  const walk = walkShoe(shoeId, evidence.shoe, verdict);
  options.onProgress?.(1, total);

  const rounds = [...evidence.rounds].sort(
    (a, b) => parseRoundId(a.roundId).roundNumber - parseRoundId(b.roundId).roundNumber,
  );
  const walletByRound = evidence.wallet ? walletEventsByRound(evidence.wallet) : null;
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
    const walletOfRound = walletByRound === null ? null : (walletByRound.get(roundId) ?? []);
    const examined = examineRound(roundId, events, walletOfRound, verdict);
    corrections.push(...examined.corrections);
    checkRoundInShoe(roundId, roundNumber, events, examined.opened, walk, verdict);
    compareCards(examined, walk.rounds.get(roundId)?.cards ?? [], verdict);
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
      staked: standing.reduce((sum, b) => sum + b.bet.amount, 0),
      paidOut: standing.reduce((sum, b) => sum + (b.line?.payout ?? 0), 0),
      ok: findings === 0,
      findings,
    });
    options.onProgress?.(index + 2, total);
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
  if (!evidence.wallet) verdict.skip('debits', 'the wallet events were not supplied');
  verdict.pass('hash-chain');

  const digest = checkDigest(shoeId, evidence, walk, verdict);
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
      wallet: evidence.wallet?.length ?? 0,
    },
    verdict: verdict.verdict(SHOE_CHECKS),
  };
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

/**
 * Recomputes the ShoeClosed digest: its value from its entries, each entry's hash from the
 * event at that revision of that stream, and that it covers the shoe stream (up to the event
 * before ShoeClosed) and every round stream of the shoe.
 */
function checkDigest(
  shoeId: string,
  evidence: ShoeEvidence,
  walk: ShoeWalk,
  verdict: VerdictBuilder,
): ShoeReplay['digest'] {
  const closed = walk.closed;
  const closedAt = walk.closedAt;
  if (closed === null || closedAt === null) {
    verdict.skip('digest', 'the shoe is not closed: its digest is sealed when it closes');
    return null;
  }
  const at = locationOf(closedAt);
  const { digest } = closed;
  const recomputed = digestValueOf(digest.streams);
  if (recomputed !== digest.value) {
    verdict.fail(
      'digest',
      'DIGEST_MISMATCH',
      at,
      'the digest value is not sha256 of the canonical JSON of its entries',
      { expected: recomputed, found: digest.value },
    );
  }
  const streamEvents = new Map<string, readonly RecordedEvent[]>([
    [streams.shoe(shoeId), evidence.shoe],
    ...evidence.rounds.map(
      ({ roundId, events }) =>
        [streams.round(roundId), events] as [string, readonly RecordedEvent[]],
    ),
  ]);
  const covered = [
    streams.shoe(shoeId),
    ...[...evidence.rounds]
      .filter(({ events }) => events.some((e) => e.position < closedAt.position))
      .sort((a, b) => parseRoundId(a.roundId).roundNumber - parseRoundId(b.roundId).roundNumber)
      .map(({ roundId }) => streams.round(roundId)),
  ];
  const sealed = digest.streams.map((entry) => entry.stream);
  for (const stream of covered) {
    if (!sealed.includes(stream)) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        at,
        `${stream} existed when the shoe closed but the digest does not seal it`,
        { expected: stream, found: null },
      );
    }
  }
  for (const entry of digest.streams) {
    const events = streamEvents.get(entry.stream);
    if (events === undefined) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        { stream: entry.stream, revision: entry.revision, type: null },
        `the digest seals ${entry.stream}, which is missing`,
        { expected: entry.stream, found: null },
      );
      continue;
    }
    const revision = BigInt(entry.revision);
    const event = events.find((e) => e.revision === revision);
    if (event === undefined) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        { stream: entry.stream, revision, type: null },
        `the digest seals revision ${revision} of ${entry.stream}, which is missing`,
        { expected: entry.hash, found: null },
      );
      continue;
    }
    if (String(event.metadata['hash']) !== entry.hash) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        locationOf(event),
        `${entry.stream}@${revision} no longer has the hash the digest sealed`,
        { expected: entry.hash, found: String(event.metadata['hash']) },
      );
    }
    if (entry.stream === streams.shoe(shoeId) && revision !== closedAt.revision - 1n) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        at,
        'the digest must seal the shoe stream up to the event before ShoeClosed',
        { expected: String(closedAt.revision - 1n), found: entry.revision },
      );
    }
    const later = events.filter((e) => e.revision > revision).sort(byPosition);
    if (later.length > 0 && entry.stream !== streams.shoe(shoeId)) {
      const before = later.filter((e) => e.position < closedAt.position).length;
      verdict.note(
        `${entry.stream}: ${later.length} event(s) after the sealed revision ${revision}` +
          (before > 0
            ? ` (${before} recorded before the shoe closed)`
            : ' (recorded after the shoe closed)'),
      );
    }
  }
  verdict.pass('digest', `${digest.streams.length} stream head(s) sealed, value ${recomputed}`);
  return { value: digest.value, recomputed, streams: digest.streams.length };
}
