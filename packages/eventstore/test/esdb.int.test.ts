import { findEventStoreDb } from '@croupier/testkit';
import { afterAll, describe, it } from 'vitest';
import { createEventStore } from '../src/index.js';
import { eventStoreContract } from './contract.js';

// EVENTSTORE_URL, else a container when a runtime exists; else the suite is reported as skipped
// with the reason, never silently passed.
const server = await findEventStoreDb();

if (server.available) {
  afterAll(() => server.stop());
  eventStoreContract({
    name: `esdb (${server.source})`,
    open: () =>
      createEventStore({
        kind: 'esdb',
        connectionString: server.connectionString,
        subscriptions: { lockRetryMs: 200 },
      }),
    detectsDuplicateIdsAcrossStreams: false,
    checkpointsFilteredEvents: false,
    handlesStreamsConcurrently: false,
  });
} else {
  console.warn(`[eventstore] esdb contract suite skipped: ${server.reason}`);
  describe.skip(`esdb contract — skipped: ${server.reason}`, () => {
    it('runs the EventStore contract suite against EventStoreDB/KurrentDB', () => undefined);
  });
}
