import { containerRuntimeAvailable } from './container-runtime.js';

/** An EventStoreDB/KurrentDB server for the esdb adapter's contract suite, or why there is none. */
export type EventStoreDbServer =
  | {
      readonly available: true;
      readonly connectionString: string;
      readonly source: 'env' | 'container';
      stop(): Promise<void>;
    }
  | { readonly available: false; readonly reason: string };

/** The image the contract suite starts when a container runtime exists. */
export const EVENTSTOREDB_IMAGE = 'eventstore/eventstore:24.10';

/**
 * `EVENTSTORE_URL` first, then a single-node insecure EventStoreDB in a container when a runtime
 * exists; otherwise `{available: false, reason}` so the suite is reported as skipped with it.
 */
export async function findEventStoreDb(): Promise<EventStoreDbServer> {
  const fromEnv = process.env['EVENTSTORE_URL'];
  if (fromEnv) {
    return {
      available: true,
      connectionString: fromEnv,
      source: 'env',
      stop: () => Promise.resolve(),
    };
  }
  const runtime = await containerRuntimeAvailable();
  if (!runtime.available) {
    return { available: false, reason: `no EVENTSTORE_URL and ${runtime.reason}` };
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(EVENTSTOREDB_IMAGE)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_MEM_DB: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
      EVENTSTORE_ENABLE_ATOM_PUB_OVER_HTTP: 'true',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .start();
  return {
    available: true,
    connectionString: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    source: 'container',
    stop: async () => {
      await container.stop();
    },
  };
}
