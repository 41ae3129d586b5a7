import { WalletBalances, type WalletBalance } from '@croupier/audit';
import { ProjectionRunner } from '@croupier/application';
import { MemoryProjectionStorage, type EventStore, type RecordedEvent } from '@croupier/eventstore';
import { TableBoard, type TableView } from '@croupier/round';
import type { Roads } from '@croupier/baccarat';
import { PlayerHistory, type HistoryRecord } from './player-history.js';

/** The read models `casino rebuild` can rebuild from the log, by name. */
export const REBUILDABLE_PROJECTIONS = [
  'table-board',
  'player-history',
  'wallet-balances',
] as const;
export type RebuildableProjection = (typeof REBUILDABLE_PROJECTIONS)[number];

export interface RebuiltProjections {
  readonly board: TableBoard | null;
  readonly history: PlayerHistory | null;
  readonly balances: WalletBalances | null;
  /** Every player with a wallet stream, in the order first seen. */
  readonly players: readonly string[];
  readonly events: number;
  /** Position of the last event replayed. */
  readonly position: bigint | null;
  /** Events a projection could not apply (the log is replayed on regardless). */
  readonly failures: readonly {
    projection: string;
    stream: string;
    revision: string;
    error: string;
  }[];
}

const PAGE = 1000;

/**
 * Rebuilds read models from nothing but the event log: fresh projections, every event replayed
 * into them in global order. Projections are disposable; this is how they are made again.
 */
export async function rebuildProjections(
  store: EventStore,
  names: readonly RebuildableProjection[] = REBUILDABLE_PROJECTIONS,
  onProgress?: (events: number) => void,
): Promise<RebuiltProjections> {
  const balances = names.includes('wallet-balances') ? new WalletBalances() : null;
  const projections = [balances].filter((p) => p !== null);
  // Durable read models are rebuilt into storage of their own, here in memory, by the runner
  // that runs them live: what they show is what the live ones would.
  const storage = new MemoryProjectionStorage();
  const runner = new ProjectionRunner(store, storage, { pollIntervalMs: 60_000 });
  const board = names.includes('table-board') ? runner.register(new TableBoard(storage)) : null;
  const history = names.includes('player-history')
    ? runner.register(new PlayerHistory(storage))
    : null;
  if (board !== null || history !== null) {
    await runner.start();
    await runner.stop();
    const stopped = runner.status().find((status) => status.stopped !== null);
    if (stopped) throw new Error(stopped.stopped!);
  }
  const players = new Set<string>();
  const failures: { projection: string; stream: string; revision: string; error: string }[] = [];
  let events = 0;
  let after: bigint | undefined;
  for (;;) {
    const page: RecordedEvent[] = await store.readAll({
      ...(after === undefined ? {} : { after }),
      limit: PAGE,
    });
    for (const event of page) {
      if (event.stream.startsWith('wallet-')) players.add(event.stream.slice('wallet-'.length));
      for (const projection of projections) {
        try {
          projection.apply(event);
        } catch (error) {
          failures.push({
            projection: projection.name,
            stream: event.stream,
            revision: String(event.revision),
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
      after = event.position;
    }
    events += page.length;
    onProgress?.(events);
    if (page.length < PAGE) break;
  }
  return {
    board,
    history,
    balances,
    players: [...players],
    events,
    position: after ?? null,
    failures,
  };
}

/** What the read models show, in a form two rebuilds (or a rebuild and the live ones) compare by. */
export interface ProjectionSnapshot {
  readonly tables: readonly TableView[] | null;
  readonly roads: Readonly<Record<string, Roads | undefined>> | null;
  readonly histories: Readonly<Record<string, HistoryRecord[]>> | null;
  readonly balances: readonly WalletBalance[] | null;
}

export async function snapshotOf(
  models: {
    board?: TableBoard | null;
    history?: PlayerHistory | null;
    balances?: WalletBalances | null;
  },
  players: readonly string[],
): Promise<ProjectionSnapshot> {
  const { board, history, balances } = models;
  const sorted = [...players].sort();
  const tables = board ? await board.list() : null;
  const roads: Record<string, Roads | undefined> = {};
  for (const table of tables ?? []) roads[table.tableId] = await board!.roads(table.tableId);
  return {
    tables,
    roads: board ? roads : null,
    histories: history
      ? Object.fromEntries(
          await Promise.all(
            sorted.map(async (player) => [player, await history.history(player, 100)] as const),
          ),
        )
      : null,
    balances: balances ? balances.list() : null,
  };
}
