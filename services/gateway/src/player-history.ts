import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  eventTypesOf,
  roundEventSchema,
  walletEventSchema,
  parseRecorded,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';
import { isFunRound, applyRound } from './player-history/apply-round.js';
import { applyWallet } from './player-history/apply-wallet.js';
import {
  playerKey,
  recordKey,
  recordsOf,
  roundKey,
  unknownRound,
  type HistoryDocument,
  type PlayerDocument,
  type RecordDocument,
  type RoundDocument,
} from './player-history/documents.js';
import type { HistoryRecord } from './player-history/history-record.js';
import { viewOf } from './player-history/view.js';

export type {
  BetOutcome,
  HistoryAdjustment,
  HistoryBet,
  HistoryCorrection,
  HistoryHand,
  HistoryRecord,
  HistoryResult,
  HistoryStatus,
} from './player-history/history-record.js';

const ROUND_EVENT_TYPES = [
  'RoundOpened',
  'BetPlaced',
  'CardCorrected',
  'RoundPaused',
  'RoundResumed',
  'RoundCompleted',
  'RoundResultCorrected',
  'RoundSettled',
  'RoundResettled',
  'RoundVoided',
] as const;
const ROUND_EVENTS = new Set<string>(ROUND_EVENT_TYPES);
/** Wallet events that open or change a player's record of a round. */
const RECORD_EVENTS = new Set<string>([
  'StakeDebited',
  'PayoutCredited',
  'StakeRefunded',
  'PayoutAdjusted',
]);

/**
 * Players' game history: their rounds with cards, result, stakes, payouts and the balance before
 * and after each, joined from round and wallet events, disputes included: a card correction, a
 * corrected result, a void after settlement and the resettlement they cause. A durable read
 * model (docs/adr/0023) of three kinds of document, none of which grows with a player's history:
 *
 * - `round/R`: the round as every player shares it (place, status, cards, corrections,
 *   resettlements);
 * - `player/P`: the player's wallet balance (the wallet's own fold) and how many records they have;
 * - `record/P/R`: the player's record of round R, listed by partition `records/P` and sorted by
 *   its sequence, so a read of the last n rounds is one indexed query plus one for their rounds.
 */
export class PlayerHistory implements DurableProjection<HistoryDocument> {
  readonly name = 'player-history';
  /** Every wallet event (the balance is the wallet's own fold), and the round's that it shows. */
  readonly handles = [...eventTypesOf(walletEventSchema), ...ROUND_EVENT_TYPES];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (event.stream.startsWith('wallet-')) {
      const parsed = parseRecorded(walletEventSchema, event);
      const { playerId } = parsed.data;
      if (!RECORD_EVENTS.has(parsed.type)) return [playerKey(playerId)];
      const { roundId } = parsed.data as { roundId: string };
      const keys = [playerKey(playerId), recordKey(playerId, roundId)];
      return parsed.type === 'PayoutAdjusted' ? [...keys, roundKey(roundId)] : keys;
    }
    if (!event.stream.startsWith('round-') || !ROUND_EVENTS.has(event.type)) return [];
    const parsed = parseRecorded(roundEventSchema, event);
    const roundId = parsed.data.roundId;
    // Game history is of real money (003: "available only when playing for money"): a fun
    // round is never opened here, so none of its events finds a round to apply to (ADR 0030).
    if (isFunRound(parsed)) return [];
    const players = (() => {
      switch (parsed.type) {
        case 'BetPlaced':
          return [parsed.data.playerId];
        case 'RoundSettled':
          return parsed.data.lines.map((line) => line.playerId);
        case 'RoundResettled':
          return parsed.data.adjustments.map((line) => line.playerId);
        default:
          return [];
      }
    })();
    return [roundKey(roundId), ...new Set(players.map((playerId) => recordKey(playerId, roundId)))];
  }

  apply(event: RecordedEvent, docs: DocumentSet<HistoryDocument>): void {
    if (event.stream.startsWith('wallet-')) applyWallet(event, docs);
    else if (event.stream.startsWith('round-') && ROUND_EVENTS.has(event.type))
      applyRound(event, docs);
  }

  /** The player's latest rounds, newest first. */
  async history(playerId: string, limit = 10): Promise<HistoryRecord[]> {
    const records = await this.storage.list(this.name, {
      partition: recordsOf(playerId),
      order: 'desc',
      limit,
    });
    const rounds = await this.storage.getMany(
      this.name,
      records.map((row) => roundKey((row.doc as RecordDocument).roundId)),
    );
    return records.map((row) => {
      const record = row.doc as RecordDocument;
      const round = rounds.get(roundKey(record.roundId)) as RoundDocument | undefined;
      return viewOf(record, round ?? unknownRound(record.roundId));
    });
  }

  /** The player's wallet balance as the history has it (0 for a player it has not seen). */
  async balanceOf(playerId: string): Promise<number> {
    const player = (await this.storage.get(this.name, playerKey(playerId))) as
      PlayerDocument | undefined;
    return player?.wallet.balance ?? 0;
  }
}
