import { ParkedMessages, type DurableProjection } from '@croupier/application';
import { EVENT_TYPES } from '@croupier/contracts';
import { MemoryEventStore, type RecordedEvent } from '@croupier/eventstore';
import { DealingWatch, PendingDebits, TableBoard } from '@croupier/round';
import { GameFigures } from '@croupier/runtime';
import { CommissionLedger, OperatorCallLedger, PendingOperatorCalls } from '@croupier/wallet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlayerHistory } from '../src/player-history.js';
import { SignificantEventIndex } from '../src/significant-event-index.js';
import { as, playShoe, startCasino, type Casino } from './support/casino.js';

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
    new GameFigures(storage),
    new ParkedMessages(storage),
    new PendingOperatorCalls(storage),
    new OperatorCallLedger(storage),
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
