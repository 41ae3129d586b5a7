import {
  commissionDebtKey,
  dealerChanged,
  foldCommissionDebt,
  parseRoundId,
  PLAY_MONEY_CURRENCY,
  shiftEndIdOf,
  streams,
  tableClosed,
  walletEventSchema,
  type WalletEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { z } from 'zod';
import { verifyStreamChain } from './chain.js';
import { checkAnchor, type AnchorEvidence } from './checkpoint.js';
import { locationOf, parseStream, provenanceOf } from './parse.js';
import { examineRound } from './round-examination.js';
import { auditRound } from './round-audit.js';
import { VerdictBuilder, verdictSchema, type CheckId, type Finding } from './verdict.js';
import { moneyIn, roundCurrencyOf } from './money-text.js';
import { currencyNamedBy } from './describe.js';
import { WalletBalances } from './wallet-balances.js';
import { walletEventsByRound } from './wallet-evidence.js';

/** The events a wallet audit reads. */
export interface WalletEvidence {
  readonly playerId: string;
  /**
   * Which of the player's wallets: `real` (`wallet-{playerId}`, the default) or `fun`, play money
   * (`fun-wallet-{playerId}`, ADR 0030).
   */
  readonly money?: 'real' | 'fun';
  /** The whole wallet stream, as stored: every movement, from its first. */
  readonly wallet: readonly RecordedEvent[];
  /**
   * The round streams the wallet's movements name, by round id; a round that is not in the store
   * is listed with no events, so its movements are named as unjustified.
   */
  readonly rounds: ReadonlyMap<string, readonly RecordedEvent[]>;
  /** The table streams its commission collections name (their DealerChanged or TableClosed), by table id. */
  readonly tables: ReadonlyMap<string, readonly RecordedEvent[]>;
  /**
   * The shoe streams of those rounds, by shoe id: each round that justifies a movement is audited
   * against its shoe, so a round made up in the store cannot justify a payout.
   */
  readonly shoes?: ReadonlyMap<string, readonly RecordedEvent[]>;
  /** When the audit is made: a debit its finished round never took is judged after a grace. */
  readonly asOf?: Date;
  /** A published checkpoint to check the wallet and round streams against (ADR 0024). */
  readonly anchor?: AnchorEvidence | null;
}

export const WALLET_CHECKS: readonly CheckId[] = [
  'hash-chain',
  'event-schema',
  'justified',
  'debits',
  'anchored',
];

const movementStatusSchema = z.enum(['justified', 'open', 'suspect']);

export const walletMovementAuditSchema = z.object({
  revision: z.string(),
  position: z.string(),
  type: z.string(),
  /** What the movement did to the balance, in minor units (negative takes money out). */
  effect: z.number().int(),
  /** `effect` as a person reads it, in the wallet's currency: "+20,000.00 EUR". */
  effectText: z.string(),
  roundId: z.string().nullable(),
  betId: z.string().nullable(),
  /** The record that justifies it (`stream@revision Type`), or why there is none. */
  justifiedBy: z.string().nullable(),
  /**
   * `justified`; `open` (a stake not yet paid or refunded, its round not finished); `suspect`
   * (a finding names it: see the verdict).
   */
  status: movementStatusSchema,
  occurredAt: z.string().nullable(),
  actor: z.object({ id: z.string(), role: z.string() }).nullable(),
});
export type WalletMovementAudit = z.infer<typeof walletMovementAuditSchema>;

export const walletAuditSchema = z.object({
  playerId: z.string(),
  /**
   * `wallet-{playerId}` (transfer mode), `fun-wallet-{playerId}` (play money) or
   * `operator-wallet-{playerId}` (seamless mode).
   */
  stream: z.string(),
  /** `real` money, or `fun`: play money (currency FUN), which is never real money (ADR 0030). */
  money: z.enum(['real', 'fun']),
  /**
   * `transfer`: Croupier's wallet holds the balance, audited movement by movement. `seamless`:
   * the operator's wallet does; the records audited are the calls Croupier made to it.
   */
  mode: z.enum(['transfer', 'seamless']),
  /**
   * The balance the stream's movements add up to (seamless: the change the calls imply at the
   * operator's wallet), and the commission still owed.
   */
  balance: z.number().int(),
  commissionOwed: z.number().int(),
  /** The currency of the wallet's money, as its movements name it; null before any names one. */
  currency: z.string().nullable(),
  /** `balance` and `commissionOwed` as a person reads them: "975.00 EUR". */
  balanceText: z.string(),
  commissionOwedText: z.string(),
  movements: z.array(walletMovementAuditSchema),
  /** The rounds the wallet's movements name, and whether each is in the event store. */
  rounds: z.array(
    z.object({ roundId: z.string(), exists: z.boolean(), movements: z.number().int() }),
  ),
  verdict: verdictSchema,
});
export type WalletAudit = z.infer<typeof walletAuditSchema>;

/**
 * A wallet audit with its amounts also written for a person, in the currency its records name
 * (the integers stay as they are, for machines): the first record naming one, or play money's.
 */
export function withMoneyText(
  audit: Omit<WalletAudit, 'currency' | 'balanceText' | 'commissionOwedText' | 'movements'> & {
    movements: Omit<WalletMovementAudit, 'effectText'>[];
  },
  records: readonly RecordedEvent[],
): WalletAudit {
  const currency =
    audit.money === 'fun'
      ? PLAY_MONEY_CURRENCY
      : (records.map(currencyNamedBy).find((named) => named !== null) ?? null);
  const money = moneyIn(currency);
  return {
    ...audit,
    currency,
    balanceText: money(audit.balance),
    commissionOwedText: money(audit.commissionOwed),
    movements: audit.movements.map((movement) => ({
      ...movement,
      effectText: money.signed(movement.effect),
    })),
  };
}

/** Who may move money in and out of a wallet by hand: the operator's deposit and withdrawal. */
const CASHIER_ROLES: ReadonlySet<string> = new Set(['operator']);

const fieldOf = (event: WalletEvent, name: 'roundId' | 'betId'): string | null => {
  const value = (event.data as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
};

/** What a movement does to the balance, as the wallet's own fold adds it up. */
function effectOf(event: WalletEvent): number {
  switch (event.type) {
    case 'FundsDeposited':
    case 'PlayMoneyGranted':
    case 'PayoutCredited':
    case 'StakeRefunded':
      return event.data.amount;
    case 'FundsWithdrawn':
    case 'StakeDebited':
    case 'CommissionCollected':
      return -event.data.amount;
    case 'PayoutAdjusted':
      return event.data.delta;
    case 'CommissionAccrued':
      return 0;
  }
}

/**
 * How long after its round finished a debit the round never took (no bet, no release) may still
 * wait for the orphaned-debit sweep, which refunds it seconds after betting closes: past this,
 * it is a debit the game never took.
 */
export const UNTAKEN_DEBIT_GRACE_MS = 10 * 60_000;

/** The shoe stream of a round, when the evidence holds it. */
function shoeOf(evidence: WalletEvidence, roundId: string): readonly RecordedEvent[] | null {
  try {
    return evidence.shoes?.get(parseRoundId(roundId).shoeId) ?? null;
  } catch {
    return null;
  }
}

/** When the round finished (settled, or refunded as voided), from the hashed occurred-at. */
function finishOf(status: string, events: readonly RecordedEvent[]): Date | null {
  if (status !== 'completed' && status !== 'voided') return null;
  const last = events.findLast((e) => e.type === 'RoundSettled' || e.type === 'BetsRefunded');
  const at = last === undefined ? null : provenanceOf(last).occurredAt;
  return at === null ? null : new Date(at);
}

/** Whether a debit is closed by a payout or refund among the round's movements. */
function closedIn(movements: readonly RecordedEvent[], debit: RecordedEvent): boolean {
  const betId = (debit.data as { betId?: unknown }).betId;
  return movements.some(
    (m) =>
      (m.type === 'PayoutCredited' || m.type === 'StakeRefunded') &&
      (m.data as { betId?: unknown }).betId === betId,
  );
}

const label = (recorded: RecordedEvent): string =>
  `${recorded.stream}@${recorded.revision} ${recorded.type}`;

/**
 * Audits one player's wallet from its first event: every money movement must be justified by the
 * game's own record — a debit by its round (open when it was taken) and its bet or release, a
 * payout, refund or adjustment by an existing round's settlement, void or resettlement, accrued
 * commission by its settlement line, a commission collection by the dealer change that ended the
 * shift and what was owed then, a deposit or withdrawal by an operator — and must come after
 * what justifies it in the global log (`POSITION_INVALID`). Unlike a round audit, nothing outside
 * the audited rounds can hide here: a payout placed before its round, or naming a round that was
 * never played, is named.
 */
export function auditWallet(evidence: WalletEvidence): WalletAudit {
  const { playerId } = evidence;
  const money = evidence.money ?? 'real';
  const stream = money === 'fun' ? streams.funWallet(playerId) : streams.wallet(playerId);
  const verdict = new VerdictBuilder();

  verifyStreamChain(stream, evidence.wallet, verdict);
  for (const [roundId, events] of evidence.rounds)
    if (events.length > 0) verifyStreamChain(streams.round(roundId), events, verdict);
  verdict.pass('hash-chain');

  const parsed = parseStream(evidence.wallet, walletEventSchema, verdict);
  verdict.pass('event-schema');
  const justifiedBy = new Map<string, string>();
  const open = new Set<string>();

  // Movements of rounds: each round's money check, on this player's bets only.
  const byRound = walletEventsByRound(parsed.map((p) => p.recorded));
  const rounds: WalletAudit['rounds'] = [];
  for (const [roundId, movements] of byRound) {
    const events = evidence.rounds.get(roundId) ?? [];
    rounds.push({ roundId, exists: events.length > 0, movements: movements.length });
    if (events.length === 0) {
      for (const movement of movements) {
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(movement),
          `${movement.type} names round ${roundId}, which is not in the event store: no round was played that could justify it`,
          { expected: `the events of ${streams.round(roundId)}`, found: null },
        );
      }
      continue;
    }
    const scratch = new VerdictBuilder().inCurrency(roundCurrencyOf(events));
    const examined = examineRound(roundId, events, movements, scratch, { player: playerId });
    for (const finding of scratch.findings.filter((f) => f.stream === stream))
      pushFinding(verdict, finding);
    // The round itself, audited against its shoe: a round that does not verify justifies nothing.
    const own = auditRound({ roundId, round: events, shoe: shoeOf(evidence, roundId) });
    if (!own.verdict.ok) {
      const first = own.verdict.findings[own.verdict.cause ?? 0]!;
      for (const movement of movements) {
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(movement),
          `${movement.type} stands on round ${roundId}, which does not verify (${own.verdict.findings.length} finding(s), first ${first.check}/${first.code} at ${first.stream ?? '?'}@${first.revision ?? '?'}): audit the round`,
          { expected: `round ${roundId} verified`, found: `${first.check}/${first.code}` },
        );
      }
    }
    const opened = events[0]!;
    const settled = events.find((e) => e.type === 'RoundSettled') ?? null;
    const finishedAt = finishOf(examined.status, events);
    for (const movement of movements) {
      const why = justificationOf(movement, events, settled);
      if (why !== null) justifiedBy.set(movement.id, label(why));
      else if (movement.type === 'StakeRefunded') {
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(movement),
          `the stake is refunded for round ${roundId}, which records no refund or release of bet ${String((movement.data as { betId?: unknown }).betId)}`,
          { expected: 'a BetsRefunded line or a StakeReleased first', found: null },
        );
      } else if (
        movement.type === 'StakeDebited' &&
        finishedAt !== null &&
        !closedIn(movements, movement) &&
        (evidence.asOf?.getTime() ?? Number.POSITIVE_INFINITY) - finishedAt.getTime() >
          UNTAKEN_DEBIT_GRACE_MS
      ) {
        verdict.fail(
          'justified',
          'MOVEMENT_UNJUSTIFIED',
          locationOf(movement),
          `the stake is debited for round ${roundId}, which finished at ${finishedAt.toISOString()} without its bet, a release or a refund: a debit the game never took`,
          { expected: 'a BetPlaced or StakeReleased for the bet', found: null },
        );
      }
      if (movement.type === 'StakeDebited' && movement.position < opened.position) {
        verdict.fail(
          'justified',
          'POSITION_INVALID',
          locationOf(movement),
          `the stake is debited for round ${roundId} before the round was opened (${label(opened)}): one of them was moved in the log or inserted after the fact`,
          { expected: `a position after ${opened.position}`, found: String(movement.position) },
        );
      }
    }
    for (const movement of movements) {
      if (movement.type === 'StakeDebited' && !closedIn(movements, movement))
        open.add(`${movement.stream}@${movement.revision}`);
    }
  }
  verdict.pass('debits');
  const grouped = new Set([...byRound.values()].flat().map((e) => e.id));
  for (const { recorded, event } of parsed) {
    if (grouped.has(recorded.id) || fieldOf(event, 'betId') === null) continue;
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      locationOf(recorded),
      `${event.type} names bet ${fieldOf(event, 'betId')}, which this wallet never staked on any round`,
      { expected: 'a StakeDebited for the bet first', found: null },
    );
  }

  // Movements that no round justifies: cash in and out, and commission collected.
  const owed = new Map<string, number>();
  for (const { recorded, event } of parsed) {
    switch (event.type) {
      case 'FundsDeposited':
      case 'FundsWithdrawn':
        checkCashier(recorded, event, parsed, verdict, justifiedBy);
        break;
      case 'CommissionAccrued':
      case 'PayoutAdjusted':
        // The wallet's own fold, per table, shift and seat (002): commission owed never goes
        // below zero (what was collected too much is given back to the balance).
        foldCommissionDebt(owed, event);
        break;
      case 'CommissionCollected': {
        // What the seat owed for the shift (the whole shift, for a collection without a seat).
        const prefix = `${event.data.tableId}/${event.data.shiftId}/`;
        const due =
          event.data.seat === undefined
            ? [...owed].filter(([key]) => key.startsWith(prefix)).reduce((sum, [, a]) => sum + a, 0)
            : (owed.get(
                commissionDebtKey(event.data.tableId, event.data.shiftId, event.data.seat),
              ) ?? 0);
        foldCommissionDebt(owed, event);
        checkCollection(recorded, event, due, parsed, evidence.tables, verdict, justifiedBy);
        break;
      }
      default:
        break;
    }
  }
  checkMoneyKind(money, parsed, verdict, justifiedBy);
  verdict.pass('justified');
  checkAnchor(
    evidence.anchor,
    new Map([
      [stream, evidence.wallet],
      ...[...evidence.rounds].map(
        ([roundId, events]) =>
          [streams.round(roundId), events] as [string, readonly RecordedEvent[]],
      ),
    ]),
    verdict,
  );

  // Real money as the balances' read model folds it; play money (no commission) by its effects.
  const balances = new WalletBalances();
  for (const recorded of evidence.wallet) balances.apply(recorded);
  const balance =
    money === 'fun'
      ? { balance: parsed.reduce((sum, { event }) => sum + effectOf(event), 0), commissionOwed: 0 }
      : balances.get(playerId);
  const result = verdict.verdict(WALLET_CHECKS);
  const suspect = new Set(result.findings.map((f) => `${f.stream ?? ''}@${f.revision ?? ''}`));
  const movements = parsed.map(({ recorded, event }): Omit<WalletMovementAudit, 'effectText'> => {
    const key = `${recorded.stream}@${recorded.revision}`;
    const { actor, occurredAt } = provenanceOf(recorded);
    return {
      revision: String(recorded.revision),
      position: String(recorded.position),
      type: recorded.type,
      effect: effectOf(event),
      roundId: fieldOf(event, 'roundId'),
      betId: fieldOf(event, 'betId'),
      justifiedBy: justifiedBy.get(recorded.id) ?? null,
      status: suspect.has(key) ? 'suspect' : open.has(key) ? 'open' : 'justified',
      occurredAt,
      actor,
    };
  });
  return withMoneyText(
    {
      playerId,
      stream,
      mode: 'transfer',
      money,
      balance: balance?.balance ?? 0,
      commissionOwed: balance?.commissionOwed ?? 0,
      movements,
      rounds,
      verdict: result,
    },
    evidence.wallet,
  );
}

function pushFinding(verdict: VerdictBuilder, finding: Finding): void {
  verdict.fail(
    finding.check,
    finding.code,
    { stream: finding.stream ?? '', revision: finding.revision, type: finding.eventType },
    finding.message,
    { expected: finding.expected ?? undefined, found: finding.found ?? undefined },
  );
}

/**
 * Real money and play money never mix (ADR 0030). In a fun wallet, money enters by grants only,
 * each exactly what tops the balance up to its `topUpTo` (more would be play money made from
 * nothing), and every movement carries the play-money mark; nothing of the cashier or of
 * commission belongs there. A real wallet holds no grant and no movement marked as play money.
 */
export function checkMoneyKind(
  money: 'real' | 'fun',
  parsed: readonly { recorded: RecordedEvent; event: WalletEvent }[],
  verdict: VerdictBuilder,
  justifiedBy: Map<string, string>,
): void {
  let balance = 0;
  for (const { recorded, event } of parsed) {
    const marked =
      (event.data as { fun?: unknown }).fun === true ||
      (event.data as { currency?: unknown }).currency === PLAY_MONEY_CURRENCY;
    if (money === 'real' && (marked || event.type === 'PlayMoneyGranted'))
      verdict.fail(
        'justified',
        'WRONG_STREAM',
        locationOf(recorded),
        `${event.type} of play money in a real-money wallet: play money never mixes with real money`,
        { expected: 'a movement of real money', found: 'play money' },
      );
    if (money === 'fun') {
      if (
        event.type === 'FundsDeposited' ||
        event.type === 'FundsWithdrawn' ||
        event.type === 'CommissionAccrued' ||
        event.type === 'CommissionCollected'
      )
        verdict.fail(
          'justified',
          'WRONG_STREAM',
          locationOf(recorded),
          `${event.type} in a play-money wallet: play money is granted, never deposited, withdrawn or charged commission`,
          { expected: 'a grant, a stake or a game credit', found: event.type },
        );
      else if (!marked)
        verdict.fail(
          'justified',
          'WRONG_STREAM',
          locationOf(recorded),
          `${event.type} in a play-money wallet is not marked as play money: only play money moves here`,
          { expected: 'fun: true or currency FUN', found: 'real money' },
        );
      else if (event.type === 'PlayMoneyGranted') {
        const due = event.data.topUpTo - balance;
        if (event.data.amount !== due)
          verdict.fail(
            'justified',
            'MOVEMENT_UNJUSTIFIED',
            locationOf(recorded),
            `grant ${event.data.grant} gives ${event.data.amount} play money to a balance of ${balance}, topping it up to ${balance + event.data.amount} instead of ${event.data.topUpTo}`,
            { expected: String(Math.max(0, due)), found: String(event.data.amount) },
          );
        else justifiedBy.set(recorded.id, `top-up from ${balance} to ${event.data.topUpTo}`);
      }
    }
    balance += effectOf(event);
  }
}

/** The round event a movement stands on: its bet or release, settlement, refund or resettlement. */
function justificationOf(
  movement: RecordedEvent,
  round: readonly RecordedEvent[],
  settled: RecordedEvent | null,
): RecordedEvent | null {
  const { betId, resettlementId, reason } = movement.data as {
    betId?: string;
    resettlementId?: string;
    reason?: string;
  };
  const namesBet = (event: RecordedEvent): boolean => {
    const data = event.data as { betId?: unknown; betIds?: unknown; lines?: unknown };
    if (data.betId === betId) return true;
    if (Array.isArray(data.betIds) && data.betIds.includes(betId)) return true;
    return (
      Array.isArray(data.lines) &&
      data.lines.some((line: { betId?: unknown }) => line.betId === betId)
    );
  };
  switch (movement.type) {
    case 'StakeDebited':
      return (
        round.find((e) => (e.type === 'BetPlaced' || e.type === 'StakeReleased') && namesBet(e)) ??
        null
      );
    case 'PayoutCredited':
    case 'CommissionAccrued':
      return settled;
    case 'StakeRefunded':
      if (reason === 'bet-rejected' || reason === 'orphaned-debit')
        return round.find((e) => e.type === 'StakeReleased' && namesBet(e)) ?? null;
      return round.find((e) => e.type === 'BetsRefunded' && namesBet(e)) ?? null;
    case 'PayoutAdjusted':
      return (
        round.find(
          (e) =>
            e.type === 'RoundResettled' &&
            (e.data as { resettlementId?: unknown }).resettlementId === resettlementId,
        ) ?? null
      );
    default:
      return null;
  }
}

/**
 * A deposit or withdrawal is the operator's: recorded with an operator as its actor, under a
 * reference no other deposit (or withdrawal) of the wallet used.
 */
function checkCashier(
  recorded: RecordedEvent,
  event: Extract<WalletEvent, { type: 'FundsDeposited' | 'FundsWithdrawn' }>,
  all: readonly { recorded: RecordedEvent; event: WalletEvent }[],
  verdict: VerdictBuilder,
  justifiedBy: Map<string, string>,
): void {
  const { actor } = provenanceOf(recorded);
  const at = locationOf(recorded);
  if (actor === null || !CASHIER_ROLES.has(actor.role)) {
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      at,
      `${event.type} of ${event.data.amount} was recorded by ${actor === null ? 'no actor' : `${actor.id} (${actor.role})`}: only an operator moves money in or out of a wallet`,
      { expected: 'an operator', found: actor?.role ?? null },
    );
    return;
  }
  const first = all.find(
    (other) =>
      other.event.type === event.type && other.event.data.reference === event.data.reference,
  );
  if (first !== undefined && first.recorded.id !== recorded.id) {
    verdict.fail(
      'justified',
      'EVENT_DUPLICATED',
      at,
      `${event.type} reuses reference ${event.data.reference} (first at ${label(first.recorded)}): the wallet counts one operation per reference`,
      { expected: 'one movement per reference', found: 'two' },
    );
    return;
  }
  justifiedBy.set(recorded.id, `operator ${actor.id}, reference ${event.data.reference}`);
}

/**
 * Accrued commission is collected when its shift ends: at a dealer change, or at the table's
 * close, which ends its last shift (ADR 0008). The DealerChanged or TableClosed it names must be
 * in the table's stream and come before the collection; a dealer change must end another shift
 * than the collected one's successor; the amount must be what the wallet owed for that shift
 * then. A collection after the close for a bet settled late names that bet, whose
 * CommissionAccrued the wallet must hold before it.
 */
function checkCollection(
  recorded: RecordedEvent,
  event: Extract<WalletEvent, { type: 'CommissionCollected' }>,
  due: number,
  wallet: readonly { recorded: RecordedEvent; event: WalletEvent }[],
  tables: ReadonlyMap<string, readonly RecordedEvent[]>,
  verdict: VerdictBuilder,
  justifiedBy: Map<string, string>,
): void {
  const at = locationOf(recorded);
  const { tableId, shiftId, dealerChangeId, amount } = event.data;
  const endId = shiftEndIdOf(event.data);
  const endType = dealerChangeId === undefined ? 'TableClosed' : 'DealerChanged';
  const end = (tables.get(tableId) ?? []).find((e) => e.id === endId);
  const parsed =
    end === undefined
      ? null
      : endType === 'DealerChanged'
        ? dealerChanged.safeParse({ type: end.type, data: end.data })
        : tableClosed.safeParse({ type: end.type, data: end.data });
  if (end === undefined || parsed === null || !parsed.success) {
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      at,
      `CommissionCollected of ${amount} names ${endType === 'DealerChanged' ? 'dealer change' : 'table close'} ${endId}, which ${streams.table(tableId)} does not hold`,
      { expected: `a ${endType} ${endId}`, found: null },
    );
    return;
  }
  if (parsed.data.type === 'DealerChanged' && parsed.data.data.shiftId === shiftId) {
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      at,
      `CommissionCollected for shift ${shiftId}, which the dealer change it names (${label(end)}) starts rather than ends`,
      { expected: 'an earlier shift', found: shiftId },
    );
  }
  if (end.position > recorded.position) {
    verdict.fail(
      'justified',
      'POSITION_INVALID',
      at,
      `commission is collected before the ${endType === 'DealerChanged' ? 'dealer change' : 'table close'} that ended the shift (${label(end)}): one of them was moved in the log or inserted after the fact`,
      { expected: `a position after ${end.position}`, found: String(recorded.position) },
    );
  }
  const { accrued } = event.data;
  if (
    accrued !== undefined &&
    !wallet.some(
      (other) =>
        other.event.type === 'CommissionAccrued' &&
        other.event.data.betId === accrued.betId &&
        other.event.data.settlementId === accrued.settlementId &&
        other.recorded.position < recorded.position,
    )
  ) {
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      at,
      `CommissionCollected names bet ${accrued.betId} of settlement ${accrued.settlementId}, settled after the close, but the wallet holds no commission it accrued before`,
      { expected: `a CommissionAccrued of bet ${accrued.betId}`, found: null },
    );
  }
  if (amount !== due) {
    verdict.fail(
      'justified',
      'MOVEMENT_UNJUSTIFIED',
      at,
      `CommissionCollected takes ${amount}, but the wallet owed ${due} for shift ${shiftId} at ${tableId} then`,
      { expected: due, found: amount },
    );
  }
  justifiedBy.set(recorded.id, label(end));
}
