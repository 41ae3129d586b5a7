import { MemoryEventStore } from '@croupier/eventstore';
import { projectionRunnerSuite } from './projection-runner.suite.js';

projectionRunnerSuite('memory', async () => {
  const store = new MemoryEventStore();
  return { store, storage: await store.openProjectionStorage(), close: () => store.close() };
});
