import { createEventStore, openProjectionStorage } from '@croupier/eventstore';
import { projectionRunnerSuite } from './projection-runner.suite.js';

// A PGlite takes seconds to make here, and its SQL is PostgreSQL's (the whole suite runs there):
// this checks the embedded driver runs it too.
projectionRunnerSuite(
  'PGlite',
  async () => {
    const store = await createEventStore({ kind: 'pglite', dataDir: 'memory://' });
    return { store, storage: await openProjectionStorage(store), close: () => store.close() };
  },
  ['starts caught up', 'stops a model'],
);
