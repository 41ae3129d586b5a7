import { ParkedMessages, type DurableProjection } from '@croupier/application';
import { EVENT_TYPES, presetConfig } from '@croupier/contracts';
import { MemoryEventStore, type RecordedEvent } from '@croupier/eventstore';
import { DealingWatch, PendingDebits, SeatLedger, TableBoard } from '@croupier/round';
import { GameFigures } from '@croupier/runtime';
import { CommissionLedger, OperatorCallLedger, PendingOperatorCalls } from '@croupier/wallet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PlayerHistory } from '../src/player-history.js';
import { SignificantEventIndex } from '../src/significant-event-index.js';
import { ActiveSessions } from '../src/floor/active-sessions.js';
import { FloorFigures } from '../src/floor/floor-figures.js';
import { as, placeBetsAs, playShoe, startCasino, type Casino } from './support/casino.js';

/**
 * Each read model's `handles` against what its `keysOf` does with the events of a whole shoe
 * played through the services (bets, clears, a void and its refunds, settlement), then a dealer
 * change, a round paused, resumed and voided, the next shoe closed early and the table closed (with its open round): the runner
 * gives a model only the types it declares, so a type it keys and leaves out would be lost, and a
 * type it declares and never keys would say it reads what it does not. Types the play does not
 * reach (seamless calls, parked messages, corrections, commission) are held only by the type
 * system here, and by each model's own tests.
 */
let casino: Casino;
let log: RecordedEvent[];
let models: DurableProjection<unknown, string>[];

beforeAll(async () => {
  casino = await startCasino();
  const { tableId, nextRoundId } = await playShoe(casino.system, 'declared', {
    voidRounds: [2],
    clearRounds: [3],
  });
  const operator = as('olga', 'operator');
  // A player's session (003), played a round and closed: the floor's session list reads it.
  const alice = as('alice', 'player');
  await casino.system.rounds.openSession(
    {
      sessionId: 's-declared',
      config: presetConfig('touch'),
      session: { ownerId: 'alice', idleTimeoutMs: 60_000 },
    },
    alice,
  );
  const { round: sessionRound } = await casino.system.rounds.sessionRound('s-declared', alice);
  await placeBetsAs(casino.system, sessionRound.roundId, 'alice', [{ type: 'tie', amount: 100 }]);
  await casino.system.rounds.clearBets(sessionRound.roundId, 'alice', alice);
  await placeBetsAs(casino.system, sessionRound.roundId, 'alice', [
    { type: 'player', amount: 100 },
  ]);
  await casino.system.rounds.dealAsPlayer(sessionRound.roundId, 'alice', 0, alice);
  // The next round takes a bet and is voided when the session closes.
  const next = await vi.waitFor(() => casino.system.rounds.sessionRound('s-declared', alice));
  await placeBetsAs(casino.system, next.round.roundId, 'alice', [{ type: 'banker', amount: 100 }]);
  await vi.waitFor(async () => {
    if ((await casino.system.rounds.closeSessionStep('s-declared', 'done', alice)) !== 'closed')
      throw new Error('the session is settling');
  });
  await casino.system.rounds.changeDealer(tableId, 'dora', operator);
  const supervisor = as('sue', 'supervisor');
  await casino.system.rounds.pause(nextRoundId, 'table camera offline', supervisor);
  await casino.system.rounds.resume(nextRoundId, supervisor);
  await casino.system.rounds.void(nextRoundId, 'shoe withdrawn', supervisor);
  await casino.system.rounds.closeCurrentShoe(tableId, operator);
  await casino.system.rounds.closeTable(tableId, 'end of the night', operator);
  log = await casino.store.readAll();
  const storage = await new MemoryEventStore().openProjectionStorage();
  models = [
    new TableBoard(storage),
    new PlayerHistory(storage),
    new SignificantEventIndex(storage),
    new CommissionLedger(storage),
    new PendingDebits(storage),
    new DealingWatch(storage),
    new SeatLedger(storage),
    new GameFigures(storage),
    new ParkedMessages(storage),
    new PendingOperatorCalls(storage),
    new OperatorCallLedger(storage),
    new ActiveSessions(storage),
    new FloorFigures(storage),
  ] as DurableProjection<unknown, string>[];
}, 120_000);
afterAll(() => casino.close());

describe('read models declare the event types they handle', () => {
  it('checks every model the process runs', () => {
    const checked = models.map((model) => model.name);
    const run = casino.system.readModels.status().map((status) => status.name);
    expect(run.filter((name) => !checked.includes(name))).toEqual([]);
  });

  it('declares only types of the log', () => {
    const known = new Set<string>(EVENT_TYPES);
    for (const model of models)
      expect(
        model.handles.filter((type) => !known.has(type)),
        model.name,
      ).toEqual([]);
  });

  it('names no key for an event of a type it does not declare', () => {
    for (const model of models) {
      const undeclared = new Set(
        log
          .filter((event) => !model.handles.includes(event.type))
          .filter((event) => model.keysOf(event).length > 0)
          .map((event) => event.type),
      );
      expect([...undeclared], model.name).toEqual([]);
    }
  });

  it('names a key for some event of each type it declares that the log holds', () => {
    const played = new Set(log.map((event) => event.type));
    for (const model of models) {
      const keyed = new Set(
        log.filter((event) => model.keysOf(event).length > 0).map((event) => event.type),
      );
      expect(
        model.handles.filter((type) => played.has(type) && !keyed.has(type)),
        model.name,
      ).toEqual([]);
    }
  });
});
