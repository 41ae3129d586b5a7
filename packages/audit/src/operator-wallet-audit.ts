import {
  operatorWalletEventSchema,
  parseRoundId,
  streams,
  type OperatorWalletEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { verifyStreamChain } from './chain.js';
import { checkAnchor, type AnchorEvidence } from './checkpoint.js';
import { checkOperatorStakes } from './operator-wallet-check.js';
import { locationOf, parseStream, provenanceOf } from './parse.js';
import { auditRound } from './round-audit.js';
import { VerdictBuilder, type Finding } from './verdict.js';
import { roundCurrencyOf } from './money-text.js';
import {
  WALLET_CHECKS,
  withMoneyText,
  type WalletAudit,
  type WalletMovementAudit,
} from './wallet-audit.js';

/** The events a seamless wallet audit reads. */
export interface OperatorWalletEvidence {
  readonly playerId: string;
  /** The whole `operator-wallet-{playerId}` stream: every call asked and answered, from its first. */
  readonly records: readonly RecordedEvent[];
  /** The round streams the records name, by round id; a round not in the store has no events. */
  readonly rounds: ReadonlyMap<string, readonly RecordedEvent[]>;
  /** The shoe streams of those rounds, by shoe id: a round that does not verify justifies nothing. */
  readonly shoes?: ReadonlyMap<string, readonly RecordedEvent[]>;
  /** A published checkpoint to check the streams against (ADR 0024). */
  readonly anchor?: AnchorEvidence | null;
}

const label = (recorded: RecordedEvent): string =>
  `${recorded.stream}@${recorded.revision} ${recorded.type}`;

const roundOf = (event: OperatorWalletEvent): string | null =>
  'roundId' in event.data ? event.data.roundId : null;

/**
 * Audits one player's money in seamless mode (ADR 0026), where the operator's wallet holds the
 * balance and Croupier's records are the calls it made: every record from the first, each stake
 * of each round it names checked against that round (the round audit's `debits` check, on this
 * player's bets: a bet on a confirmed debit, every line credited, every refund rolled back, each
 * once, none left open), each round itself verified against its shoe, every answer recorded for
 * a call that was asked first, and nothing recorded for a round before it was opened. `balance`
 * is the change the records imply at the operator's wallet (debits confirmed out, credits and
 * rollbacks of confirmed debits in): what a reconciliation with the operator compares.
 */
export function auditOperatorWallet(evidence: OperatorWalletEvidence): WalletAudit {
  const { playerId } = evidence;
  const stream = streams.operatorWallet(playerId);
  const verdict = new VerdictBuilder();

  verifyStreamChain(stream, evidence.records, verdict);
  for (const [roundId, events] of evidence.rounds)
    if (events.length > 0) verifyStreamChain(streams.round(roundId), events, verdict);
  verdict.pass('hash-chain');
  const parsed = parseStream(evidence.records, operatorWalletEventSchema, verdict);
  verdict.pass('event-schema');

  const justifiedBy = new Map<string, string>();
  // Answers and deliveries: each stands on the call asked before it, under its key.
  const asked = new Map<string, RecordedEvent>();
  const confirmedKeys = new Set<string>();
  for (const { recorded, event } of parsed) {
    switch (event.type) {
      case 'OperatorDebitRequested':
      case 'OperatorCreditRequested':
        asked.set(event.data.key, recorded);
        break;
      case 'OperatorRollbackRequested': {
        const debit = asked.get(event.data.debitKey);
        if (debit === undefined)
          verdict.fail(
            'justified',
            'MOVEMENT_UNJUSTIFIED',
            locationOf(recorded),
            `a rollback of debit ${event.data.debitKey}, which this player's records never asked for`,
            { expected: 'an OperatorDebitRequested under the key first', found: null },
          );
        else justifiedBy.set(recorded.id, label(debit));
        asked.set(event.data.key, recorded);
        break;
      }
      case 'OperatorDebitConfirmed':
      case 'OperatorDebitFailed':
      case 'OperatorCallDelivered': {
        const call = asked.get(event.data.key);
        if (call === undefined)
          verdict.fail(
            'justified',
            'MOVEMENT_UNJUSTIFIED',
            locationOf(recorded),
            `${event.type} answers call ${event.data.key}, which this player's records never asked`,
            { expected: 'the call recorded as asked first', found: null },
          );
        else justifiedBy.set(recorded.id, label(call));
        if (event.type === 'OperatorDebitConfirmed') confirmedKeys.add(event.data.key);
        break;
      }
    }
  }

  // Every stake of every round named, against that round, on this player's bets only.
  const byRound = new Map<string, RecordedEvent[]>();
  for (const { recorded, event } of parsed) {
    const roundId = roundOf(event);
    if (roundId === null) continue;
    byRound.set(roundId, [...(byRound.get(roundId) ?? []), recorded]);
  }
  const rounds: WalletAudit['rounds'] = [];
  const suspectRounds = new Set<string>();
  for (const [roundId, records] of byRound) {
    const events = evidence.rounds.get(roundId) ?? [];
    rounds.push({ roundId, exists: events.length > 0, movements: records.length });
    if (events.length === 0) {
      for (const record of records)
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(record),
          `${record.type} names round ${roundId}, which is not in the event store: no round was played that could justify it`,
          { expected: `the events of ${streams.round(roundId)}`, found: null },
        );
      continue;
    }
    checkOperatorStakes(roundId, events, records, verdict.inCurrency(roundCurrencyOf(events)), {
      player: playerId,
    });
    const own = auditRound({ roundId, round: events, shoe: shoeOf(evidence, roundId) });
    if (!own.verdict.ok) {
      suspectRounds.add(roundId);
      const first: Finding = own.verdict.findings[own.verdict.cause ?? 0]!;
      for (const record of records)
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(record),
          `${record.type} stands on round ${roundId}, which does not verify (${own.verdict.findings.length} finding(s), first ${first.check}/${first.code}): audit the round`,
          { expected: `round ${roundId} verified`, found: `${first.check}/${first.code}` },
        );
    }
    const opened = events[0]!;
    for (const record of records) {
      if (record.position < opened.position)
        verdict.fail(
          'justified',
          'POSITION_INVALID',
          locationOf(record),
          `${record.type} for round ${roundId} comes before the round was opened (${label(opened)}): one of them was moved in the log or inserted after the fact`,
          { expected: `a position after ${opened.position}`, found: String(record.position) },
        );
      // The round's own record where there is one (a rollback stands on its refund rather
      // than on the debit it gives back).
      const why = justificationOf(record, events);
      if (why !== null) justifiedBy.set(record.id, label(why));
    }
  }
  verdict.pass('debits', "seamless mode: every stake against the operator wallet's records");
  verdict.pass('justified');
  checkAnchor(
    evidence.anchor,
    new Map([
      [stream, evidence.records],
      ...[...evidence.rounds].map(
        ([roundId, events]) =>
          [streams.round(roundId), events] as [string, readonly RecordedEvent[]],
      ),
    ]),
    verdict,
  );

  const result = verdict.verdict(WALLET_CHECKS);
  const suspect = new Set(result.findings.map((f) => `${f.stream ?? ''}@${f.revision ?? ''}`));
  const closed = new Set<string>();
  for (const { event } of parsed) {
    if (event.type === 'OperatorRollbackRequested') closed.add(event.data.debitKey);
    if (event.type === 'OperatorCreditRequested' && event.data.kind === 'settlement')
      closed.add(`${event.data.roundId}/${event.data.betId}`);
  }
  let balance = 0;
  const movements = parsed.map(({ recorded, event }): Omit<WalletMovementAudit, 'effectText'> => {
    const effect = effectOf(event, confirmedKeys);
    balance += effect;
    const key = `${recorded.stream}@${recorded.revision}`;
    const roundId = roundOf(event);
    const open =
      event.type === 'OperatorDebitConfirmed' &&
      !closed.has(event.data.key) &&
      !closed.has(`${event.data.roundId}/${event.data.betId}`);
    const { actor, occurredAt } = provenanceOf(recorded);
    return {
      revision: String(recorded.revision),
      position: String(recorded.position),
      type: recorded.type,
      effect,
      roundId,
      betId: 'betId' in event.data ? event.data.betId : null,
      justifiedBy: justifiedBy.get(recorded.id) ?? null,
      status:
        suspect.has(key) || (roundId !== null && suspectRounds.has(roundId))
          ? 'suspect'
          : open
            ? 'open'
            : 'justified',
      occurredAt,
      actor,
    };
  });
  return withMoneyText(
    {
      playerId,
      stream,
      mode: 'seamless',
      money: 'real',
      balance,
      commissionOwed: 0,
      movements,
      rounds,
      verdict: result,
    },
    evidence.records,
  );
}

/**
 * What a record did to the player's money at the operator's wallet, as Croupier's records tell:
 * a confirmed debit takes the stake, a credit pays its amount, a rollback of a confirmed debit
 * gives the stake back; requests of debits and a rollback of a debit never confirmed move
 * nothing (the wallet refuses the debit if it comes late).
 */
function effectOf(event: OperatorWalletEvent, confirmedKeys: ReadonlySet<string>): number {
  switch (event.type) {
    case 'OperatorDebitConfirmed':
      return -event.data.amount;
    case 'OperatorCreditRequested':
      return event.data.amount;
    case 'OperatorRollbackRequested':
      return confirmedKeys.has(event.data.debitKey) ? event.data.amount : 0;
    default:
      return 0;
  }
}

/** The round event a request stands on: its bet or release, settlement, refund or resettlement. */
function justificationOf(
  record: RecordedEvent,
  round: readonly RecordedEvent[],
): RecordedEvent | null {
  const data = record.data as { betId?: string; kind?: string; settlementId?: string };
  const namesBet = (event: RecordedEvent): boolean => {
    const of = event.data as { betId?: unknown; lines?: unknown; adjustments?: unknown };
    if (of.betId === data.betId) return true;
    return [of.lines, of.adjustments].some(
      (list) =>
        Array.isArray(list) && list.some((line: { betId?: unknown }) => line.betId === data.betId),
    );
  };
  switch (record.type) {
    case 'OperatorDebitRequested':
      return round[0] ?? null;
    case 'OperatorCreditRequested':
      return (
        round.find(
          (e) =>
            (e.type === 'RoundSettled' || e.type === 'RoundResettled') &&
            ((e.data as { settlementId?: unknown }).settlementId === data.settlementId ||
              (e.data as { resettlementId?: unknown }).resettlementId === data.settlementId) &&
            namesBet(e),
        ) ?? null
      );
    case 'OperatorRollbackRequested':
      return (
        round.find(
          (e) => (e.type === 'BetsRefunded' || e.type === 'StakeReleased') && namesBet(e),
        ) ?? null
      );
    default:
      return null;
  }
}

function shoeOf(
  evidence: OperatorWalletEvidence,
  roundId: string,
): readonly RecordedEvent[] | null {
  try {
    return evidence.shoes?.get(parseRoundId(roundId).shoeId) ?? null;
  } catch {
    return null;
  }
}
