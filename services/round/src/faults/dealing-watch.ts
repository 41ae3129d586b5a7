import type { DocumentSet, DurableProjection } from '@croupier/application';
import { nextCardRecipient, type Card, type Hand } from '@croupier/baccarat';
import { roundEventSchema, type CardSource, parseRecorded } from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

/**
 * Where a round stands for the fault watchdog (the seed's fault policy, 000): waiting for a card
 * since when, or paused since when and why. One document per round not yet finished, with the
 * store's recorded times: the deadlines are derived from the log, so a restart, a rebuild or
 * another process finds the same ones (docs/adr/0004).
 */
export interface WatchedRound {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly cardSource: CardSource;
  readonly status: 'betting' | 'closed' | 'dealing' | 'dealt';
  readonly cards: readonly {
    readonly hand: Hand;
    readonly card: Card;
    readonly position: number;
  }[];
  readonly paused: boolean;
  /** RoundPaused events so far (the decider counts them the same way). */
  readonly pauses: number;
  /** When it began waiting for its next card (betting closed, a card, a resume), ms. */
  readonly waitingSince: number | null;
  readonly pausedAt: number | null;
  readonly pauseReason: string | null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * DealStarted is not watched: a round waits for its first card from the close of betting (or
 * its resume), whether its deal has started or not.
 */
const WATCHED_TYPES = [
  'RoundOpened',
  'BettingClosed',
  'CardDealt',
  'CardCorrected',
  'RoundPaused',
  'RoundResumed',
  'RoundCompleted',
  'RoundVoided',
] as const;
const WATCHED = new Set<string>(WATCHED_TYPES);

/** The lists the watchdog reads: rounds waiting for a card, paused rounds, the rest. */
type Partition = 'waiting' | 'paused' | 'idle';

function partitionOf(round: WatchedRound): { partition: Partition; sort: bigint | null } {
  if (round.paused) return { partition: 'paused', sort: BigInt(round.pausedAt ?? 0) };
  if ((round.status === 'closed' || round.status === 'dealing') && round.waitingSince !== null)
    return { partition: 'waiting', sort: BigInt(round.waitingSince) };
  return { partition: 'idle', sort: null };
}

function statusOf(cards: WatchedRound['cards']): WatchedRound['status'] {
  const of = (hand: Hand) => cards.filter((c) => c.hand === hand).map((c) => c.card);
  return nextCardRecipient(of('player'), of('banker')) === null ? 'dealt' : 'dealing';
}

/**
 * The rounds a fault may be holding up: a durable read model (docs/adr/0023) kept by one process
 * and read by every watchdog. Finished rounds leave it.
 */
export class DealingWatch implements DurableProjection<WatchedRound> {
  readonly name = 'dealing-watch';
  readonly handles = WATCHED_TYPES;

  constructor(
    private readonly storage: ProjectionStorage,
    private readonly clock: () => number = Date.now,
  ) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!event.stream.startsWith('round-') || !WATCHED.has(event.type)) return [];
    const data = event.data as { roundId?: unknown };
    return typeof data.roundId === 'string' ? [data.roundId] : [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<WatchedRound>): void {
    const [roundId] = this.keysOf(event);
    if (roundId === undefined) return;
    const parsed = parseRecorded(roundEventSchema, event);
    const at = event.recordedAt.getTime();
    if (parsed.type === 'RoundOpened') {
      const d = parsed.data;
      this.put(docs, {
        roundId,
        tableId: d.tableId,
        shoeId: d.shoeId,
        cardSource: d.cardSource,
        status: 'betting',
        cards: [],
        paused: false,
        pauses: 0,
        waitingSince: null,
        pausedAt: null,
        pauseReason: null,
      });
      return;
    }
    if (parsed.type === 'RoundCompleted' || parsed.type === 'RoundVoided') {
      docs.delete(roundId);
      return;
    }
    const found = docs.get(roundId);
    if (found === undefined) return;
    const round: Mutable<WatchedRound> = { ...found };
    switch (parsed.type) {
      case 'BettingClosed':
        round.status = 'closed';
        round.waitingSince = at;
        break;
      case 'CardDealt':
        round.cards = [
          ...round.cards,
          { hand: parsed.data.hand, card: parsed.data.card, position: parsed.data.shoePosition },
        ];
        round.status = statusOf(round.cards);
        round.waitingSince = at;
        break;
      case 'CardCorrected': {
        const { shoePosition, card } = parsed.data;
        round.cards = round.cards.map((c) => (c.position === shoePosition ? { ...c, card } : c));
        round.status = statusOf(round.cards);
        break;
      }
      case 'RoundPaused':
        round.paused = true;
        round.pauses += 1;
        round.pausedAt = at;
        round.pauseReason = parsed.data.reason;
        break;
      case 'RoundResumed':
        round.paused = false;
        round.pausedAt = null;
        round.pauseReason = null;
        // The clock of a stall starts again when play does.
        if (round.status === 'closed' || round.status === 'dealing') round.waitingSince = at;
        break;
      default:
        return;
    }
    this.put(docs, round);
  }

  private put(docs: DocumentSet<WatchedRound>, round: WatchedRound): void {
    docs.put(round.roundId, round, partitionOf(round));
  }

  /** Rounds that have waited for a card at least `limitMs`, longest first. */
  async stalled(limitMs: number): Promise<WatchedRound[]> {
    return this.due('waiting', limitMs);
  }

  /** Rounds paused for at least `limitMs`, longest first. */
  async pausedFor(limitMs: number): Promise<WatchedRound[]> {
    return this.due('paused', limitMs);
  }

  /** Every paused round, longest paused first: what supervisors are shown. */
  async paused(): Promise<WatchedRound[]> {
    const rows = await this.storage.list(this.name, { partition: 'paused' });
    return rows.map((row) => row.doc as WatchedRound);
  }

  /** When the round longest waiting for a card began waiting (ms), or null when none waits. */
  async longestWaitingSince(): Promise<number | null> {
    const [row] = await this.storage.list(this.name, { partition: 'waiting', limit: 1 });
    return (row?.doc as WatchedRound | undefined)?.waitingSince ?? null;
  }

  /** When the round longest paused was paused (ms), or null when none is. */
  async longestPausedAt(): Promise<number | null> {
    const [row] = await this.storage.list(this.name, { partition: 'paused', limit: 1 });
    return (row?.doc as WatchedRound | undefined)?.pausedAt ?? null;
  }

  private async due(partition: Partition, limitMs: number): Promise<WatchedRound[]> {
    const rows = await this.storage.list(this.name, {
      partition,
      sortAtMost: BigInt(this.clock() - limitMs),
    });
    return rows.map((row) => row.doc as WatchedRound);
  }

  /** A round's entry, while it is not finished. */
  async get(roundId: string): Promise<WatchedRound | undefined> {
    return (await this.storage.get(this.name, roundId)) as WatchedRound | undefined;
  }
}
