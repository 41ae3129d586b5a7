import type { RecordedEvent } from '@croupier/eventstore';
import { z } from 'zod';
import { replayShoe, type ReplayOptions, type ShoeEvidence } from './shoe-replay.js';
import type { ShoeReplay } from './reports.js';
import { VerdictBuilder } from './verdict.js';

/** Names the export format; a new shape is a new version, never a silent change. */
export const SHOE_EXPORT_FORMAT = 'croupier.shoe-export';
export const SHOE_EXPORT_VERSION = 1;

/** How to verify an export by hand, shipped inside every export. */
export const VERIFICATION_INSTRUCTIONS: readonly string[] = [
  'This file holds every event of one shoe: its shoe stream, the stream of each of its rounds, and the wallet events those rounds caused. Nothing else is needed to verify it: `pnpm casino verify FILE` does all of the steps below offline.',
  "1. Hash chains. In every stream, event n carries metadata.prevHash and metadata.hash. hash = hex(sha256(utf8(prevHash) || utf8(JCS({type, data, metadata without prevHash and hash})))), where JCS is RFC 8785 canonical JSON (keys sorted, no whitespace). The first event of a stream has prevHash = 64 zeros; each prevHash is the previous revision's hash. Revisions run 0, 1, 2, ... without gaps. Wallet events are excerpts: check each hash, and the links between consecutive revisions present.",
  '2. Commitment (rng shoes). ShoeClosed.data.seed is the secret seed, revealed. sha256(seed bytes || utf8(\'{"algorithm":"croupier/fisher-yates/hmac-sha256/v1","decks":D,"shoeId":"ID"}\')) must equal ShoeShuffled.data.commitment, which was recorded before the first card.',
  '3. Card order (rng shoes). The order is the ordered shoe (for each deck, for each suit C,D,H,S, ranks A,2..9,T,J,Q,K) shuffled by Fisher-Yates (i from n-1 down to 1, swap i with j uniform in [0, i]) drawing 32-bit big-endian words from HMAC-SHA256(key = seed, message = parameters || 8-byte big-endian block counter), rejecting draws below 2^32 mod bound. docs/verify-shuffle.py does it with the Python standard library.',
  '4. Burn. With a burn, CardBurned events take positions 0, 1, ...: the first is shown, and its value (Ace 1, 2-9 face value, 10/J/Q/K 10) is how many more are burned. Every burned card of an rng shoe is the card of the order at its position.',
  '5. Cards. CardsDrawn events hand out the positions after the burn one by one, each card to the hand the third-card rule names; each round stream records the same cards (CardDealt: card, hand, shoePosition). When a card at or past ShoeShuffled.data.cutCardIndex comes out, CutCardReached follows: if it was the first card of its round that round is the last, otherwise the next one is. No round after the last deals a card.',
  "6. Rounds. Re-evaluate each round from its cards: totals (sum of points mod 10), naturals, pairs, the winner; they must equal RoundCompleted. Settle every standing bet with the paytable of RoundOpened.data.rules (payouts rounded down to the minor unit) and compare with RoundSettled. Every StakeDebited of the round must be closed by exactly one PayoutCredited of the settlement line's payout or one StakeRefunded of the stake.",
  '7. Digest. ShoeClosed.data.digest.value = hex(sha256(JCS(digest.streams))); each entry names a stream, a revision and the hash that revision had when the shoe closed: the shoe stream up to the event before ShoeClosed, and every round stream of the shoe.',
  '8. Provenance. A file can be forged as a whole by someone who re-hashes everything; compare ShoeShuffled.data.commitment and ShoeClosed.data.digest.value with the values the operator published or reported when the shoe was shuffled and closed.',
];

const decimal = z.string().regex(/^\d+$/, 'must be a non-negative integer in decimal');

export const exportedEventSchema = z.object({
  id: z.string().min(1),
  stream: z.string().min(1),
  revision: decimal,
  position: decimal,
  type: z.string().min(1),
  data: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  recordedAt: z.string(),
});
export type ExportedEvent = z.infer<typeof exportedEventSchema>;

export const shoeExportSchema = z.object({
  format: z.literal(SHOE_EXPORT_FORMAT),
  version: z.literal(SHOE_EXPORT_VERSION),
  shoeId: z.string().min(1),
  exportedAt: z.string(),
  instructions: z.array(z.string()),
  shoe: z.array(exportedEventSchema),
  rounds: z.array(z.object({ roundId: z.string().min(1), events: z.array(exportedEventSchema) })),
  wallet: z.array(exportedEventSchema),
  /** The first event of the table's next shoe, when it had been shuffled (see ShoeEvidence). */
  nextShoe: exportedEventSchema.nullable().optional(),
});
export type ShoeExport = z.infer<typeof shoeExportSchema>;

export class ExportFormatError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`not a Croupier shoe export: ${issues.join('; ')}`);
    this.name = 'ExportFormatError';
  }
}

const exported = (event: RecordedEvent): ExportedEvent => ({
  id: event.id,
  stream: event.stream,
  revision: event.revision.toString(),
  position: event.position.toString(),
  type: event.type,
  data: event.data,
  metadata: { ...event.metadata },
  recordedAt: event.recordedAt.toISOString(),
});

const recorded = (event: ExportedEvent): RecordedEvent => ({
  id: event.id,
  stream: event.stream,
  revision: BigInt(event.revision),
  position: BigInt(event.position),
  type: event.type,
  data: event.data,
  metadata: event.metadata,
  recordedAt: new Date(event.recordedAt),
});

/** A self-contained export of a shoe: its events and how to verify them. */
export function exportShoe(evidence: ShoeEvidence, exportedAt: Date = new Date()): ShoeExport {
  return {
    format: SHOE_EXPORT_FORMAT,
    version: SHOE_EXPORT_VERSION,
    shoeId: evidence.shoeId,
    exportedAt: exportedAt.toISOString(),
    instructions: [...VERIFICATION_INSTRUCTIONS],
    shoe: evidence.shoe.map(exported),
    rounds: evidence.rounds.map(({ roundId, events }) => ({
      roundId,
      events: events.map(exported),
    })),
    wallet: (evidence.wallet ?? []).map(exported),
    nextShoe: evidence.nextShoe ? exported(evidence.nextShoe) : null,
  };
}

function readJson(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch (error) {
    throw new ExportFormatError([
      `not JSON: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
}

/** Reads an export (its JSON text or the parsed value) back into the evidence it holds. */
export function parseShoeExport(input: unknown): ShoeEvidence {
  const value = readJson(input);
  const parsed = shoeExportSchema.safeParse(value);
  if (!parsed.success) {
    throw new ExportFormatError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`),
    );
  }
  const file = parsed.data;
  return {
    shoeId: file.shoeId,
    shoe: file.shoe.map(recorded),
    rounds: file.rounds.map(({ roundId, events }) => ({ roundId, events: events.map(recorded) })),
    wallet: file.wallet.map(recorded),
    nextShoe: file.nextShoe ? recorded(file.nextShoe) : null,
  };
}

const FILE_KEYS = new Set(Object.keys(shoeExportSchema.shape));
const EVENT_KEYS = new Set(Object.keys(exportedEventSchema.shape));

/**
 * What the file itself must be, beyond its events: the instructions a regulator follows by hand
 * are the published ones (an edited step could tell them to skip a check), and nothing is added
 * that `verify` would silently ignore (a `verdict` or a summary someone might trust instead).
 */
function checkExportFile(value: unknown, verdict: VerdictBuilder): void {
  const file = value as Record<string, unknown>;
  const extra = Object.keys(file).filter((key) => !FILE_KEYS.has(key));
  if (extra.length > 0) {
    verdict.fail(
      'export-file',
      'EXPORT_INVALID',
      null,
      `the file carries field(s) an export does not have, which verify ignores: ${extra.join(', ')}`,
      { expected: [...FILE_KEYS], found: extra },
    );
  }
  const instructions = file['instructions'] as string[];
  const count = Math.max(instructions.length, VERIFICATION_INSTRUCTIONS.length);
  for (let index = 0; index < count; index++) {
    if (instructions[index] === VERIFICATION_INSTRUCTIONS[index]) continue;
    verdict.fail(
      'export-file',
      'EXPORT_INVALID',
      null,
      `instruction ${index + 1} is not the one Croupier publishes for export version ${SHOE_EXPORT_VERSION}: follow docs/audit.md, not the file`,
      { expected: VERIFICATION_INSTRUCTIONS[index] ?? null, found: instructions[index] ?? null },
    );
  }
  const lists = [
    file['shoe'],
    ...(file['rounds'] as { events: unknown }[]).map((round) => round.events),
    file['wallet'],
    file['nextShoe'] ? [file['nextShoe']] : [],
  ] as Record<string, unknown>[][];
  for (const event of lists.flat()) {
    const added = Object.keys(event).filter((key) => !EVENT_KEYS.has(key));
    if (added.length === 0) continue;
    verdict.fail(
      'export-file',
      'EXPORT_INVALID',
      {
        stream: String(event['stream']),
        revision: String(event['revision']),
        type: String(event['type']),
      },
      `the event carries field(s) an exported event does not have, which verify ignores: ${added.join(', ')}`,
      { expected: [...EVENT_KEYS], found: added },
    );
  }
  verdict.pass('export-file');
}

/**
 * Verifies an export offline: the whole shoe replay, from the file alone, and the file's own
 * shape (its instructions, nothing added).
 */
export function verifyExport(input: unknown, options: ReplayOptions = {}): ShoeReplay {
  const value = readJson(input);
  const replay = replayShoe(parseShoeExport(value), options);
  const file = new VerdictBuilder();
  checkExportFile(value, file);
  const [check] = file.verdict(['export-file']).checks;
  const findings = [...file.findings, ...replay.verdict.findings];
  return {
    ...replay,
    verdict: {
      ...replay.verdict,
      ok: replay.verdict.ok && file.findings.length === 0,
      checks: [...replay.verdict.checks, check!],
      findings,
    },
  };
}
