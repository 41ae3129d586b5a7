import { z } from 'zod';
import { moneyIn, type Money } from './money-text.js';

/**
 * What an audit verifies, one check per property an auditor can state in a sentence. A check
 * passes, fails (with findings naming the event, what was expected and what was found) or is
 * skipped with the reason (a scanner shoe has no seed; an open shoe has not revealed it yet).
 */
export const CHECKS = {
  'hash-chain':
    "Every stream's hash chain recomputes, and its events stand in the global log in stream order: no event edited, missing, reordered, moved or unlinked",
  'event-schema': 'Every event matches its published schema and names the stream it is in',
  paytable: "The round's paytable id is the hash of the rules it was played under",
  'third-card-rule': 'Every card went to the hand the third-card rule names',
  'card-sequence': 'Every card dealt is the next card of the shoe, in position order',
  lifecycle:
    'Every round event came when the round allowed it: bets while betting was open, cards after it closed, one result, one settlement',
  outcome: 'The rules re-evaluated from the recorded cards give the recorded result',
  payouts:
    "Every settlement line, and every resettlement line after a void or a corrected result, recomputed with the round's paytable equals the recorded one",
  refunds:
    'Rounds voided before settlement and cleared bets refund every stake exactly once (a round voided after settlement is resettled instead)',
  justified:
    "Every money movement in the wallet is justified by the game's own record and comes after it: a debit by its open round and its bet, a payout, refund or adjustment by an existing round's settlement, void or resettlement, commission by its settlement and the dealer change that ended the shift, a deposit or withdrawal by an operator",
  debits:
    'Every stake debited is closed by exactly one payout or refund of the recorded amount, and every resettlement line that moves money by exactly one payout adjustment',
  'streams-agree': "The round's cards are the cards its shoe handed it",
  commitment: 'The revealed seed matches the commitment published before the first card',
  'shuffle-order': 'Every card burned or dealt is the card the seed puts at its position',
  burn: 'The burn shows one card and discards as many more as its value',
  'cut-card': 'The cut card came out where it was placed and set the last round by the rule',
  'last-round': "No round was dealt after the shoe's last",
  digest: "The ShoeClosed digest recomputes from the recorded heads of the shoe's streams",
  composition: 'No card was seen more often than the decks hold',
  corrections: 'Every card correction is recorded in both streams, with who and why',
  published:
    'The commitment and the digest equal the values the operator published when the shoe was shuffled and closed',
  anchored:
    'Every stream a signed checkpoint covers still holds, at the revision it recorded, the hash it recorded, and the notary stream recomputes to its signed heads',
  'export-file':
    'The file is an export as Croupier writes it: its instructions are the published ones, each stream is listed once, nothing else is added',
} as const;

export type CheckId = keyof typeof CHECKS;

/**
 * Checks that only values published outside the store can run (a commitment, a digest, a signed
 * checkpoint): skipped, they leave a consistent rewrite of the whole record possible, so a report
 * never calls the record verified without saying so.
 */
export const NEEDS_PUBLISHED_VALUES: ReadonlySet<CheckId> = new Set(['published', 'anchored']);
export const CHECK_IDS = Object.keys(CHECKS) as [CheckId, ...CheckId[]];
export const checkIdSchema = z.enum(CHECK_IDS);

/** Stable codes of what a finding found, so a tampering is named the same way every time. */
export const FINDING_CODES = [
  'EVENT_EDITED',
  'EVENT_MISSING',
  'EVENT_REORDERED',
  'EVENT_DUPLICATED',
  'CHAIN_BROKEN',
  'POSITION_INVALID',
  'SCHEMA_INVALID',
  'WRONG_STREAM',
  'PAYTABLE_MISMATCH',
  'THIRD_CARD_RULE',
  'CARD_OUT_OF_SEQUENCE',
  'OUTCOME_MISMATCH',
  'PAYOUT_MISMATCH',
  'BET_NOT_SETTLED',
  'TOTALS_MISMATCH',
  'REFUND_MISMATCH',
  'DEBIT_UNMATCHED',
  'DEBIT_MISMATCH',
  'DEBIT_CLOSED_TWICE',
  'CREDIT_MISMATCH',
  'RESETTLEMENT_MISMATCH',
  'ADJUSTMENT_MISSING',
  'ADJUSTMENT_UNMATCHED',
  'ADJUSTMENT_MISMATCH',
  'STREAMS_DISAGREE',
  'SEED_MISSING',
  'COMMITMENT_MISMATCH',
  'CARD_MISMATCH',
  'BURN_INVALID',
  'CUT_CARD_INVALID',
  'ROUND_AFTER_LAST',
  'CLOSE_INVALID',
  'DIGEST_MISMATCH',
  'COMPOSITION_EXCEEDED',
  'CORRECTION_INVALID',
  'LIFECYCLE_VIOLATION',
  'MOVEMENT_UNJUSTIFIED',
  'CHECKPOINT_INVALID',
  'ANCHOR_MISMATCH',
  'EXPORT_INVALID',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export const findingSchema = z.object({
  check: checkIdSchema,
  code: z.enum(FINDING_CODES),
  /** The stream and revision of the event at fault (null when it is about a missing stream). */
  stream: z.string().nullable(),
  revision: z.string().nullable(),
  eventType: z.string().nullable(),
  message: z.string(),
  expected: z.string().nullable(),
  found: z.string().nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

export const checkResultSchema = z.object({
  check: checkIdSchema,
  title: z.string(),
  status: z.enum(['pass', 'fail', 'skip']),
  /** Why a check was skipped, or what a passing one covered. */
  detail: z.string().nullable(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const verdictSchema = z.object({
  /** True when no check failed. */
  ok: z.boolean(),
  checks: z.array(checkResultSchema),
  findings: z.array(findingSchema),
  /** What the auditor saw but does not judge: events recorded after a close, unknown types. */
  notes: z.array(z.string()),
  /**
   * The index in `findings` of the likely tampered record, which the report leads with: the
   * first event whose stored hash does not match its content, else the first other break of a
   * chain or of a published checkpoint, else the first disagreement between streams, else the
   * first finding. The other findings are mostly what the rules recompute from it. Null when
   * there is no finding.
   */
  cause: z.number().int().nullable(),
});
export type Verdict = z.infer<typeof verdictSchema>;

/** Where a finding points: an event as recorded. */
export interface EventLocation {
  readonly stream: string;
  readonly revision: bigint | string | null;
  readonly type?: string | null;
}

export interface FindingInput {
  readonly expected?: unknown;
  readonly found?: unknown;
}

const text = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

/**
 * Collects check results and findings while an audit runs. A check is `pass` once it ran,
 * `fail` as soon as a finding names it, and `skip` only if it never ran.
 */
export class VerdictBuilder {
  private readonly ran = new Map<CheckId, string | null>();
  private readonly skipped = new Map<CheckId, string>();
  readonly findings: Finding[] = [];
  readonly notes: string[] = [];
  /**
   * Amounts as a finding's message gives them to a person: in the audited money's currency
   * ("1.50 EUR"), or said to be minor units while none is known. `expected` and `found` keep
   * the integers.
   */
  money: Money = moneyIn(null);

  /** Findings from here on give amounts in `currency` (null: none known). */
  inCurrency(currency: string | null): this {
    this.money = moneyIn(currency);
    return this;
  }

  /** Records that a check ran (passing unless a finding names it). */
  pass(check: CheckId, detail: string | null = null): void {
    if (!this.ran.has(check) || detail !== null) this.ran.set(check, detail);
  }

  /** Records that a check could not run here, and why (ignored if it ran elsewhere). */
  skip(check: CheckId, reason: string): void {
    if (!this.skipped.has(check)) this.skipped.set(check, reason);
  }

  fail(
    check: CheckId,
    code: FindingCode,
    at: EventLocation | null,
    message: string,
    values: FindingInput = {},
  ): void {
    if (!this.ran.has(check)) this.ran.set(check, null);
    this.findings.push({
      check,
      code,
      stream: at?.stream ?? null,
      revision: at?.revision === null || at?.revision === undefined ? null : String(at.revision),
      eventType: at?.type ?? null,
      message,
      expected: text(values.expected),
      found: text(values.found),
    });
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** The verdict over the given checks, in that order. */
  verdict(checks: readonly CheckId[]): Verdict {
    const failed = new Set(this.findings.map((finding) => finding.check));
    const results = checks.map((check): CheckResult => {
      const title = CHECKS[check];
      if (failed.has(check)) return { check, title, status: 'fail', detail: null };
      if (this.ran.has(check))
        return { check, title, status: 'pass', detail: this.ran.get(check) ?? null };
      return {
        check,
        title,
        status: 'skip',
        detail: this.skipped.get(check) ?? 'nothing to check',
      };
    });
    return {
      ok: failed.size === 0,
      checks: results,
      findings: [...this.findings],
      notes: [...this.notes],
      cause: causeOf(this.findings),
    };
  }
}

/** Which finding a report leads with (see `Verdict.cause`). */
function causeOf(findings: readonly Finding[]): number | null {
  if (findings.length === 0) return null;
  const tests: ((f: Finding) => boolean)[] = [
    (f) => f.check === 'hash-chain' && f.code === 'EVENT_EDITED',
    (f) => f.check === 'hash-chain',
    (f) => f.check === 'anchored' || f.check === 'published',
    (f) => f.code === 'STREAMS_DISAGREE',
    (f) => f.check === 'digest',
  ];
  for (const test of tests) {
    const index = findings.findIndex(test);
    if (index >= 0) return index;
  }
  return 0;
}
