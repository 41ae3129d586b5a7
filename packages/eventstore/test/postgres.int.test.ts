import { createEventStore } from '../src/index.js';
import { usePostgresSchema } from '@croupier/testkit/vitest';
import { eventStoreContract } from './contract.js';

const database = usePostgresSchema('es_contract');

eventStoreContract({
  name: 'postgres',
  open: () =>
    createEventStore({
      kind: 'postgres',
      connectionString: database.get().connectionString,
      schema: database.get().schema,
      subscriptions: { lockRetryMs: 200 },
    }),
});
