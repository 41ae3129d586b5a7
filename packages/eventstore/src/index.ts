export type {
  AppendOptions,
  AppendResult,
  EventFilter,
  EventStore,
  ExpectedVersion,
  LogHead,
  NewEvent,
  ReadAllOptions,
  ReadDirection,
  ReadStreamOptions,
  RecordedEvent,
  StreamState,
  StreamVerification,
  SubscribeOptions,
  Subscription,
  SubscriptionStart,
} from './port.js';
export {
  CanonicalJsonError,
  DuplicateEventIdError,
  EventStoreClosedError,
  EventStoreError,
  EventValidationError,
  StreamNameError,
  SubscriptionOwnershipLostError,
  SubscriptionStoppedError,
  UnstorableTextError,
  WrongExpectedVersionError,
} from './errors.js';
export { canonicalJson } from './canonical-json.js';
export {
  chainContent,
  chainHash,
  GENESIS_HASH,
  verifyChain,
  type ChainedContent,
  type StreamHead,
} from './hash-chain.js';
export { decodePosition, encodePosition } from './position.js';
export { backoffs, WakeSignal, type Backoff } from './backoff.js';
export { LogHeldBackError, untilReadable } from './readable.js';
export { MAX_STREAM_NAME_LENGTH } from './validation.js';
export { createEventStore, type EventStoreConfig } from './factory.js';
export { MemoryEventStore } from './memory/memory-event-store.js';
export { DEFAULT_SCHEMA } from './sql/schema-name.js';
export { MIGRATIONS, type Migration } from './sql/migrations.js';
export type { SqlSubscriptionTuning } from './sql/sql-subscription.js';
export type { GroupAppendTuning } from './sql/group-append.js';
export type { EsdbTuning } from './esdb/esdb-event-store.js';
export {
  ProjectionOwnershipLostError,
  ProjectionStorageError,
  validateModelName,
  type Document,
  type DocumentWrite,
  type LeaseSignals,
  type ListOptions,
  type ModelCommit,
  type ModelSlot,
  type ModelState,
  type ProjectionLease,
  type ProjectionStorage,
  type StoredDocument,
} from './projections/projection-storage.js';
export { MemoryProjectionStorage } from './projections/memory-projection-storage.js';
export { PROJECTION_MIGRATIONS } from './projections/sql-projection-storage.js';
export {
  openProjectionDatabase,
  openProjectionStorage,
  type ProjectionDatabase,
} from './projections/open-projection-storage.js';
export type { Snapshot, SnapshotStorage } from './snapshots/snapshot-storage.js';
export { MemorySnapshotStorage } from './snapshots/memory-snapshot-storage.js';
export { SNAPSHOT_MIGRATIONS, SqlSnapshotStorage } from './snapshots/sql-snapshot-storage.js';
export { openSnapshotStorage } from './snapshots/open-snapshot-storage.js';
