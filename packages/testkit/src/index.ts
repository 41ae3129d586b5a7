export { containerRuntimeAvailable, type ContainerRuntimeStatus } from './container-runtime.js';
export {
  discoverPostgres,
  findPostgres,
  isolatedPostgres,
  LOCAL_POSTGRES_URL,
  probePostgres,
  uniqueSchemaName,
  withClient,
  type DiscoveryOptions,
  type IsolatedPostgres,
  type PostgresServer,
} from './postgres.js';
export { isolatedDatabase, type IsolatedDatabase, type PostgresOutage } from './postgres-outage.js';
export {
  deleteByPrefix,
  discoverRedis,
  findRedis,
  isolatedRedisPrefix,
  LOCAL_REDIS_URL,
  probeRedis,
  type IsolatedRedisPrefix,
  type RedisServer,
} from './redis.js';
export {
  freePort,
  startRedisServer,
  type RedisProcess,
  type RedisProcessOptions,
} from './redis-server.js';
export { EVENTSTOREDB_IMAGE, findEventStoreDb, type EventStoreDbServer } from './eventstoredb.js';
export {
  deciderSpecification,
  type DeciderLike,
  type DeciderSpecification,
  type ExpectedError,
  type GivenClause,
  type WhenClause,
} from './decider-specification.js';
export {
  workflowSpecification,
  type WorkflowLike,
  type WorkflowSpecification,
  type WorkflowWhenClause,
} from './workflow-specification.js';
export { declares, sample } from './prometheus.js';
export { settlementMessage } from './settlement-message.js';
export { startTcpRelay, throughRelay, type TcpRelay } from './tcp-relay.js';
export { nodeEntryArgs } from './node-entry.js';
