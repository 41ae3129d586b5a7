import {
  isWalletEventOf,
  ROUND_WALLET_EVENT_TYPES,
  type RoundEvidence,
  type ShoeEvidence,
} from '@croupier/audit';
import { parseRoundId, parseShoeId, roundIdOf, streams } from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';

const PAGE = 1000;

/**
 * The wallet events of these rounds: debits, payouts, refunds and accrued commission. They can
 * only follow the rounds' first event, so the global log is read from there, filtered to those
 * event types, which also finds debits whose bet never reached its round.
 */
async function walletEventsOf(
  store: EventStore,
  roundIds: ReadonlySet<string>,
  from: RecordedEvent | undefined,
  ofShoe: string | null = null,
): Promise<RecordedEvent[]> {
  if (from === undefined) return [];
  const found: RecordedEvent[] = [];
  const betIds = new Set<string>();
  let after = from.position > 0n ? from.position - 1n : undefined;
  for (;;) {
    const page = await store.readAll({
      ...(after === undefined ? {} : { after }),
      limit: PAGE,
      filter: { streamPrefix: 'wallet-', eventTypes: [...ROUND_WALLET_EVENT_TYPES] },
    });
    for (const event of page) {
      if (!isWalletEventOf(event, roundIds, betIds) && !namesRoundOf(event, ofShoe)) continue;
      found.push(event);
      const betId = (event.data as { betId?: unknown }).betId;
      if (typeof betId === 'string') betIds.add(betId);
    }
    if (page.length < PAGE) return found;
    after = page.at(-1)!.position;
  }
}

/**
 * Whether a wallet event names a round of this shoe, even one whose stream does not exist:
 * a debit or a payout for a round the record has lost must reach the replay, which names it.
 */
function namesRoundOf(event: RecordedEvent, shoeId: string | null): boolean {
  if (shoeId === null) return false;
  const roundId = (event.data as { roundId?: unknown } | null)?.roundId;
  if (typeof roundId !== 'string' || !roundId.startsWith(`${shoeId}.`)) return false;
  try {
    return parseRoundId(roundId).shoeId === shoeId;
  } catch {
    return false;
  }
}

/**
 * The first event of the table's next shoe, if it was shuffled: a shoe is closed before the
 * next one is, so a shoe without ShoeClosed whose successor exists lost its close.
 */
async function nextShoeOf(store: EventStore, shoeId: string): Promise<RecordedEvent | null> {
  const { tableId, shoeNumber } = parseShoeId(shoeId);
  const [first] = await store.readStream(streams.shoe(`${tableId}.${shoeNumber + 1}`), {
    limit: 1,
  });
  return first ?? null;
}

/** The round ids a shoe stream names: rounds it handed cards to, streams its digest seals. */
function roundsNamedBy(shoe: readonly RecordedEvent[]): string[] {
  const named = new Set<string>();
  for (const event of shoe) {
    const data = event.data as {
      roundId?: unknown;
      digest?: { streams?: { stream?: unknown }[] };
    };
    if (typeof data.roundId === 'string') named.add(data.roundId);
    for (const entry of data.digest?.streams ?? []) {
      if (typeof entry.stream === 'string' && entry.stream.startsWith('round-'))
        named.add(entry.stream.slice('round-'.length));
    }
  }
  return [...named];
}

/** Reads what a round audit needs: the round stream, its shoe stream, its wallet events. */
export async function loadRoundEvidence(
  store: EventStore,
  roundId: string,
): Promise<RoundEvidence | null> {
  const round = await store.readStream(streams.round(roundId));
  const { shoeId } = parseRoundId(roundId);
  const shoe = await store.readStream(streams.shoe(shoeId));
  // A round whose stream is gone is still audited when its shoe names it (it handed it cards,
  // its digest sealed it): the audit says the stream is missing, and shows what is left of it.
  if (round.length === 0 && !roundsNamedBy(shoe).includes(roundId)) return null;
  const wallet = await walletEventsOf(store, new Set([roundId]), round[0] ?? shoe[0]);
  const nextShoe = await nextShoeOf(store, shoeId);
  return { roundId, round, shoe, wallet, nextShoe };
}

/**
 * Reads what a shoe replay needs: the shoe stream, the round streams `shoeId.1`, `shoeId.2`, ...
 * up to the first that does not exist (so a round opened past the last one is read too), and
 * the wallet events of those rounds.
 */
export async function loadShoeEvidence(
  store: EventStore,
  shoeId: string,
  onRound?: (roundsRead: number) => void,
): Promise<ShoeEvidence | null> {
  const shoe = await store.readStream(streams.shoe(shoeId));
  if (shoe.length === 0) return null;
  const rounds: { roundId: string; events: RecordedEvent[] }[] = [];
  for (let number = 1; ; number++) {
    const roundId = roundIdOf(shoeId, number);
    const events = await store.readStream(streams.round(roundId));
    if (events.length === 0) break;
    rounds.push({ roundId, events });
    onRound?.(rounds.length);
  }
  // Rounds the shoe itself names past a missing one (a deleted stream must not hide the rest).
  for (const roundId of roundsNamedBy(shoe)) {
    if (rounds.some((round) => round.roundId === roundId)) continue;
    const events = await store.readStream(streams.round(roundId));
    if (events.length > 0) rounds.push({ roundId, events });
  }
  const wallet = await walletEventsOf(
    store,
    new Set(rounds.map((r) => r.roundId)),
    shoe[0],
    shoeId,
  );
  const nextShoe = await nextShoeOf(store, shoeId);
  return { shoeId, shoe, rounds, wallet, nextShoe };
}
