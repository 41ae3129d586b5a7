export { containerRuntimeAvailable, type ContainerRuntimeStatus } from './container-runtime.js';
export {
  findPostgres,
  isolatedPostgres,
  LOCAL_POSTGRES_URL,
  probePostgres,
  uniqueSchemaName,
  withClient,
  type IsolatedPostgres,
  type PostgresServer,
} from './postgres.js';
export {
  deleteByPrefix,
  findRedis,
  isolatedRedisPrefix,
  LOCAL_REDIS_URL,
  probeRedis,
  type IsolatedRedisPrefix,
  type RedisServer,
} from './redis.js';
export { EVENTSTOREDB_IMAGE, findEventStoreDb, type EventStoreDbServer } from './eventstoredb.js';
export {
  deciderSpecification,
  type DeciderLike,
  type DeciderSpecification,
  type ExpectedError,
  type GivenClause,
  type WhenClause,
} from './decider-specification.js';
