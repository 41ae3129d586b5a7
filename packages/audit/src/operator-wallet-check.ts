import { operatorWalletEventSchema, roundEventSchema, streams } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import type { VerdictBuilder } from './verdict.js';

/** The seamless integration's records that name a round (what Croupier asked, what was answered). */
export function isOperatorWalletEventOf(event: RecordedEvent, roundId: string): boolean {
  if (!event.stream.startsWith(streams.operatorWallet(''))) return false;
  return (event.data as { roundId?: unknown } | null)?.roundId === roundId;
}

interface Located {
  readonly event: RecordedEvent;
}

const at = (event: RecordedEvent) => ({
  stream: event.stream,
  revision: event.revision,
  type: event.type,
});
const keyOf = (playerId: string, betId: string) => `${playerId}/${betId}`;

/**
 * Seamless mode's `debits` check (ADR 0026): every stake of the round against what Croupier
 * asked the operator's wallet and what it answered. A bet stands only on a debit the wallet
 * confirmed before it was placed; every settlement line is requested as a credit of its payout,
 * every refund as a rollback of the debit, every resettlement line that moves money as a credit
 * of its difference, each once; every confirmed debit is closed by one credit or one rollback,
 * and a standing bet's stake never by a rollback its round did not refund.
 */
export function checkOperatorStakes(
  roundId: string,
  round: readonly RecordedEvent[],
  operator: readonly RecordedEvent[],
  verdict: VerdictBuilder,
  /** Only this player's stakes (a wallet audit); default every player's (a round audit). */
  options: { readonly player?: string } = {},
): void {
  const mine = (playerId: string) => options.player === undefined || playerId === options.player;
  const bets = new Map<string, Located & { amount: number }>();
  const released = new Set<string>();
  const lines = new Map<string, Located & { payout: number; settlementId: string }>();
  const refunds = new Map<string, Located & { amount: number }>();
  const adjustments: (Located & { key: string; delta: number; resettlementId: string })[] = [];
  let finished = false;
  for (const event of round) {
    const parsed = roundEventSchema.safeParse({ type: event.type, data: event.data });
    if (!parsed.success) continue; // named by event-schema
    const record = parsed.data;
    if (record.type === 'BetPlaced' && mine(record.data.playerId))
      bets.set(keyOf(record.data.playerId, record.data.betId), {
        event,
        amount: record.data.amount,
      });
    if (record.type === 'StakeReleased' && mine(record.data.playerId))
      released.add(keyOf(record.data.playerId, record.data.betId));
    if (record.type === 'RoundSettled') {
      finished = true;
      for (const line of record.data.lines.filter((l) => mine(l.playerId)))
        lines.set(keyOf(line.playerId, line.betId), {
          event,
          payout: line.payout,
          settlementId: record.data.settlementId,
        });
    }
    if (record.type === 'BetsRefunded') {
      if (record.data.reason === 'voided') finished = true;
      for (const line of record.data.lines.filter((l) => mine(l.playerId)))
        refunds.set(keyOf(line.playerId, line.betId), { event, amount: line.amount });
    }
    if (record.type === 'RoundResettled')
      for (const line of record.data.adjustments)
        if (line.delta !== 0 && mine(line.playerId))
          adjustments.push({
            event,
            key: keyOf(line.playerId, line.betId),
            delta: line.delta,
            resettlementId: record.data.resettlementId,
          });
  }

  const confirmed = new Map<string, Located & { amount: number; key: string }>();
  const credits = new Map<
    string,
    (Located & { amount: number; kind: string; settlementId: string })[]
  >();
  const rollbacks = new Map<string, (Located & { reason: string; debitKey: string })[]>();
  for (const event of operator) {
    const parsed = operatorWalletEventSchema.safeParse({ type: event.type, data: event.data });
    if (!parsed.success) {
      verdict.fail(
        'event-schema',
        'SCHEMA_INVALID',
        at(event),
        `${event.type} does not match its schema`,
      );
      continue;
    }
    const record = parsed.data;
    if (!('roundId' in record.data) || record.data.roundId !== roundId) continue;
    if (!mine(record.data.playerId)) continue;
    const key = keyOf(record.data.playerId, record.data.betId);
    if (record.type === 'OperatorDebitConfirmed')
      confirmed.set(key, { event, amount: record.data.amount, key: record.data.key });
    if (record.type === 'OperatorCreditRequested')
      credits.set(key, [
        ...(credits.get(key) ?? []),
        {
          event,
          amount: record.data.amount,
          kind: record.data.kind,
          settlementId: record.data.settlementId,
        },
      ]);
    if (record.type === 'OperatorRollbackRequested')
      rollbacks.set(key, [
        ...(rollbacks.get(key) ?? []),
        { event, reason: record.data.reason, debitKey: record.data.debitKey },
      ]);
  }
  const rollbacksOfConfirmed = (key: string) =>
    (rollbacks.get(key) ?? []).filter((r) => r.debitKey === confirmed.get(key)?.key);

  for (const [key, bet] of bets) {
    const debit = confirmed.get(key);
    if (debit === undefined || debit.amount !== bet.amount)
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        at(bet.event),
        `bet ${key} was accepted without a debit of its stake confirmed by the operator's wallet`,
        { expected: `OperatorDebitConfirmed of ${bet.amount}`, found: debit?.amount ?? null },
      );
    else if (debit.event.position > bet.event.position)
      verdict.fail(
        'debits',
        'POSITION_INVALID',
        at(bet.event),
        `bet ${key} was placed before the operator's wallet confirmed its debit`,
      );
  }
  for (const [key, line] of lines) {
    const paid = (credits.get(key) ?? []).filter((c) => c.kind === 'settlement');
    if (paid.length === 0)
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        at(line.event),
        `settlement line ${key} pays ${verdict.money(line.payout)} but no credit was requested of the operator's wallet`,
      );
    else if (paid.length > 1)
      verdict.fail(
        'debits',
        'DEBIT_CLOSED_TWICE',
        at(paid[1]!.event),
        `bet ${key} was credited twice`,
      );
    else if (paid[0]!.amount !== line.payout || paid[0]!.settlementId !== line.settlementId)
      verdict.fail(
        'debits',
        'CREDIT_MISMATCH',
        at(paid[0]!.event),
        `the credit of bet ${key} is not its settlement line's payout`,
        {
          expected: line.payout,
          found: paid[0]!.amount,
        },
      );
  }
  for (const [key, refund] of refunds) {
    const given = rollbacksOfConfirmed(key);
    if (given.length === 0)
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        at(refund.event),
        `refund of ${key} has no rollback requested of the operator's wallet`,
      );
  }
  for (const adjustment of adjustments) {
    const paid = (credits.get(adjustment.key) ?? []).filter(
      (c) => c.kind === 'adjustment' && c.settlementId === adjustment.resettlementId,
    );
    if (paid.length === 0)
      verdict.fail(
        'debits',
        'ADJUSTMENT_MISSING',
        at(adjustment.event),
        `resettlement of ${adjustment.key} moves ${verdict.money.signed(adjustment.delta)} but no credit was requested`,
      );
    else if (paid.length > 1 || paid[0]!.amount !== adjustment.delta)
      verdict.fail(
        'debits',
        'ADJUSTMENT_MISMATCH',
        at(paid[0]!.event),
        `resettlement of ${adjustment.key} was requested as ${paid.map((p) => verdict.money.signed(p.amount)).join(', ')}`,
        {
          expected: adjustment.delta,
          found: paid.map((p) => p.amount).join(', '),
        },
      );
  }
  for (const [key, list] of credits) {
    for (const credit of list) {
      const justified =
        credit.kind === 'settlement'
          ? lines.has(key)
          : adjustments.some((a) => a.key === key && a.resettlementId === credit.settlementId);
      if (!justified)
        verdict.fail(
          'debits',
          credit.kind === 'settlement' ? 'DEBIT_UNMATCHED' : 'ADJUSTMENT_UNMATCHED',
          at(credit.event),
          `credit of ${key} requested with no line of the round to pay`,
        );
    }
  }
  for (const [key, debit] of confirmed) {
    const closings =
      (credits.get(key) ?? []).filter((c) => c.kind === 'settlement').length +
      rollbacksOfConfirmed(key).length;
    if (closings > 1)
      verdict.fail(
        'debits',
        'DEBIT_CLOSED_TWICE',
        at(debit.event),
        `the stake of ${key} was closed by ${closings} credits and rollbacks`,
      );
    const standing = bets.has(key) && !refunds.has(key);
    if (standing && rollbacksOfConfirmed(key).length > 0)
      verdict.fail(
        'debits',
        'CREDIT_MISMATCH',
        at(rollbacksOfConfirmed(key)[0]!.event),
        `the stake of standing bet ${key} was rolled back, which only its round's refund may do`,
      );
    if (!bets.has(key) && rollbacksOfConfirmed(key).length === 0 && (finished || released.has(key)))
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        at(debit.event),
        `the stake of ${key} was debited for no bet of the round and never rolled back`,
      );
    if (finished && bets.has(key) && closings === 0)
      verdict.fail(
        'debits',
        'DEBIT_UNMATCHED',
        at(debit.event),
        `the stake of ${key} is neither credited nor rolled back though its round is over`,
      );
  }
  verdict.pass('debits', "seamless mode: every stake against the operator wallet's records");
}
