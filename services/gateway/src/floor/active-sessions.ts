import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  parseRoundId,
  roundEventSchema,
  tableEventSchema,
  parseRecorded,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

/** A player's session (003, 004) in play, as the floor sees it. */
export interface ActiveSession {
  readonly sessionId: string;
  readonly playerId: string;
  /** The preset it was opened from: the game (`touch`, `single-deck`). */
  readonly game: string | null;
  readonly mode: 'real' | 'fun';
  readonly currency: string;
  readonly openedAt: string;
  /** The latest command of its player (the idle clock's start), ISO time as the store recorded it. */
  readonly lastActivityAt: string;
  /** Rounds dealt to a result. */
  readonly rounds: number;
  /** Stakes of its settled bets plus those standing on the round in play, minor units. */
  readonly staked: number;
  /** What its settled bets returned to the player (payouts, pushes), minor units. */
  readonly returned: number;
  readonly currentRound: { readonly roundId: string; readonly status: string } | null;
}

interface SessionDocument {
  readonly view: ActiveSession;
  /** The bets standing on the round in play, by id: their stakes, until it settles or voids. */
  readonly standing: Readonly<Record<string, number>>;
  /** Position of its TableOpened, as decimal text (jsonb holds no bigint): the list's order. */
  readonly openedPosition: string;
}

const ACTIVE = 'active';
/** Only session tables have ids starting `s-` (POST /v1/tables refuses them). */
const isSession = (tableId: string) => tableId.startsWith('s-');

/**
 * The sessions open now, for staff (issue 26): single-player tables are not on the floor's
 * `/v1/tables`, so without this nobody sees who plays them. A durable read model (ADR 0023): a
 * document per open session in partition `active`, sorted by where it opened, deleted when the
 * session closes, so the list is one index read of what is open, whatever the history.
 */
export class ActiveSessions implements DurableProjection<SessionDocument> {
  readonly name = 'active-sessions';
  readonly handles = [
    'TableOpened',
    'TableClosed',
    'RoundOpened',
    'BetPlaced',
    'BetsCleared',
    'BettingClosed',
    'CardDealt',
    'RoundCompleted',
    'RoundSettled',
    'RoundVoided',
  ] as const;

  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!(this.handles as readonly string[]).includes(event.type)) return [];
    const tableId = event.stream.startsWith('table-')
      ? parseRecorded(tableEventSchema, event).data.tableId
      : event.stream.startsWith('round-')
        ? parseRoundId(parseRecorded(roundEventSchema, event).data.roundId).tableId
        : null;
    return tableId !== null && isSession(tableId) ? [tableId] : [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<SessionDocument>): void {
    const [sessionId] = this.keysOf(event);
    if (sessionId === undefined) return;
    const at = event.recordedAt.toISOString();
    if (event.stream.startsWith('table-')) {
      const parsed = parseRecorded(tableEventSchema, event);
      if (parsed.type === 'TableClosed') docs.delete(sessionId);
      if (parsed.type !== 'TableOpened' || parsed.data.session === undefined) return;
      const view: ActiveSession = {
        sessionId,
        playerId: parsed.data.session.ownerId,
        game: parsed.data.config.preset ?? null,
        mode: parsed.data.session.fun === true ? 'fun' : 'real',
        currency: parsed.data.config.currency,
        openedAt: at,
        lastActivityAt: at,
        rounds: 0,
        staked: 0,
        returned: 0,
        currentRound: null,
      };
      docs.put(
        sessionId,
        { view, standing: {}, openedPosition: event.position.toString() },
        { partition: ACTIVE, sort: event.position },
      );
      return;
    }
    const doc = docs.get(sessionId);
    if (doc === undefined) return;
    const parsed = parseRecorded(roundEventSchema, event);
    let view = doc.view;
    let standing = doc.standing;
    // The idle sweep and settlement act as the system: no activity of the player's.
    if ((event.metadata.actor as { role?: string } | undefined)?.role !== 'system')
      view = { ...view, lastActivityAt: at };
    const status = (next: string) =>
      view.currentRound === null ? null : { ...view.currentRound, status: next };
    switch (parsed.type) {
      case 'RoundOpened':
        view = { ...view, currentRound: { roundId: parsed.data.roundId, status: 'betting' } };
        standing = {};
        break;
      case 'BetPlaced':
        standing = { ...standing, [parsed.data.betId]: parsed.data.amount };
        break;
      case 'BetsCleared':
        standing = Object.fromEntries(
          Object.entries(standing).filter(([betId]) => !parsed.data.betIds.includes(betId)),
        );
        break;
      case 'BettingClosed':
        view = { ...view, currentRound: status('closed') };
        break;
      case 'CardDealt':
        view = { ...view, currentRound: status('dealing') };
        break;
      case 'RoundCompleted':
        view = { ...view, rounds: view.rounds + 1, currentRound: status('completed') };
        break;
      case 'RoundSettled':
        view = {
          ...view,
          staked: view.staked + parsed.data.totals.staked,
          returned: view.returned + parsed.data.totals.paidOut,
          currentRound: status('settled'),
        };
        standing = {};
        break;
      case 'RoundVoided':
        view = { ...view, currentRound: status('voided') };
        standing = {};
        break;
      default:
        return;
    }
    docs.put(
      sessionId,
      { view, standing, openedPosition: doc.openedPosition },
      { partition: ACTIVE, sort: BigInt(doc.openedPosition) },
    );
  }

  /** The sessions open now, oldest first; `staked` counts the bets standing on the round in play. */
  async list(): Promise<ActiveSession[]> {
    const rows = await this.storage.list(this.name, { partition: ACTIVE });
    return rows.map((row) => {
      const { view, standing } = row.doc as SessionDocument;
      const open = Object.values(standing).reduce((sum, amount) => sum + amount, 0);
      return { ...view, staked: view.staked + open };
    });
  }
}
