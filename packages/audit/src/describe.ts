import {
  roundEventSchema,
  shoeEventSchema,
  securityEventSchema,
  tableEventSchema,
  walletEventSchema,
  type RoundEvent,
  type ShoeEvent,
  type TableEvent,
  type WalletEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';

const hand = (side: string) => (side === 'player' ? 'Player' : 'Banker');

function describeRound(event: RoundEvent): string {
  switch (event.type) {
    case 'RoundOpened':
      return `round ${event.data.number} of shoe ${event.data.shoeId} opened for bets (${event.data.currency}, paytable ${event.data.paytableId.slice(0, 12)}…)`;
    case 'BetPlaced': {
      const d = event.data;
      const mode = d.bankerMode === null ? '' : ` (${d.bankerMode.replace('_', '-')})`;
      const seat = d.seat === null ? '' : ` at seat ${d.seat}`;
      return `${d.playerId} bet ${d.amount} on ${d.type}${mode}${seat}${d.rebetOf === null ? '' : ` (rebet of ${d.rebetOf})`}`;
    }
    case 'BetsCleared':
      return `${event.data.playerId} cleared ${event.data.betIds.length} bet(s)`;
    case 'BettingClosed':
      return 'betting closed';
    case 'CardDealt':
      return `${hand(event.data.hand)} gets ${event.data.card} (shoe position ${event.data.shoePosition})`;
    case 'CardCorrected':
      return `card at shoe position ${event.data.shoePosition} corrected from ${event.data.previous} to ${event.data.card}: ${event.data.reason}`;
    case 'RoundPaused':
      return `round paused: ${event.data.reason}`;
    case 'RoundResumed':
      return 'round resumed';
    case 'RoundCompleted': {
      const d = event.data;
      const result = d.winner === 'tie' ? 'tie' : `${hand(d.winner)} wins`;
      return `${result}: Player ${d.player.total} [${d.player.cards.join(' ')}], Banker ${d.banker.total} [${d.banker.cards.join(' ')}]`;
    }
    case 'RoundSettled': {
      const t = event.data.totals;
      return `settled ${event.data.lines.length} bet(s): staked ${t.staked}, paid out ${t.paidOut}, commission ${t.commission}`;
    }
    case 'BetsRefunded':
      return `refunded ${event.data.lines.length} bet(s) (${event.data.reason}): ${event.data.lines.reduce((sum, line) => sum + line.amount, 0)}`;
    case 'RoundVoided':
      return `round voided: ${event.data.reason}`;
    default:
      return (event as { type: string }).type;
  }
}

function describeShoe(event: ShoeEvent): string {
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
      return `card at position ${event.data.position} of ${event.data.roundId} corrected from ${event.data.previous} to ${event.data.card}: ${event.data.reason}`;
    case 'CutCardReached':
      return `cut card out at position ${event.data.position} in round ${event.data.roundNumber}; last round ${event.data.lastRoundNumber}`;
    case 'ShoeClosed':
      return `shoe closed (${event.data.reason}) after ${event.data.roundsDealt} round(s)${event.data.seed === null ? '' : ', seed revealed'}; digest ${event.data.digest.value.slice(0, 12)}…`;
  }
}

function describeWallet(event: WalletEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'FundsDeposited':
      return `${d.playerId} deposited ${event.data.amount} ${event.data.currency}`;
    case 'FundsWithdrawn':
      return `${d.playerId} withdrew ${event.data.amount}`;
    case 'StakeDebited':
      return `${d.playerId} debited ${event.data.amount} for bet ${event.data.betId}`;
    case 'PayoutCredited':
      return `${d.playerId} credited ${event.data.amount} for bet ${event.data.betId} (${event.data.result})`;
    case 'StakeRefunded':
      return `${d.playerId} refunded ${event.data.amount} for bet ${event.data.betId} (${event.data.reason})`;
    case 'CommissionAccrued':
      return `${d.playerId} owes ${event.data.amount} commission at seat ${event.data.seat}`;
    case 'CommissionCollected':
      return `${d.playerId} paid ${event.data.amount} commission owed at ${event.data.tableId}`;
    default:
      return (event as { type: string }).type;
  }
}

function describeTable(event: TableEvent): string {
  switch (event.type) {
    case 'TableOpened':
      return `table opened: ${event.data.config.name} (${event.data.config.preset ?? 'custom'}), ${event.data.dealing.mode} dealing`;
    case 'DealerChanged':
      return `dealer ${event.data.previousDealerId ?? '(none)'} replaced by ${event.data.dealerId}`;
    case 'TableClosed':
      return `table closed: ${event.data.reason}`;
  }
}

/** One line saying what an event records, in the game's words; its type if it cannot be read. */
export function describeEvent(recorded: RecordedEvent): string {
  const input = { type: recorded.type, data: recorded.data };
  const prefix = recorded.stream.slice(0, recorded.stream.indexOf('-') + 1);
  switch (prefix) {
    case 'round-': {
      const parsed = roundEventSchema.safeParse(input);
      if (parsed.success) return describeRound(parsed.data);
      break;
    }
    case 'shoe-': {
      const parsed = shoeEventSchema.safeParse(input);
      if (parsed.success) return describeShoe(parsed.data);
      break;
    }
    case 'wallet-': {
      const parsed = walletEventSchema.safeParse(input);
      if (parsed.success) return describeWallet(parsed.data);
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
        const { reason, method, path, ip } = parsed.data.data;
        return `failed login from ${ip}: ${reason} (${method} ${path})`;
      }
      break;
    }
  }
  return recorded.type;
}
