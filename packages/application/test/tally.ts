import type { RecordedEvent } from '@croupier/eventstore';
import type { DocumentSet, DurableProjection } from '../src/index.js';

/** Per stream: the revisions applied, in order, and their amounts added up. */
export interface Tally {
  readonly revisions: string[];
  readonly total: number;
}

/**
 * A durable projection for tests: one document per stream, listing every revision it applied, so
 * a lost event shows as a gap and a double-applied one as a repeat. Throws on an event whose data
 * says `poison` while `poisoned` is true.
 */
export class TallyProjection implements DurableProjection<Tally, 'Added'> {
  readonly handles = ['Added' as const];
  applied = 0;
  poisoned = true;
  /**
   * `inPlace`: changes the document it gets and puts it back, as the gateway's models do (no
   * copies, ADR 0028), so a runner that hands it a document it changed before shows it.
   */
  constructor(
    readonly name = 'tally',
    readonly inPlace = false,
  ) {}

  keysOf(event: RecordedEvent): readonly string[] {
    return event.type === 'Added' ? [event.stream] : [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<Tally>): void {
    const data = event.data as { amount: number; poison?: boolean };
    const tally = docs.get(event.stream) ?? { revisions: [], total: 0 };
    // Written before it throws: the runner must not keep a failed event's partial change.
    if (this.inPlace) {
      tally.revisions.push(String(event.revision));
      (tally as { total: number }).total += data.amount;
      docs.put(event.stream, tally);
    } else
      docs.put(event.stream, {
        revisions: [...tally.revisions, String(event.revision)],
        total: tally.total + data.amount,
      });
    if (data.poison === true && this.poisoned) throw new Error(`poisoned amount ${data.amount}`);
    this.applied++;
  }
}
