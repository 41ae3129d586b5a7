import {
  type OperatorWalletEvidence,
  isOperatorWalletEventOf,
  isWalletEventOf,
  ROUND_WALLET_EVENT_TYPES,
  walletEventsByRound,
  type RoundEvidence,
  type ShoeEvidence,
  type WalletEvidence,
} from '@croupier/audit';
import {
  eventTypesOf,
  operatorWalletEventSchema,
  parseRoundId,
  parseShoeId,
  roundIdOf,
  STREAM_PREFIXES,
  streams,
} from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';

const PAGE = 1000;

/**
 * The wallet events of these rounds: debits, payouts, refunds and accrued commission, wherever
 * they stand in the log. The whole wallet stream of every player the rounds name is read, then
 * the whole log filtered to those event types for the movements of players the rounds do not
 * name (a debit whose bet never reached its round, or a movement forged into another wallet). No
 * position floor: a movement placed before its round, which no honest append can produce, is
 * found and named by its position.
 */
async function walletEventsOf(
  store: EventStore,
  roundIds: ReadonlySet<string>,
  rounds: readonly (readonly RecordedEvent[])[],
  ofShoe: string | null = null,
): Promise<RecordedEvent[]> {
  const found = new Map<string, RecordedEvent>();
  const betIds = new Set<string>();
  const keep = (event: RecordedEvent): void => {
    if (!isWalletEventOf(event, roundIds, betIds) && !namesRoundOf(event, ofShoe)) return;
    found.set(event.id, event);
    const betId = (event.data as { betId?: unknown }).betId;
    if (typeof betId === 'string') betIds.add(betId);
  };
  for (const playerId of playersNamedBy(rounds)) {
    // Twice: a movement that names only its bet (commission accrued) is recognised by the debit
    // that names the round, even when it was placed before that debit.
    // Both of the player's wallets: a fun round's money moves in the fun wallet (ADR 0030), and
    // a movement stored in the wrong one is found, and judged, all the same.
    for (const stream of [streams.wallet(playerId), streams.funWallet(playerId)]) {
      const wallet = await store.readStream(stream);
      for (const event of wallet) keep(event);
      for (const event of wallet) keep(event);
    }
  }
  for (const streamPrefix of [STREAM_PREFIXES.wallet, STREAM_PREFIXES.funWallet]) {
    let after: bigint | undefined;
    for (;;) {
      const page = await store.readAll({
        ...(after === undefined ? {} : { after }),
        limit: PAGE,
        filter: { streamPrefix, eventTypes: [...ROUND_WALLET_EVENT_TYPES] },
      });
      for (const event of page) keep(event);
      if (page.length < PAGE) break;
      after = page.at(-1)!.position;
    }
  }
  return [...found.values()].sort((a, b) =>
    a.position < b.position ? -1 : a.position > b.position ? 1 : 0,
  );
}

/** The players whose bets, releases or refunds the round streams record. */
function playersNamedBy(rounds: readonly (readonly RecordedEvent[])[]): Set<string> {
  const players = new Set<string>();
  for (const events of rounds) {
    for (const event of events) {
      const data = event.data as { playerId?: unknown; lines?: unknown; adjustments?: unknown };
      if (typeof data.playerId === 'string') players.add(data.playerId);
      for (const list of [data.lines, data.adjustments]) {
        if (!Array.isArray(list)) continue;
        for (const line of list as { playerId?: unknown }[])
          if (typeof line.playerId === 'string') players.add(line.playerId);
      }
    }
  }
  return players;
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

/**
 * Seamless mode's records of the round (ADR 0026): from the operator-wallet streams of the
 * players the round names, and of those `alsoPlayers` names (a player whose debit was refused or
 * given up has no bet on the round to name them), the events naming the round and the deliveries
 * of its credits and rollbacks. Null when there are none: the round was played in transfer mode,
 * and its stakes are checked against Croupier's own wallet.
 */
async function operatorWalletEventsOf(
  store: EventStore,
  roundId: string,
  round: readonly RecordedEvent[],
  alsoPlayers: readonly string[],
): Promise<RecordedEvent[] | null> {
  const found: RecordedEvent[] = [];
  for (const playerId of new Set([...playersNamedBy([round]), ...alsoPlayers])) {
    const keys = new Set<string>();
    for (const event of await store.readStream(streams.operatorWallet(playerId))) {
      const { key } = event.data as { key?: unknown };
      if (isOperatorWalletEventOf(event, roundId)) {
        found.push(event);
        if (typeof key === 'string') keys.add(key);
      } else if (event.type === 'OperatorCallDelivered' && typeof key === 'string' && keys.has(key))
        found.push(event);
    }
  }
  return found.length === 0 ? null : found;
}

/**
 * Seamless mode's records naming a round of the shoe, from every player's operator-wallet
 * stream: the whole log is read for them, as for Croupier's wallet movements, so a record
 * forged into a player the rounds do not name is found too.
 */
async function operatorWalletEventsOfShoe(
  store: EventStore,
  shoeId: string,
): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  let after: bigint | undefined;
  for (;;) {
    const page = await store.readAll({
      ...(after === undefined ? {} : { after }),
      limit: PAGE,
      filter: {
        streamPrefix: streams.operatorWallet(''),
        eventTypes: eventTypesOf(operatorWalletEventSchema),
      },
    });
    for (const event of page) if (namesRoundOf(event, shoeId)) found.push(event);
    if (page.length < PAGE) break;
    after = page.at(-1)!.position;
  }
  return found;
}

/**
 * Reads what a round audit needs: the round stream, its shoe stream, its wallet events.
 * `playersWithCalls`: the players with calls to the operator's wallet for a round (an index, the
 * gateway's call ledger), so a player the round's stream does not name is audited too.
 */
export async function loadRoundEvidence(
  store: EventStore,
  roundId: string,
  playersWithCalls?: (roundId: string) => Promise<readonly string[]>,
): Promise<RoundEvidence | null> {
  const round = await store.readStream(streams.round(roundId));
  const { shoeId } = parseRoundId(roundId);
  const shoe = await store.readStream(streams.shoe(shoeId));
  // A round whose stream is gone is still audited when its shoe names it (it handed it cards,
  // its digest sealed it): the audit says the stream is missing, and shows what is left of it.
  if (round.length === 0 && !roundsNamedBy(shoe).includes(roundId)) {
    // Not played, as far as the game's streams know: but a wallet movement naming it is a
    // forgery the audit must show, so the log is searched for one.
    const wallet = await walletEventsOf(store, new Set([roundId]), []);
    if (wallet.length === 0) return null;
    return { roundId, round, shoe, wallet, nextShoe: await nextShoeOf(store, shoeId) };
  }
  const wallet = await walletEventsOf(store, new Set([roundId]), [round]);
  const operatorWallet = await operatorWalletEventsOf(
    store,
    roundId,
    round,
    (await playersWithCalls?.(roundId)) ?? [],
  );
  const nextShoe = await nextShoeOf(store, shoeId);
  return { roundId, round, shoe, wallet, operatorWallet, nextShoe };
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
  if (shoe.length === 0) {
    // Never shuffled: but a wallet movement naming one of its rounds is a forgery to show.
    const wallet = await walletEventsOf(store, new Set(), [], shoeId);
    if (wallet.length === 0) return null;
    return { shoeId, shoe, rounds: [], wallet, nextShoe: null };
  }
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
    rounds.map((r) => r.events),
    shoeId,
  );
  const operatorWallet = await operatorWalletEventsOfShoe(store, shoeId);
  const nextShoe = await nextShoeOf(store, shoeId);
  return {
    shoeId,
    shoe,
    rounds,
    wallet,
    ...(operatorWallet.length === 0 ? {} : { operatorWallet }),
    nextShoe,
  };
}

/**
 * Reads what a wallet audit needs: the player's whole wallet stream (of real money, or of play
 * money with `money: 'fun'`), every round stream its
 * movements name (a round that is not in the store is listed with no events), and the table
 * streams whose dealer changes its commission collections name. Null when the wallet has no events.
 */
export async function loadWalletEvidence(
  store: EventStore,
  playerId: string,
  money: 'real' | 'fun' = 'real',
): Promise<WalletEvidence | null> {
  const wallet = await store.readStream(
    money === 'fun' ? streams.funWallet(playerId) : streams.wallet(playerId),
  );
  if (wallet.length === 0) return null;
  const rounds = new Map<string, RecordedEvent[]>();
  for (const roundId of walletEventsByRound(wallet).keys()) {
    let events: RecordedEvent[] = [];
    try {
      parseRoundId(roundId);
      events = await store.readStream(streams.round(roundId));
    } catch {
      // Not even a round id: no round stream can justify it.
    }
    rounds.set(roundId, events);
  }
  const shoes = new Map<string, RecordedEvent[]>();
  for (const [roundId, events] of rounds) {
    if (events.length === 0) continue;
    const { shoeId } = parseRoundId(roundId);
    if (!shoes.has(shoeId)) shoes.set(shoeId, await store.readStream(streams.shoe(shoeId)));
  }
  const tables = new Map<string, RecordedEvent[]>();
  for (const event of wallet) {
    if (event.type !== 'CommissionCollected') continue;
    const tableId = (event.data as { tableId?: unknown }).tableId;
    if (typeof tableId !== 'string' || tables.has(tableId)) continue;
    tables.set(tableId, await store.readStream(streams.table(tableId)));
  }
  return { playerId, money, wallet, rounds, tables, shoes, asOf: new Date() };
}

/**
 * Reads what a seamless wallet audit needs: the player's whole operator-wallet stream (the calls
 * Croupier made to the operator's wallet), every round stream it names and their shoes. Null
 * when the player has no such records.
 */
export async function loadOperatorWalletEvidence(
  store: EventStore,
  playerId: string,
): Promise<OperatorWalletEvidence | null> {
  const records = await store.readStream(streams.operatorWallet(playerId));
  if (records.length === 0) return null;
  const rounds = new Map<string, RecordedEvent[]>();
  const shoes = new Map<string, RecordedEvent[]>();
  for (const record of records) {
    const roundId = (record.data as { roundId?: unknown }).roundId;
    if (typeof roundId !== 'string' || rounds.has(roundId)) continue;
    let events: RecordedEvent[] = [];
    try {
      const { shoeId } = parseRoundId(roundId);
      events = await store.readStream(streams.round(roundId));
      if (events.length > 0 && !shoes.has(shoeId))
        shoes.set(shoeId, await store.readStream(streams.shoe(shoeId)));
    } catch {
      // Not even a round id: no round stream can justify it.
    }
    rounds.set(roundId, events);
  }
  return { playerId, records, rounds, shoes };
}
