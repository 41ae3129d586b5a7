import {
  roundEventSchema,
  shoeEventSchema,
  securityEventSchema,
  tableEventSchema,
  walletEventSchema,
  operatorWalletEventSchema,
  parkedMessageEventSchema,
  type OperatorWalletEvent,
  type ParkedMessageEvent,
  type Adjustment,
  type RoundEvent,
  type ShoeEvent,
  type TableEvent,
  type WalletEvent,
  PLAY_MONEY_CURRENCY,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { moneyIn, type Money } from './money-text.js';

const hand = (side: string) => (side === 'player' ? 'Player' : 'Banker');

/** The currency an event names itself: its `currency`, or play money by its `fun` mark. */
export function currencyNamedBy(recorded: RecordedEvent): string | null {
  const data = (recorded.data ?? {}) as { currency?: unknown; fun?: unknown };
  if (typeof data.currency === 'string') return data.currency;
  return data.fun === true ? PLAY_MONEY_CURRENCY : null;
}

/** Who recorded an event, as a trail reads it: "Supervisor sue". */
function whoOf(recorded: RecordedEvent): string | null {
  const actor = (recorded.metadata as { actor?: { id?: unknown; role?: unknown } }).actor;
  if (typeof actor?.id !== 'string' || typeof actor.role !== 'string') return null;
  return `${actor.role.charAt(0).toUpperCase()}${actor.role.slice(1)} ${actor.id}`;
}

/** "Supervisor sue corrected card at shoe position 57: 3S → 7S (video review)". */
function correction(
  recorded: RecordedEvent,
  at: string,
  change: { previous: string; card: string; reason: string },
): string {
  const who = whoOf(recorded);
  const what = `${change.previous} \u2192 ${change.card} (${change.reason})`;
  return who === null
    ? `card at ${at} corrected: ${what}`
    : `${who} corrected card at ${at}: ${what}`;
}

const winnerText = (winner: string) => (winner === 'tie' ? 'tie' : `${hand(winner)} wins`);

/** "bet … of pia paid 4000, now 2000 (−2000), commission 100 → 0". */
function adjustmentText(line: Adjustment, money: Money): string {
  const paid =
    line.delta === 0
      ? `paid ${money(line.previousPayout)}, unchanged`
      : `paid ${money(line.previousPayout)}, now ${money(line.payout)} (${money.signed(line.delta)})`;
  const commission =
    line.commission === line.previousCommission
      ? ''
      : `, commission ${money(line.previousCommission)} \u2192 ${money(line.commission)}`;
  return `bet ${line.betId} of ${line.playerId} ${paid}${commission}`;
}

function describeRound(event: RoundEvent, recorded: RecordedEvent, money: Money): string {
  switch (event.type) {
    case 'RoundOpened':
      return `round ${event.data.number} of shoe ${event.data.shoeId} opened for bets (${event.data.currency}, paytable ${event.data.paytableId.slice(0, 12)}…)`;
    case 'BetPlaced': {
      const d = event.data;
      const mode = d.bankerMode === null ? '' : ` (${d.bankerMode.replace('_', '-')})`;
      const seat = d.seat === null ? '' : ` at seat ${d.seat}`;
      return `${d.playerId} bet ${money(d.amount)} on ${d.type}${mode}${seat}${d.rebetOf === null ? '' : ` (rebet of ${d.rebetOf})`}`;
    }
    case 'BetsCleared':
      return `${event.data.playerId} cleared ${event.data.betIds.length} bet(s)`;
    case 'StakeReleased':
      return `the round released ${event.data.playerId}'s stake of ${money(event.data.amount)} for bet ${event.data.betId} (${event.data.reason}): it takes no bet under that id, and the stake is refunded`;
    case 'BettingClosed':
      return 'betting closed';
    case 'DealStarted':
      return 'the deal started: the shoe may draw cards for the round from here on';
    case 'CardDealt':
      return `${hand(event.data.hand)} gets ${event.data.card} (shoe position ${event.data.shoePosition})`;
    case 'CardCorrected':
      return correction(recorded, `shoe position ${event.data.shoePosition}`, event.data);
    case 'RoundPaused':
      return `round paused: ${event.data.reason}`;
    case 'RoundResumed':
      return 'round resumed';
    case 'RoundCompleted': {
      const d = event.data;
      return `${winnerText(d.winner)}: Player ${d.player.total} [${d.player.cards.join(' ')}], Banker ${d.banker.total} [${d.banker.cards.join(' ')}]`;
    }
    case 'RoundResultCorrected': {
      const d = event.data;
      return `result corrected (${d.reason}): ${winnerText(d.winner)}: Player ${d.player.total} [${d.player.cards.join(' ')}], Banker ${d.banker.total} [${d.banker.cards.join(' ')}]`;
    }
    case 'RoundResettled': {
      const d = event.data;
      const why = d.kind === 'void' ? 'void' : 'corrected result';
      const lines = d.adjustments.map((line) => adjustmentText(line, money)).join('; ');
      return `Resettled (${why}: ${d.reason}): ${lines || 'no bets'}`;
    }
    case 'RoundSettled': {
      const t = event.data.totals;
      const spots = event.data.spots === undefined ? '' : ` on ${event.data.spots.length} spot(s)`;
      return `settled ${event.data.lines.length} bet(s)${spots}: staked ${money(t.staked)}, paid out ${money(t.paidOut)}, commission ${money(t.commission)}`;
    }
    case 'BetsRefunded':
      return `refunded ${event.data.lines.length} bet(s) (${event.data.reason}): ${money(event.data.lines.reduce((sum, line) => sum + line.amount, 0))}`;
    case 'RoundVoided': {
      const discarded = event.data.discarded ?? [];
      const cards =
        discarded.length === 0
          ? ''
          : `; drawn and never dealt: ${discarded.map((c) => `${c.card}@${c.position}→${hand(c.hand)}`).join(', ')}`;
      return `round voided: ${event.data.reason}${cards}`;
    }
    default:
      return (event as { type: string }).type;
  }
}

function describeShoe(event: ShoeEvent, recorded: RecordedEvent): string {
  switch (event.type) {
    case 'ShoeShuffled': {
      const d = event.data;
      const source =
        d.cardSource === 'rng'
          ? `rng, commitment ${d.commitment?.slice(0, 12) ?? '-'}…`
          : 'scanner';
      return `shoe ${d.shoeId} shuffled: ${d.decks} deck(s), ${source}${d.cutCardIndex === null ? '' : `, cut card before position ${d.cutCardIndex}`}`;
    }
    case 'CardBurned':
      return `burned ${event.data.card ?? 'a card face down'} at position ${event.data.position}${event.data.shown ? ' (shown)' : ''}`;
    case 'CardsDrawn':
      return `round ${event.data.roundNumber} drew ${event.data.cards.map((c) => `${c.card}@${c.position}→${hand(c.hand)}`).join(', ')}`;
    case 'CardCorrected':
      return correction(
        recorded,
        `shoe position ${event.data.position} (round ${event.data.roundId})`,
        event.data,
      );
    case 'RoundSealed':
      return `round ${event.data.roundId} sealed for its void: the shoe draws no more for it (it drew ${event.data.cards.length === 0 ? 'none' : event.data.cards.map((c) => `${c.card}@${c.position}→${hand(c.hand)}`).join(', ')})`;
    case 'CutCardReached':
      return `cut card out at position ${event.data.position} in round ${event.data.roundNumber}; last round ${event.data.lastRoundNumber}`;
    case 'ShoeClosed':
      return `shoe closed (${event.data.reason}) after ${event.data.roundsDealt} round(s)${event.data.seed === null ? '' : ', seed revealed'}; digest ${event.data.digest.value.slice(0, 12)}…`;
  }
}

function describeWallet(event: WalletEvent, money: Money): string {
  const d = event.data;
  switch (event.type) {
    case 'FundsDeposited':
      return `${d.playerId} deposited ${money(event.data.amount)}`;
    case 'FundsWithdrawn':
      return `${d.playerId} withdrew ${money(event.data.amount)}`;
    case 'PlayMoneyGranted':
      return `${d.playerId} was granted ${money(event.data.amount)} of play money (topped up to ${money(event.data.topUpTo)})`;
    case 'StakeDebited':
      return `${d.playerId} debited ${money(event.data.amount)} for bet ${event.data.betId}`;
    case 'PayoutCredited':
      return `${d.playerId} credited ${money(event.data.amount)} for bet ${event.data.betId} (${event.data.result})`;
    case 'StakeRefunded':
      return `${d.playerId} refunded ${money(event.data.amount)} for bet ${event.data.betId} (${event.data.reason})`;
    case 'CommissionAccrued':
      return `${d.playerId} owes ${money(event.data.amount)} commission at seat ${event.data.seat}`;
    case 'CommissionCollected':
      return `${d.playerId} paid ${money(event.data.amount)} commission owed at ${event.data.tableId}`;
    case 'PayoutAdjusted': {
      const { delta, commissionDelta, betId, reason } = event.data;
      const why = reason === 'void' ? 'void after settlement' : 'result corrected after settlement';
      const commission =
        commissionDelta === 0 ? '' : `, commission owed ${money.signed(commissionDelta)}`;
      return `${d.playerId} adjusted ${money.signed(delta)} for bet ${betId} (${why})${commission}`;
    }
    default:
      return (event as { type: string }).type;
  }
}

function describeTable(event: TableEvent): string {
  switch (event.type) {
    case 'TableOpened':
      return event.data.session === undefined
        ? `table opened: ${event.data.config.name} (${event.data.config.preset ?? 'custom'}), ${event.data.dealing.mode} dealing`
        : `session opened by ${event.data.session.ownerId}: ${event.data.config.name} (${event.data.config.preset ?? 'custom'}), dealt by its player`;
    case 'DealerChanged':
      return `dealer ${event.data.previousDealerId ?? '(none)'} replaced by ${event.data.dealerId}`;
    case 'TableClosed':
      return `table closed: ${event.data.reason}`;
    case 'SeatTaken':
      return `${event.data.playerId} took seat ${event.data.seat}`;
    case 'SeatLeft':
      return `${event.data.playerId} left seat ${event.data.seat}`;
  }
}

/** Seamless mode: what Croupier asked the operator's wallet, and what it answered. */
function describeOperatorWallet(event: OperatorWalletEvent, money: Money): string {
  const d = event.data;
  switch (event.type) {
    case 'OperatorDebitRequested':
      return `operator's wallet asked to debit ${money(event.data.amount)} from ${d.playerId} for bet ${event.data.betId} (attempt ${event.data.attempt})`;
    case 'OperatorDebitConfirmed':
      return `operator's wallet debited ${money(event.data.amount)} from ${d.playerId} (transaction ${event.data.transactionId}, learned by ${event.data.via})`;
    case 'OperatorDebitFailed':
      return `operator's wallet debit of ${money(event.data.amount)} for ${d.playerId} ${event.data.outcome} (${event.data.code})`;
    case 'OperatorRollbackRequested':
      return `rollback of ${money(event.data.amount)} to ${d.playerId} requested of the operator's wallet (${event.data.reason})`;
    case 'OperatorCreditRequested':
      return `credit of ${money(event.data.amount)} to ${d.playerId} requested of the operator's wallet (${event.data.kind})`;
    case 'OperatorCallDelivered':
      return `operator's wallet confirmed the ${event.data.call} ${event.data.key} (transaction ${event.data.transactionId})`;
  }
}

/** A message a consumer set aside (ADR 0035), retried or resolved. */
function describeParked(event: ParkedMessageEvent): string {
  const id = `${event.data.consumer}.${event.data.messageId}`;
  switch (event.type) {
    case 'MessageParked':
      return `${event.data.consumer} parked message ${event.data.messageId}${event.data.playerId === null ? '' : ` of ${event.data.playerId}`} after ${event.data.attempts} attempt(s): ${event.data.code} ${event.data.detail}`;
    case 'ParkedMessageRetried':
      return `parked message ${id} retried`;
    case 'ParkedMessageResolved':
      return `parked message ${id} applied after its retry`;
  }
}

/**
 * One line saying what an event records, in the game's words; its type if it cannot be read.
 * Amounts are written in the event's own currency when it names one, else in `currency` (the
 * round's, the table's or the wallet's, as the caller knows it), else as bare minor units.
 */
export function describeEvent(recorded: RecordedEvent, currency: string | null = null): string {
  const money = moneyIn(currencyNamedBy(recorded) ?? currency);
  const input = { type: recorded.type, data: recorded.data };
  const prefix = recorded.stream.slice(0, recorded.stream.indexOf('-') + 1);
  switch (prefix) {
    case 'round-': {
      const parsed = roundEventSchema.safeParse(input);
      if (parsed.success) return describeRound(parsed.data, recorded, money);
      break;
    }
    case 'shoe-': {
      const parsed = shoeEventSchema.safeParse(input);
      if (parsed.success) return describeShoe(parsed.data, recorded);
      break;
    }
    case 'wallet-':
    case 'fun-': {
      // fun-wallet-<player>: play money (ADR 0030), said so on every movement.
      const parsed = walletEventSchema.safeParse(input);
      if (!parsed.success) break;
      const line = describeWallet(parsed.data, money);
      const marked = 'fun' in parsed.data.data && parsed.data.type !== 'PlayMoneyGranted';
      return marked ? `${line} (play money, FUN)` : line;
    }
    case 'operator-': {
      const parsed = operatorWalletEventSchema.safeParse(input);
      if (parsed.success) return describeOperatorWallet(parsed.data, money);
      break;
    }
    case 'parked-': {
      const parsed = parkedMessageEventSchema.safeParse(input);
      if (parsed.success) return describeParked(parsed.data);
      break;
    }
    case 'table-': {
      const parsed = tableEventSchema.safeParse(input);
      if (parsed.success) return describeTable(parsed.data);
      break;
    }
    case 'security-': {
      const parsed = securityEventSchema.safeParse(input);
      if (parsed.success) {
        const event = parsed.data;
        if (event.type === 'AuthenticationFailed') {
          const { reason, method, path, ip } = event.data;
          return `failed login from ${ip}: ${reason} (${method} ${path})`;
        }
        // `rate-limited` among the reasons: refused 429 for too many, unread.
        const { client, count, reasons, windowStart, windowEnd, first } = event.data;
        const why = Object.entries(reasons)
          .map(([reason, times]) => `${reason} ${times}`)
          .join(', ');
        return `${count} failed login${count === 1 ? '' : 's'} from ${client} between ${windowStart} and ${windowEnd} (${why}); first: ${first.method} ${first.path}`;
      }
      break;
    }
  }
  return recorded.type;
}
