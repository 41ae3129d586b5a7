import type { RecordedEvent } from '../port.js';
import { encodePosition } from '../position.js';
import { int8 } from './driver.js';
import type { EventRow } from './statements.js';

/**
 * The log position of a row's (transaction_id, sequence) as the driver returns them: the xid8 as
 * text, the sequence as a number, bigint or text (PGlite and pg differ).
 */
export function positionOf(transactionId: string, sequence: unknown): bigint {
  return encodePosition(BigInt(transactionId), int8(sequence));
}

/** Turns a driver row into the port's event: every int8/xid8 becomes a bigint here. */
export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    stream: row.stream_name,
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    revision: int8(row.stream_revision),
    position: positionOf(row.transaction_id, row.sequence),
    recordedAt: row.recorded_at instanceof Date ? row.recorded_at : new Date(row.recorded_at),
  };
}
