import {
  BetRejectedError,
  evaluateRound,
  nextCardRecipient,
  settleBet,
  settleChips,
  validateBetSet,
  type BetSettlement,
  type Card,
  type RoundOutcome,
} from '@croupier/baccarat';
import {
  roundEventSchema,
  walletEventSchema,
  type RoundEvent,
  type RoundRules,
  type WalletEvent,
} from '@croupier/contracts';
import { untilReadable, type EventStore, type RecordedEvent } from '@croupier/eventstore';

/**
 * Every event of the store, in global order, with everything committed before the call: a SQL
 * store shows a committed event only once every transaction that began before it has ended, any
 * transaction on the server (ADR 0048), so the read waits until the log is readable that far.
 */
export async function allEvents(store: EventStore): Promise<RecordedEvent[]> {
  await untilReadable(store);
  return readEverything(store);
}

async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({
      ...(events.length > 0 ? { after: events.at(-1)!.position } : {}),
      limit: 5_000,
    });
    events.push(...page);
    if (page.length < 5_000) return events;
  }
}

export interface MoneyReport {
  readonly discrepancies: string[];
  readonly figures: {
    readonly rounds: number;
    readonly settledRounds: number;
    readonly voidedRounds: number;
    readonly bets: number;
    readonly deposits: number;
    readonly withdrawals: number;
    readonly staked: number;
    readonly paidOut: number;
    readonly refunded: number;
    readonly commissionCollected: number;
    readonly houseResult: number;
    readonly balances: number;
  };
  /** Each player's balance folded from their wallet events. */
  readonly balances: ReadonlyMap<string, number>;
}

interface RoundFacts {
  rules: RoundRules | null;
  number: number;
  bets: Map<string, Extract<RoundEvent, { type: 'BetPlaced' }>['data']>;
  cleared: Set<string>;
  player: { card: Card; position: number }[];
  banker: { card: Card; position: number }[];
  completed: Extract<RoundEvent, { type: 'RoundCompleted' }>['data'] | null;
  voided: boolean;
  settledLines: Map<string, { payout: number; result: string; commission: number }>;
  settlements: number;
  refundLines: Map<string, number>;
  resettledKinds: Map<string, 'void' | 'correction'>;
}

/**
 * Checks, from the events alone, what must hold whatever happened: every round obeys the
 * third-card rule and its recorded result; every player's bets dealt keep the table's limits
 * (each spot at least its minimum, the maximums, the difference limit); every settlement line is
 * what the rules pay, spot by spot (chips on one spot are one stake, shared back over the chips);
 * every
 * placed bet is settled or refunded exactly once on its round and exactly once in its wallet;
 * every debit is closed exactly once; money is conserved: balances + house result =
 * deposits - withdrawals, with the house result computed from the rounds' own records.
 * Call it once every round is finished and settled.
 */
export function checkMoney(events: readonly RecordedEvent[]): MoneyReport {
  const problems: string[] = [];
  const rounds = new Map<string, RoundFacts>();
  const balances = new Map<string, number>();
  const debits = new Map<string, { playerId: string; roundId: string; amount: number }>();
  const closures = new Map<
    string,
    { kind: 'payout' | 'refund'; amount: number; reason?: string }[]
  >();
  let deposits = 0;
  let withdrawals = 0;
  let commissionCollected = 0;
  const adjustedInWallet = new Map<string, number>();

  const factsOf = (roundId: string): RoundFacts => {
    let facts = rounds.get(roundId);
    if (facts === undefined) {
      facts = {
        rules: null,
        number: 0,
        bets: new Map(),
        cleared: new Set(),
        player: [],
        banker: [],
        completed: null,
        voided: false,
        settledLines: new Map(),
        settlements: 0,
        refundLines: new Map(),
        resettledKinds: new Map(),
      };
      rounds.set(roundId, facts);
    }
    return facts;
  };
  const close = (
    betId: string,
    closure: { kind: 'payout' | 'refund'; amount: number; reason?: string },
  ) => {
    closures.set(betId, [...(closures.get(betId) ?? []), closure]);
  };

  for (const recorded of events) {
    if (recorded.stream.startsWith('wallet-')) {
      const event: WalletEvent = walletEventSchema.parse({
        type: recorded.type,
        data: recorded.data,
      });
      const { playerId } = event.data;
      const balance = balances.get(playerId) ?? 0;
      switch (event.type) {
        case 'FundsDeposited':
          deposits += event.data.amount;
          balances.set(playerId, balance + event.data.amount);
          break;
        case 'FundsWithdrawn':
          withdrawals += event.data.amount;
          balances.set(playerId, balance - event.data.amount);
          break;
        case 'StakeDebited':
          if (debits.has(event.data.betId)) problems.push(`bet ${event.data.betId} debited twice`);
          debits.set(event.data.betId, {
            playerId,
            roundId: event.data.roundId,
            amount: event.data.amount,
          });
          balances.set(playerId, balance - event.data.amount);
          break;
        case 'PayoutCredited':
          close(event.data.betId, { kind: 'payout', amount: event.data.amount });
          balances.set(playerId, balance + event.data.amount);
          break;
        case 'StakeRefunded':
          close(event.data.betId, {
            kind: 'refund',
            amount: event.data.amount,
            reason: event.data.reason,
          });
          balances.set(playerId, balance + event.data.amount);
          break;
        case 'CommissionCollected':
          commissionCollected += event.data.amount;
          balances.set(playerId, balance - event.data.amount);
          break;
        case 'CommissionAccrued':
          break;
        case 'PayoutAdjusted':
          adjustedInWallet.set(
            event.data.betId,
            (adjustedInWallet.get(event.data.betId) ?? 0) + event.data.delta,
          );
          // A commission delta (a dispute on an accrued-commission table) moves what is owed,
          // not the balance: the wallet audit checks it against the resettlement, and every
          // caller that meets one (the model test, the soak) runs that audit.
          balances.set(playerId, balance + event.data.delta);
          break;
      }
      if ((balances.get(playerId) ?? 0) < 0)
        problems.push(`wallet ${playerId} went below zero at revision ${recorded.revision}`);
    } else if (recorded.stream.startsWith('round-')) {
      const event = roundEventSchema.parse({ type: recorded.type, data: recorded.data });
      const facts = factsOf(event.data.roundId);
      switch (event.type) {
        case 'RoundOpened':
          facts.rules = event.data.rules;
          facts.number = event.data.number;
          break;
        case 'BetPlaced':
          facts.bets.set(event.data.betId, event.data);
          break;
        case 'BetsCleared':
          for (const betId of event.data.betIds) facts.cleared.add(betId);
          break;
        case 'CardDealt': {
          const due = nextCardRecipient(
            facts.player.map((c) => c.card),
            facts.banker.map((c) => c.card),
          );
          if (due !== event.data.hand) {
            problems.push(
              `${event.data.roundId}: card ${event.data.card} dealt to ${event.data.hand}, the rules say ${String(due)}`,
            );
          }
          (event.data.hand === 'player' ? facts.player : facts.banker).push({
            card: event.data.card,
            position: event.data.shoePosition,
          });
          break;
        }
        case 'CardCorrected':
          for (const hand of [facts.player, facts.banker]) {
            for (const c of hand)
              if (c.position === event.data.shoePosition) c.card = event.data.card;
          }
          break;
        case 'RoundResultCorrected': {
          const { reason: _reason, ...corrected } = event.data;
          facts.completed = corrected;
          break;
        }
        case 'RoundResettled':
          for (const adjustment of event.data.adjustments) {
            const line = facts.settledLines.get(adjustment.betId);
            if (line === undefined || line.payout !== adjustment.previousPayout) {
              problems.push(
                `bet ${adjustment.betId}: resettled from ${adjustment.previousPayout}, but it was paid ${line?.payout}`,
              );
            }
            facts.settledLines.set(adjustment.betId, {
              payout: adjustment.payout,
              result: adjustment.result,
              commission: adjustment.commission,
            });
            facts.resettledKinds.set(adjustment.betId, event.data.kind);
          }
          break;
        case 'RoundCompleted': {
          facts.completed = event.data;
          const dealt = (hand: { card: Card }[]) => hand.map((c) => c.card).join(' ');
          if (
            dealt(facts.player) !== event.data.player.cards.join(' ') ||
            dealt(facts.banker) !== event.data.banker.cards.join(' ')
          ) {
            problems.push(`${event.data.roundId}: the completed hands are not the cards dealt`);
          }
          break;
        }
        case 'RoundVoided':
          facts.voided = true;
          break;
        case 'RoundSettled':
          // A voided round is never paid: a void before settlement is refunded (ADR 0033).
          if (facts.voided) problems.push(`${event.data.roundId}: settled after it was voided`);
          facts.settlements++;
          for (const line of event.data.lines) {
            facts.settledLines.set(line.betId, {
              payout: line.payout,
              result: line.result,
              commission: line.commission,
            });
          }
          break;
        case 'BetsRefunded':
          for (const line of event.data.lines) {
            if (facts.refundLines.has(line.betId))
              problems.push(`bet ${line.betId} refunded twice on its round`);
            facts.refundLines.set(line.betId, line.amount);
          }
          break;
        default:
          break;
      }
    }
  }

  let staked = 0;
  let paidOut = 0;
  let refundedOnRounds = 0;
  let betCount = 0;
  for (const [roundId, facts] of rounds) {
    if (facts.completed !== null) {
      const result = evaluateRound(facts.completed.player.cards, facts.completed.banker.cards);
      if (
        result.winner !== facts.completed.winner ||
        result.playerTotal !== facts.completed.player.total ||
        result.bankerTotal !== facts.completed.banker.total
      ) {
        problems.push(
          `${roundId}: recorded result differs from the rules' evaluation of its cards`,
        );
      }
      // Voided after it completed: settled once if the void came after settlement, else never.
      if (facts.voided ? facts.settlements > 1 : facts.settlements !== 1)
        problems.push(`${roundId}: completed but settled ${facts.settlements} times`);
    } else if (!facts.voided && facts.rules !== null) {
      problems.push(`${roundId}: neither completed nor voided`);
    }
    const outcome: RoundOutcome | null =
      facts.completed === null
        ? null
        : {
            winner: facts.completed.winner,
            playerTotal: facts.completed.player.total,
            bankerTotal: facts.completed.banker.total,
            playerCardCount: facts.completed.player.cards.length as 2 | 3,
            bankerCardCount: facts.completed.banker.cards.length as 2 | 3,
            playerNatural: facts.completed.player.natural,
            bankerNatural: facts.completed.banker.natural,
            playerPair: facts.completed.player.pair,
            bankerPair: facts.completed.banker.pair,
            playerPerfectPair: facts.completed.player.perfectPair,
            bankerPerfectPair: facts.completed.banker.perfectPair,
          };
    // The bets the round dealt: placed and not cleared (a voided round deals none).
    const dealt = [...facts.bets.values()].filter((bet) => !facts.cleared.has(bet.betId));
    if (facts.rules !== null && facts.completed !== null) {
      for (const playerId of new Set(dealt.map((bet) => bet.playerId))) {
        try {
          validateBetSet(
            facts.rules,
            facts.number,
            dealt.filter((bet) => bet.playerId === playerId),
          );
        } catch (error) {
          if (!(error instanceof BetRejectedError)) throw error;
          problems.push(
            `${roundId}: ${playerId}'s bets dealt break the table's rules: ${error.code} ${error.message}`,
          );
        }
      }
    }
    const byRule = new Map<string, BetSettlement>();
    if (outcome !== null && facts.rules !== null) {
      const settled = settleChips(
        dealt.map((bet) => ({
          betId: bet.betId,
          playerId: bet.playerId,
          spot: { type: bet.type, bankerMode: bet.bankerMode, seat: bet.seat },
          amount: bet.amount,
        })),
        outcome,
        facts.rules,
      );
      for (const { chip, settlement } of settled.chips) byRule.set(chip.betId, settlement);
    }
    for (const [betId, bet] of facts.bets) {
      betCount++;
      staked += bet.amount;
      const line = facts.settledLines.get(betId);
      const refund = facts.refundLines.get(betId);
      if ((line === undefined) === (refund === undefined)) {
        problems.push(
          `bet ${betId} on ${roundId}: ${line && refund ? 'both settled and refunded' : 'neither settled nor refunded'}`,
        );
        continue;
      }
      if (line !== undefined) {
        paidOut += line.payout;
        const kind = facts.resettledKinds.get(betId);
        if (kind === 'void' && line.payout !== bet.amount) {
          problems.push(
            `bet ${betId} on voided ${roundId}: paid ${line.payout}, not its stake ${bet.amount}`,
          );
        }
        const expected = byRule.get(betId);
        if (kind !== 'void' && expected !== undefined) {
          if (expected.payout !== line.payout || expected.commission !== line.commission) {
            problems.push(
              `bet ${betId} on ${roundId}: paid ${line.payout} (commission ${line.commission}), the rules pay ${expected.payout} (${expected.commission})`,
            );
          }
        }
        const walletClosures = closures.get(betId) ?? [];
        const walletPaid = (walletClosures[0]?.amount ?? 0) + (adjustedInWallet.get(betId) ?? 0);
        if (
          walletClosures.length !== 1 ||
          walletClosures[0]!.kind !== 'payout' ||
          walletPaid !== line.payout
        ) {
          problems.push(
            `bet ${betId}: paid ${line.payout} on its round but the wallet shows ${JSON.stringify(walletClosures)} adjusted by ${adjustedInWallet.get(betId) ?? 0}`,
          );
        }
      } else {
        refundedOnRounds += refund!;
        const walletClosures = closures.get(betId) ?? [];
        if (
          walletClosures.length !== 1 ||
          walletClosures[0]!.kind !== 'refund' ||
          walletClosures[0]!.amount !== refund
        ) {
          problems.push(
            `bet ${betId}: refunded ${refund} on its round but the wallet shows ${JSON.stringify(walletClosures)}`,
          );
        }
      }
    }
  }

  // Every debit is closed exactly once; debits for bets no round recorded may only be refunded.
  let refundedOffRound = 0;
  const placed = new Set([...rounds.values()].flatMap((facts) => [...facts.bets.keys()]));
  for (const [betId, debit] of debits) {
    const walletClosures = closures.get(betId) ?? [];
    if (walletClosures.length !== 1) {
      problems.push(
        `debit of bet ${betId} (${debit.playerId}, ${debit.roundId}) closed ${walletClosures.length} times`,
      );
      continue;
    }
    if (!placed.has(betId)) {
      if (walletClosures[0]!.kind !== 'refund' || walletClosures[0]!.amount !== debit.amount) {
        problems.push(`debit of unplaced bet ${betId} not refunded in full`);
      } else refundedOffRound += debit.amount;
    } else {
      const bet = [...rounds.values()].find((f) => f.bets.has(betId))!.bets.get(betId)!;
      if (bet.amount !== debit.amount)
        problems.push(`bet ${betId}: debited ${debit.amount}, placed ${bet.amount}`);
    }
  }
  for (const betId of closures.keys())
    if (!debits.has(betId)) problems.push(`bet ${betId} credited without a debit`);

  const totalBalances = [...balances.values()].reduce((sum, value) => sum + value, 0);
  // The house result from the rounds' records, not from the wallets.
  const houseResult = staked - paidOut - refundedOnRounds + commissionCollected;
  // Debits of bets no round recorded were checked above to be refunded in full, so they cancel.
  if (totalBalances + houseResult !== deposits - withdrawals) {
    problems.push(
      `money is not conserved: balances ${totalBalances} + house ${houseResult} != deposits ${deposits} - withdrawals ${withdrawals}`,
    );
  }
  return {
    discrepancies: problems,
    figures: {
      rounds: rounds.size,
      settledRounds: [...rounds.values()].filter((f) => f.settlements > 0).length,
      voidedRounds: [...rounds.values()].filter((f) => f.voided).length,
      bets: betCount,
      deposits,
      withdrawals,
      staked,
      paidOut,
      refunded: refundedOnRounds + refundedOffRound,
      commissionCollected,
      houseResult,
      balances: totalBalances,
    },
    balances,
  };
}

/**
 * Waits until the money has come to rest: every completed round is settled and every stake
 * debited has been closed by a payout or a refund (the settlement records travelled through the
 * outbox and the bus to the wallets). Returns the events.
 */
export async function settledEverywhere(
  store: EventStore,
  timeoutMs = 30_000,
): Promise<RecordedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await allEvents(store);
    const open = new Set<string>();
    const unsettled = new Set<string>();
    for (const event of events) {
      const betId = (event.data as { betId?: string }).betId;
      if (event.type === 'StakeDebited' && betId !== undefined) open.add(betId);
      if (
        (event.type === 'PayoutCredited' || event.type === 'StakeRefunded') &&
        betId !== undefined
      )
        open.delete(betId);
      // A deal under way is waited for too: its RoundCompleted may be committed but not yet
      // readable here (a read of the log stops short of a transaction still in flight before
      // it), and a round left dealing is no money check's to judge.
      if (event.type === 'RoundCompleted' || event.type === 'DealStarted')
        unsettled.add(event.stream);
      // A round voided before its settlement is refunded, never settled (ADR 0033): its stakes
      // are waited for above.
      if (event.type === 'RoundSettled' || event.type === 'RoundVoided')
        unsettled.delete(event.stream);
    }
    if (open.size === 0 && unsettled.size === 0) return events;
    if (Date.now() > deadline) {
      // Name what each unsettled round holds: the next reader of a failure starts from it.
      const held = [...unsettled].map(
        (stream) =>
          `${stream}: ${events
            .filter((e) => e.stream === stream)
            .map((e) => e.type)
            .join(', ')}`,
      );
      throw new Error(
        `${open.size} stakes still open and ${unsettled.size} rounds unsettled after ${timeoutMs} ms` +
          (held.length > 0 ? ` (${held.join('; ')})` : ''),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until every round opened is completed or voided (a closed table's dealer finishes the
 * round in progress after the close answered). Returns the events.
 */
export async function roundsFinished(
  store: EventStore,
  timeoutMs = 30_000,
): Promise<RecordedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await allEvents(store);
    const playing = new Set<string>();
    for (const event of events) {
      if (event.type === 'RoundOpened') playing.add(event.stream);
      if (event.type === 'RoundCompleted' || event.type === 'RoundVoided')
        playing.delete(event.stream);
    }
    if (playing.size === 0) return events;
    if (Date.now() > deadline) {
      throw new Error(
        `rounds neither completed nor voided after ${timeoutMs} ms: ${[...playing].join(', ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A job as the settlement bus keeps it (see BullMqSettlementBus.keptJobs). */
export interface BusJob {
  readonly jobId: string;
  readonly state: string;
  readonly data: unknown;
}

export interface BusReport {
  /** Messages the store's settlement records call for: one per settled, refunded or adjusted bet line. */
  readonly expected: number;
  /** Of those, the ones with a job on the bus. */
  readonly found: number;
  readonly missing: string[];
  /** Lines with more than one job. */
  readonly duplicated: string[];
  /** Jobs for no line of the store. */
  readonly unexpected: string[];
  /** Jobs not completed (waiting, failed...). */
  readonly notCompleted: string[];
  /** Jobs whose id is not their message id (the bus's dedupe rests on it). */
  readonly misnamed: string[];
}

/**
 * Checks that every settlement record reached the bus: each line of every RoundSettled,
 * BetsRefunded and RoundResettled event has exactly one job, matched by the event id and bet id
 * the message carries, completed, and named by its message id.
 */
export function checkBus(events: readonly RecordedEvent[], jobs: readonly BusJob[]): BusReport {
  const expected = new Set<string>();
  for (const event of events) {
    if (!event.stream.startsWith('round-')) continue;
    const data = event.data as {
      lines?: readonly { betId: string }[];
      adjustments?: readonly { betId: string }[];
    };
    const lines =
      event.type === 'RoundSettled' || event.type === 'BetsRefunded'
        ? (data.lines ?? [])
        : event.type === 'RoundResettled'
          ? (data.adjustments ?? [])
          : [];
    for (const line of lines) expected.add(`${event.id}/${line.betId}`);
  }
  const jobsPerLine = new Map<string, number>();
  const unexpected: string[] = [];
  const notCompleted: string[] = [];
  const misnamed: string[] = [];
  for (const job of jobs) {
    const message = job.data as { eventId?: string; betId?: string; messageId?: string };
    const line = `${message.eventId}/${message.betId}`;
    if (!expected.has(line)) unexpected.push(`${job.jobId} (${line})`);
    jobsPerLine.set(line, (jobsPerLine.get(line) ?? 0) + 1);
    if (job.state !== 'completed') notCompleted.push(`${job.jobId}: ${job.state}`);
    if (message.messageId !== job.jobId) misnamed.push(job.jobId);
  }
  const missing = [...expected].filter((line) => !jobsPerLine.has(line));
  return {
    expected: expected.size,
    found: expected.size - missing.length,
    missing,
    duplicated: [...jobsPerLine].filter(([, count]) => count > 1).map(([line]) => line),
    unexpected,
    notCompleted,
    misnamed,
  };
}

/** A bet as the spot rules see it: whose, on what, how much, in which banker mode and seat. */
export interface SpotBet {
  readonly playerId: string;
  readonly type: string;
  readonly amount: number;
  readonly bankerMode: string | null;
  readonly seat: number | null;
}

/** One player's chips on one spot of a round: bet type, banker mode and seat. */
const spotKey = (bet: SpotBet) =>
  `${bet.playerId}/${bet.type}/${bet.bankerMode ?? '-'}/${bet.seat ?? '-'}`;

/**
 * The rules a dealt round's bets must keep (issue 24, "limits on the set"): every spot (a
 * player's chips on one bet type, banker mode and seat, summed) at least the table minimum; every
 * bet type's total, over its banker modes and seats, at most the maximum, except that a
 * difference limit replaces the Player and Banker maximum, and then each player's Player and
 * Banker totals differ by at most that limit.
 */
export function spotProblems(
  roundId: string,
  rules: Pick<RoundRules, 'bets' | 'playerBankerDifferenceLimit'>,
  bets: readonly SpotBet[],
): string[] {
  const problems: string[] = [];
  const spots = new Map<string, { bet: SpotBet; total: number }>();
  for (const bet of bets) {
    const spot = spots.get(spotKey(bet));
    spots.set(spotKey(bet), { bet, total: (spot?.total ?? 0) + bet.amount });
  }
  const sides = new Map<string, { player: number; banker: number }>();
  const types = new Map<string, number>();
  const differenceLimit = rules.playerBankerDifferenceLimit;
  for (const [key, { bet, total }] of spots) {
    const limit = rules.bets[bet.type as keyof RoundRules['bets']];
    const mainBet = bet.type === 'player' || bet.type === 'banker';
    if (limit === undefined)
      problems.push(`${roundId}: spot ${key} is a bet the table does not offer`);
    else if (total < limit.min)
      problems.push(`${roundId}: spot ${key} dealt at ${total}, below its minimum ${limit.min}`);
    const typeKey = `${bet.playerId}/${bet.type}`;
    types.set(typeKey, (types.get(typeKey) ?? 0) + total);
    if (mainBet) {
      const side = sides.get(bet.playerId) ?? { player: 0, banker: 0 };
      side[bet.type] += total;
      sides.set(bet.playerId, side);
    }
  }
  for (const [typeKey, total] of types) {
    const type = typeKey.slice(typeKey.lastIndexOf('/') + 1);
    const limit = rules.bets[type as keyof RoundRules['bets']];
    const mainBet = type === 'player' || type === 'banker';
    if (limit !== undefined && total > limit.max && !(mainBet && differenceLimit !== null))
      problems.push(`${roundId}: ${typeKey} dealt at ${total}, above its maximum ${limit.max}`);
  }
  if (differenceLimit !== null)
    for (const [playerId, side] of sides)
      if (Math.abs(side.player - side.banker) > differenceLimit)
        problems.push(
          `${roundId}: ${playerId} dealt Player ${side.player} against Banker ${side.banker}, past the difference limit ${differenceLimit}`,
        );
  return problems;
}

/**
 * Checks every round of the log by its spots: every dealt spot keeps the rules (`spotProblems`),
 * and every spot of a completed round is paid what the paytable pays on the spot's total, rounded
 * down once (docs/rules.md: a player's chips on one spot are one stake), however its settlement
 * lines split it among the chips. Spots given back by a void after completion are left to
 * `checkMoney` (each chip gets its stake back).
 */
export function checkSpots(events: readonly RecordedEvent[]): string[] {
  const problems: string[] = [];
  interface Facts {
    rules: RoundRules | null;
    bets: Map<string, SpotBet>;
    dealt: boolean;
    completed: Extract<RoundEvent, { type: 'RoundCompleted' }>['data'] | null;
    paid: Map<string, { payout: number; commission: number }>;
    voidedAfter: boolean;
  }
  const rounds = new Map<string, Facts>();
  for (const recorded of events) {
    if (!recorded.stream.startsWith('round-')) continue;
    const event = roundEventSchema.parse({ type: recorded.type, data: recorded.data });
    let facts = rounds.get(event.data.roundId);
    if (facts === undefined) {
      facts = {
        rules: null,
        bets: new Map(),
        dealt: false,
        completed: null,
        paid: new Map(),
        voidedAfter: false,
      };
      rounds.set(event.data.roundId, facts);
    }
    switch (event.type) {
      case 'RoundOpened':
        facts.rules = event.data.rules;
        break;
      case 'BetPlaced':
        facts.bets.set(event.data.betId, {
          playerId: event.data.playerId,
          type: event.data.type,
          amount: event.data.amount,
          bankerMode: event.data.bankerMode ?? null,
          seat: event.data.seat ?? null,
        });
        break;
      case 'BetsCleared':
        for (const betId of event.data.betIds) facts.bets.delete(betId);
        break;
      case 'CardDealt':
        facts.dealt = true;
        break;
      case 'RoundCompleted':
        facts.dealt = true;
        facts.completed = event.data;
        break;
      case 'RoundResultCorrected': {
        const { reason: _reason, ...corrected } = event.data;
        facts.completed = corrected;
        break;
      }
      case 'RoundSettled':
        for (const line of event.data.lines)
          facts.paid.set(line.betId, { payout: line.payout, commission: line.commission });
        break;
      case 'RoundResettled':
        if (event.data.kind === 'void') facts.voidedAfter = true;
        for (const line of event.data.adjustments)
          facts.paid.set(line.betId, { payout: line.payout, commission: line.commission });
        break;
      default:
        break;
    }
  }
  for (const [roundId, facts] of rounds) {
    if (facts.rules === null || !facts.dealt) continue;
    const bets = [...facts.bets.entries()];
    problems.push(
      ...spotProblems(
        roundId,
        facts.rules,
        bets.map(([, bet]) => bet),
      ),
    );
    const done = facts.completed;
    if (done === null || facts.paid.size === 0 || facts.voidedAfter) continue;
    const outcome: RoundOutcome = {
      winner: done.winner,
      playerTotal: done.player.total,
      bankerTotal: done.banker.total,
      playerCardCount: done.player.cards.length as 2 | 3,
      bankerCardCount: done.banker.cards.length as 2 | 3,
      playerNatural: done.player.natural,
      bankerNatural: done.banker.natural,
      playerPair: done.player.pair,
      bankerPair: done.banker.pair,
      playerPerfectPair: done.player.perfectPair,
      bankerPerfectPair: done.banker.perfectPair,
    };
    const spots = new Map<
      string,
      { bet: SpotBet; total: number; payout: number; commission: number }
    >();
    for (const [betId, bet] of bets) {
      const line = facts.paid.get(betId);
      const spot = spots.get(spotKey(bet)) ?? { bet, total: 0, payout: 0, commission: 0 };
      spot.total += bet.amount;
      spot.payout += line?.payout ?? 0;
      spot.commission += line?.commission ?? 0;
      spots.set(spotKey(bet), spot);
    }
    for (const [key, spot] of spots) {
      const expected = settleBet(
        {
          type: spot.bet.type as never,
          stake: spot.total,
          bankerMode: (spot.bet.bankerMode ?? undefined) as never,
        },
        outcome,
        facts.rules,
      );
      if (expected.payout !== spot.payout || expected.commission !== spot.commission)
        problems.push(
          `${roundId}: spot ${key} of ${spot.total} paid ${spot.payout} (commission ${spot.commission}), the paytable on its total pays ${expected.payout} (${expected.commission})`,
        );
    }
  }
  return problems;
}
