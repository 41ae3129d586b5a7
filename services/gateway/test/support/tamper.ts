import type { Finding, RoundEvidence, ShoeEvidence, Verdict } from '@croupier/audit';
import { chainHash, GENESIS_HASH, type RecordedEvent } from '@croupier/eventstore';

/** A deep copy of evidence, so each tampering starts from the untouched record. */
export function copyShoe(evidence: ShoeEvidence): ShoeEvidence {
  return {
    shoeId: evidence.shoeId,
    shoe: evidence.shoe.map(copyEvent),
    rounds: evidence.rounds.map(({ roundId, events }) => ({
      roundId,
      events: events.map(copyEvent),
    })),
    wallet: (evidence.wallet ?? []).map(copyEvent),
  };
}

export function copyRound(evidence: RoundEvidence): RoundEvidence {
  return {
    roundId: evidence.roundId,
    round: evidence.round.map(copyEvent),
    shoe: evidence.shoe?.map(copyEvent) ?? null,
    wallet: evidence.wallet?.map(copyEvent) ?? null,
  };
}

export function copyEvent(event: RecordedEvent): RecordedEvent {
  return {
    ...event,
    data: structuredClone(event.data),
    metadata: structuredClone(event.metadata),
  };
}

/** Edits an event's data in place. */
export function editData(
  event: RecordedEvent,
  edit: (data: Record<string, unknown>) => void,
): void {
  edit(event.data as Record<string, unknown>);
}

/**
 * What an insider who can write the database would do to hide an edit: recompute every hash of
 * the stream from the genesis on, so the chain verifies again. Revisions are renumbered 0..n-1.
 */
export function rechain(events: RecordedEvent[]): RecordedEvent[] {
  let prevHash = GENESIS_HASH;
  return events.map((event, index) => {
    const metadata: Record<string, unknown> = { ...event.metadata, prevHash };
    delete metadata['hash'];
    const hash = chainHash(prevHash, { type: event.type, data: event.data, metadata });
    prevHash = hash;
    return { ...event, revision: BigInt(index), metadata: { ...metadata, hash } };
  });
}

/** The findings of a verdict, as `check/CODE stream@revision` for readable assertions. */
export function named(verdict: Verdict): string[] {
  return verdict.findings.map(describe);
}

export function describe(finding: Finding): string {
  return `${finding.check}/${finding.code} ${finding.stream ?? '-'}@${finding.revision ?? '-'}`;
}

/** The first event of a type in a stream (and its index). */
export function find(
  events: readonly RecordedEvent[],
  type: string,
  where: (event: RecordedEvent) => boolean = () => true,
): { event: RecordedEvent; index: number } {
  const index = events.findIndex((event) => event.type === type && where(event));
  if (index < 0) throw new Error(`no ${type} found`);
  return { event: events[index]!, index };
}
