import {
  NEEDS_PUBLISHED_VALUES,
  type CheckpointVerification,
  type PublishedCheckpoint,
  type RoundAudit,
  type ShoeReplay,
  type Verdict,
  type WalletAudit,
} from '@croupier/audit';
import { formatMoney } from '@croupier/contracts';
import { textTable } from '../format.js';

/** How audit reports read on a terminal. */

/** Minor units as a person reads them in the currency (20.00 EUR); bare where none is known. */
const moneyIn =
  (currency: string | null) =>
  (amount: number): string =>
    currency === null ? String(amount) : formatMoney(amount, currency);

const MARK = { pass: '✓', fail: '✗', skip: '-' } as const;

/** One finding: check, code, the event at fault, what was wrong, expected and found. */
function findingText(f: Verdict['findings'][number]): string {
  const where =
    f.stream === null ? '' : ` ${f.stream}${f.revision === null ? '' : `@${f.revision}`}`;
  const values =
    f.expected !== null || f.found !== null
      ? `\n      expected ${f.expected ?? '(nothing)'}, found ${f.found ?? '(nothing)'}`
      : '';
  return `[${f.check}] ${f.code}${where}${f.eventType ? ` (${f.eventType})` : ''}: ${f.message}${values}`;
}

/** The verdict's first line: never "every check passed" while a check was skipped. */
export function verdictHeadline(verdict: Verdict): string {
  if (!verdict.ok) return `FAILED: ${verdict.findings.length} finding(s)`;
  const skipped = verdict.checks.filter((c) => c.status === 'skip');
  const unpublished = skipped.filter((c) => NEEDS_PUBLISHED_VALUES.has(c.check));
  if (unpublished.length > 0) {
    return `VERIFIED, except what only published values can show: ${unpublished
      .map((c) => `${c.check} (${c.detail ?? 'not given'})`)
      .join('; ')}`;
  }
  if (skipped.length > 0)
    return `VERIFIED: every check that applies passed (${skipped.length} did not apply, see below)`;
  return 'VERIFIED: every check passed';
}

export function verdictText(verdict: Verdict): string {
  const lines = [
    verdictHeadline(verdict),
    ...verdict.checks.map(
      (c) =>
        `  ${MARK[c.status]} ${c.check.padEnd(16)} ${c.title}${c.status === 'skip' && c.detail ? ` (skipped: ${c.detail})` : ''}`,
    ),
  ];
  const cause = verdict.cause === null ? undefined : verdict.findings[verdict.cause];
  if (cause !== undefined) {
    lines.push('', `Likely tampered: ${findingText(cause)}`);
    if (verdict.findings.length > 1)
      lines.push(
        '',
        `${verdict.findings.length - 1} other finding(s), most recomputed from it (fix or explain it first):`,
      );
  }
  for (const f of verdict.findings) if (f !== cause) lines.push(`  ✗ ${findingText(f)}`);
  if (verdict.notes.length > 0) lines.push('', 'Notes:', ...verdict.notes.map((n) => `  ${n}`));
  return `${lines.join('\n')}\n`;
}

export function roundText(audit: RoundAudit): string {
  // What a finding names is shown marked wherever it appears: the record is not taken as fact.
  const suspect = new Set(
    audit.verdict.findings.map((f) => `${f.stream ?? ''}@${f.revision ?? ''}`),
  );
  const roundStream = `round-${audit.roundId}`;
  const money = moneyIn(audit.currency);
  const mark = (stream: string, revision: string) =>
    suspect.has(`${stream}@${revision}`) ? ' ⚠' : '';
  const hand = (side: 'player' | 'banker') => {
    const cards = audit.cards
      .filter((c) => c.hand === side)
      .map((c) => `${c.card}@${c.shoePosition}${mark(roundStream, c.revision)}`)
      .join(' ');
    const total = audit.result?.[side].total;
    return `  ${side === 'player' ? 'Player' : 'Banker'}${total === undefined ? '' : ` ${total}`}: ${cards || '(no cards)'}`;
  };
  const result = audit.result === null ? audit.status : `${audit.result.winner} wins`;
  const parts = [
    `Round ${audit.roundId} (table ${audit.tableId ?? '?'}, shoe ${audit.shoeId ?? '?'}, ${audit.cardSource ?? '?'}): ${audit.result?.winner === 'tie' ? 'tie' : result}`,
    `  status ${audit.status}${audit.paused ? ' (paused)' : ''}, currency ${audit.currency ?? '?'}, paytable ${audit.paytableId ?? '?'}`,
    '',
    'Cards (card@shoe position):',
    hand('player'),
    hand('banker'),
    ...audit.thirdCards.map((d) => `  ${d.reason}`),
    ...audit.corrections.map(
      (c) =>
        `  corrected position ${c.shoePosition}: ${c.previous} -> ${c.card} by ${c.actor?.id ?? '?'} (${c.actor?.role ?? '?'}): ${c.reason}`,
    ),
    '',
    'Bets:',
    textTable(
      [
        'bet',
        'player',
        'type',
        'stake',
        'status',
        'result',
        'payout',
        'recomputed',
        'commission',
        'refund',
        'final',
        'final recomputed',
      ],
      audit.bets.map((b) => [
        b.betId.slice(0, 8),
        b.playerId,
        `${b.type}${b.bankerMode ? ` (${b.bankerMode})` : ''}`,
        money(b.amount),
        b.status,
        b.settlement?.result ?? '-',
        b.settlement === null ? '-' : money(b.settlement.payout),
        b.expected === null ? '-' : money(b.expected.payout),
        b.settlement === null ? '-' : money(b.settlement.commission),
        b.refund === null ? '-' : `${money(b.refund.amount)} (${b.refund.reason})`,
        // What a resettlement (void or corrected result after settlement) pays it in the end.
        b.final === null ? '-' : `${money(b.final.payout)} (${b.final.result})`,
        b.final === null ? '-' : `${money(b.final.expected.payout)} (${b.final.expected.result})`,
      ]),
    ).trimEnd(),
    '',
    'Wallet movements:',
    audit.wallet === null
      ? '  (not read)'
      : textTable(
          ['wallet', 'event', 'amount', 'detail', 'bet'],
          audit.wallet.map((m) => [
            `${m.stream}@${m.revision}`,
            m.type,
            money(m.amount),
            m.detail ?? '',
            m.betId.slice(0, 8),
          ]),
        ).trimEnd(),
    '',
    ...(suspect.size > 0 ? ['(⚠ marks what a finding names: shown as recorded, not as fact)'] : []),
    'Trail:',
    textTable(
      ['when', 'who', 'event', 'what'],
      audit.trail.map((t) => [
        t.occurredAt ?? t.recordedAt,
        t.actor === null ? '-' : `${t.actor.id} (${t.actor.role})`,
        `${t.stream}@${t.revision} ${t.type}`,
        `${mark(t.stream, t.revision) === '' ? '' : '⚠ SUSPECT (see findings): '}${t.what}`,
      ]),
    ).trimEnd(),
    '',
    verdictText(audit.verdict),
  ];
  return parts.join('\n');
}

export function shoeText(replay: ShoeReplay): string {
  const parts = [
    `Shoe ${replay.shoeId} (${replay.status}): ${replay.decks ?? '?'} deck(s), ${replay.cardSource ?? '?'}, ${replay.shufflePolicy ?? '?'}`,
    `  commitment ${replay.commitment ?? '-'}`,
    `  seed       ${replay.seed ?? '(sealed until the shoe closes)'}`,
    `  digest     ${replay.digest === null ? '-' : `${replay.digest.value} over ${replay.digest.streams} stream(s)`}`,
    replay.burn === null
      ? '  no burn'
      : `  burn: ${replay.burn.shown ?? '?'} shown, ${replay.burn.cards} card(s) burned`,
    replay.cutCard?.lastRoundNumber == null
      ? '  cut card: not out'
      : `  cut card: out before position ${replay.cutCard.position ?? '?'} in round ${replay.cutCard.roundNumber ?? '?'}; last round ${replay.cutCard.lastRoundNumber}`,
    `  ${replay.roundsDealt} round(s) dealt, ${replay.cardsUsed} card(s) used; replayed ${replay.events.shoe + replay.events.rounds + replay.events.wallet} event(s)`,
    '',
    textTable(
      ['round', 'status', 'Player', 'Banker', 'winner', 'bets', 'staked', 'paid out', 'verdict'],
      replay.rounds.map((r) => [
        r.roundId,
        r.status,
        r.player.join(' '),
        r.banker.join(' '),
        r.winner ?? '-',
        String(r.bets),
        moneyIn(r.currency)(r.staked),
        moneyIn(r.currency)(r.paidOut),
        r.ok ? 'ok' : `${r.findings} finding(s)`,
      ]),
    ).trimEnd(),
    '',
    verdictText(replay.verdict),
  ];
  return parts.join('\n');
}

export function walletText(audit: WalletAudit): string {
  const missing = audit.rounds.filter((r) => !r.exists);
  const parts = [
    `Wallet ${audit.playerId} (${audit.stream}): ${audit.movements.length} movement(s) over ${audit.rounds.length} round(s); balance ${audit.balanceText}, commission owed ${audit.commissionOwedText}`,
    ...(missing.length === 0
      ? []
      : [`  named but not in the event store: ${missing.map((r) => r.roundId).join(', ')}`]),
    '',
    'Movements (rev: what, effect on the balance, justified by):',
    textTable(
      ['rev', 'type', 'effect', 'round', 'bet', 'justified by', 'status'],
      audit.movements.map((m) => [
        m.revision,
        m.type,
        m.effectText,
        m.roundId ?? '-',
        m.betId === null ? '-' : m.betId.slice(0, 8),
        m.justifiedBy ?? '(nothing)',
        m.status === 'suspect' ? 'SUSPECT: see findings' : m.status,
      ]),
    ),
    '',
    verdictText(audit.verdict),
  ];
  return parts.join('\n');
}

export function publishedCheckpointText(checkpoint: PublishedCheckpoint): string {
  return [
    `Checkpoint ${checkpoint.sequence} at ${checkpoint.at}: covers the log up to position ${checkpoint.position}; ${checkpoint.count} stream head(s) moved since the previous`,
    `  head       ${checkpoint.head}`,
    `  previous   ${checkpoint.previous}`,
    `  signed by  key ${checkpoint.signer.keyId} (Ed25519 ${checkpoint.signer.publicKey})`,
    `  signature  ${checkpoint.signature}`,
    '',
    'Publish it whole (casino checkpoint --out FILE); keep the key id: casino verify --checkpoint FILE --key-id ID',
    '',
  ].join('\n');
}

export function checkpointText(report: CheckpointVerification): string {
  const { checkpoint } = report;
  return [
    `Store against checkpoint ${checkpoint.sequence} (${checkpoint.at}, key ${checkpoint.signer.keyId}): ${report.streamsChecked} stream head(s) checked, up to position ${checkpoint.position}`,
    '',
    verdictText(report.verdict),
  ].join('\n');
}
