import { shoeEventSchema } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { provenanceOf } from './parse.js';
import { tableOfStream, type SignificantEvent } from './significant-events.js';

/**
 * A scanner shoe whose cut card the dealer has not reported yet, and where that card stands: the
 * index of the first card behind it (`ShoeShuffled.cutCardIndex`).
 */
export interface WatchedCutCard {
  readonly cutCardIndex: number;
}

/** The shoe events the watch reads, each from the shoe's own stream. */
export const CUT_CARD_WATCH_TYPES = [
  'ShoeShuffled',
  'CardsDrawn',
  'CutCardReached',
  'ShoeClosed',
] as const;
const WATCHED = new Set<string>(CUT_CARD_WATCH_TYPES);

/** The shoe a watched event is of, or null when the watch does not read it. */
export function cutCardWatchKeyOf(recorded: RecordedEvent): string | null {
  if (!WATCHED.has(recorded.type) || !recorded.stream.startsWith('shoe-')) return null;
  return recorded.stream.slice('shoe-'.length);
}

/**
 * One step of the cut-card watch (ADR 0043): an alert derived from the shoe's own events, never
 * recorded. On a scanner table the dealer reports the physical cut card (`CutCardReached`), and
 * that report alone decides the shoe's last round; a scanned card from behind the cut card
 * (`position >= cutCardIndex`) with no report before it means the report was missed, and the
 * shoe would deal on until it runs out. That card's `CardsDrawn` is then a significant event,
 * category `cut-card-passed`, once per shoe; the watch of the shoe ends there, at the report,
 * or at the shoe's close. An rng shoe places its own cut card and is never watched.
 *
 * `watched`: the shoe's entry before this event (undefined: not watched). Answers the entry after
 * it and the alert, if this event raises one. Deterministic: the significant-events index and the
 * supervision feed take the same steps over the same events and raise the same alerts.
 */
export function cutCardWatchStep(
  watched: WatchedCutCard | undefined,
  recorded: RecordedEvent,
): { watched: WatchedCutCard | undefined; alert: SignificantEvent | null } {
  if (cutCardWatchKeyOf(recorded) === null) return { watched, alert: null };
  const parsed = shoeEventSchema.safeParse({ type: recorded.type, data: recorded.data });
  // A record the audit would refuse raises nothing here: the shoe's replay names it.
  if (!parsed.success) return { watched, alert: null };
  const event = parsed.data;
  switch (event.type) {
    case 'ShoeShuffled': {
      const { cardSource, cutCardIndex } = event.data;
      return {
        watched: cardSource === 'scanner' && cutCardIndex !== null ? { cutCardIndex } : undefined,
        alert: null,
      };
    }
    case 'CutCardReached':
    case 'ShoeClosed':
      return { watched: undefined, alert: null };
    case 'CardsDrawn': {
      if (watched === undefined) return { watched, alert: null };
      const behind = event.data.cards.find((card) => card.position >= watched.cutCardIndex);
      if (behind === undefined) return { watched, alert: null };
      const { actor, occurredAt } = provenanceOf(recorded);
      const { shoeId, roundNumber } = event.data;
      return {
        watched: undefined,
        alert: {
          occurredAt: occurredAt ?? recorded.recordedAt.toISOString(),
          category: 'cut-card-passed',
          type: recorded.type,
          tableId: tableOfStream(recorded.stream),
          playerId: null,
          stream: recorded.stream,
          revision: String(recorded.revision),
          position: String(recorded.position),
          actor,
          summary:
            `scanner shoe ${shoeId} dealt ${behind.card} at position ${behind.position} in round ${roundNumber}, ` +
            `behind its cut card (position ${watched.cutCardIndex} on), and the dealer has not reported the cut card: ` +
            'report it (POST /v1/rounds/:id/cut-card) or the shoe deals on until it runs out',
        },
      };
    }
    default:
      return { watched, alert: null };
  }
}

/**
 * The cut-card watch over events read in the log's order (the supervision feed): the shoes
 * watched, kept while the process runs.
 */
export class CutCardWatch {
  private readonly shoes = new Map<string, WatchedCutCard>();

  /** Takes the event's step; the alert it raises, if any. */
  observe(recorded: RecordedEvent): SignificantEvent | null {
    const shoeId = cutCardWatchKeyOf(recorded);
    if (shoeId === null) return null;
    const { watched, alert } = cutCardWatchStep(this.shoes.get(shoeId), recorded);
    if (watched === undefined) this.shoes.delete(shoeId);
    else this.shoes.set(shoeId, watched);
    return alert;
  }
}
