import {
  burnCount,
  canonicalShuffleParameters,
  InvalidDealError,
  lastRoundAfterCutCard,
  nextCardRecipient,
  SHUFFLE_ALGORITHM,
  shuffleCommitment,
  shuffleShoe,
  type Card,
  type Hand,
} from '@croupier/baccarat';
import {
  roundIdOf,
  shoeEventSchema,
  streams,
  type DrawnCard,
  type ShoeEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf, parseStream, provenanceOf, type Parsed } from './parse.js';
import type { CardCorrection } from './round-model.js';
import type { VerdictBuilder } from './verdict.js';

type Shuffled = Extract<ShoeEvent, { type: 'ShoeShuffled' }>['data'];
type Closed = Extract<ShoeEvent, { type: 'ShoeClosed' }>['data'];

/** A card the shoe handed to a round, as it stands after any correction. */
export interface ShoeCard extends DrawnCard {
  /** The CardsDrawn event that recorded it. */
  readonly revision: bigint;
}

/** What the shoe stream says, replayed and checked on its own. */
export interface ShoeWalk {
  readonly shuffled: Shuffled | null;
  readonly shuffledAt: RecordedEvent | null;
  readonly closed: Closed | null;
  readonly closedAt: RecordedEvent | null;
  /** rng shoes whose seed is revealed: the card order it gives. */
  readonly order: readonly Card[] | null;
  readonly burned: readonly { position: number; card: Card | null; shown: boolean }[];
  /** The cards handed to each round, in order. */
  readonly rounds: ReadonlyMap<string, { number: number; cards: ShoeCard[] }>;
  /** Rounds the shoe sealed for their void (RoundSealed): the cards it named, and where. */
  readonly seals: ReadonlyMap<string, { cards: readonly DrawnCard[]; at: RecordedEvent }>;
  readonly lastRoundDrawn: number;
  readonly cut: {
    readonly position: number;
    readonly roundNumber: number;
    readonly lastRoundNumber: number;
  } | null;
  /** Position of the next card. */
  readonly position: number;
  readonly corrections: readonly CardCorrection[];
}

/**
 * Replays a shoe stream from its events alone and checks what it can prove by itself: the
 * commitment against the revealed seed and every card against the order that seed gives, the
 * burn, that each card is the next one of the shoe and goes to the hand the rules name, the cut
 * card and the last round, the composition, and corrections.
 */
export function walkShoe(
  shoeId: string,
  events: readonly RecordedEvent[],
  verdict: VerdictBuilder,
): ShoeWalk {
  const stream = streams.shoe(shoeId);
  const parsed: Parsed<ShoeEvent>[] = parseStream(events, shoeEventSchema, verdict);
  const first = parsed[0];
  if (first?.event.type !== 'ShoeShuffled' || first.recorded.revision !== 0n) {
    verdict.fail(
      'hash-chain',
      'EVENT_MISSING',
      { stream, revision: 0n, type: 'ShoeShuffled' },
      `the shoe stream does not start with ShoeShuffled: nothing of shoe ${shoeId} can be replayed`,
    );
    return {
      shuffled: null,
      shuffledAt: null,
      closed: null,
      closedAt: null,
      order: null,
      burned: [],
      rounds: new Map(),
      seals: new Map(),
      lastRoundDrawn: 0,
      cut: null,
      position: 0,
      corrections: [],
    };
  }
  const shuffled = first.event.data;
  const shuffledAt = first.recorded;
  if (shuffled.shoeId !== shoeId) {
    verdict.fail(
      'event-schema',
      'WRONG_STREAM',
      locationOf(shuffledAt),
      `ShoeShuffled names shoe ${shuffled.shoeId}`,
      {
        expected: shoeId,
        found: shuffled.shoeId,
      },
    );
  }
  const closedItem = parsed.find(
    (item): item is Parsed<Extract<ShoeEvent, { type: 'ShoeClosed' }>> =>
      item.event.type === 'ShoeClosed',
  );
  const closed = closedItem?.event.data ?? null;
  const order = revealOrder(shoeId, shuffled, shuffledAt, closedItem ?? null, verdict);

  const totalCards = shuffled.decks * 52;
  const burned: { position: number; card: Card | null; shown: boolean }[] = [];
  const rounds = new Map<string, { number: number; cards: ShoeCard[] }>();
  const seals = new Map<string, { cards: readonly DrawnCard[]; at: RecordedEvent }>();
  const seen = new Map<Card, number>();
  const corrections: CardCorrection[] = [];
  let position = 0;
  let lastRoundDrawn = 0;
  let lastRoundNumber: number | null = null;
  let cut: ShoeWalk['cut'] = null;
  let pendingCut: {
    position: number;
    roundNumber: number;
    lastRoundNumber: number;
    at: RecordedEvent;
  } | null = null;
  let burnChecked = !shuffled.burn;

  const see = (card: Card, delta: number, at: RecordedEvent) => {
    const count = (seen.get(card) ?? 0) + delta;
    seen.set(card, count);
    if (count > shuffled.decks) {
      verdict.fail(
        'composition',
        'COMPOSITION_EXCEEDED',
        locationOf(at),
        `${card} has been seen ${count} times in a ${shuffled.decks}-deck shoe`,
        { expected: `at most ${shuffled.decks}`, found: String(count) },
      );
    }
  };

  const checkBurnComplete = (at: RecordedEvent | null) => {
    if (burnChecked) return;
    burnChecked = true;
    const shown = burned[0];
    const where = at === null ? { stream, revision: null, type: 'CardBurned' } : locationOf(at);
    if (shown === undefined) {
      verdict.fail('burn', 'BURN_INVALID', where, 'the table burns, but no card was burned');
      return;
    }
    if (shown.card === null) return; // reported when the shown card was burned
    const expected = 1 + burnCount(shown.card);
    if (burned.length !== expected) {
      verdict.fail(
        'burn',
        'BURN_INVALID',
        where,
        `the shown ${shown.card} burns ${burnCount(shown.card)} more card(s); ${burned.length - 1} were burned`,
        { expected: String(expected), found: String(burned.length) },
      );
    } else {
      verdict.pass(
        'burn',
        `showed ${shown.card}, burned ${expected} card(s) at positions 0-${expected - 1}`,
      );
    }
  };

  for (const [index, { recorded, event }] of parsed.entries()) {
    const at = locationOf(recorded);
    if (pendingCut !== null && event.type !== 'CutCardReached') {
      verdict.fail(
        'cut-card',
        'CUT_CARD_INVALID',
        locationOf(pendingCut.at),
        `the cut card (before position ${pendingCut.position}) came out in round ${pendingCut.roundNumber}, but no CutCardReached follows`,
        { expected: 'CutCardReached', found: event.type },
      );
      lastRoundNumber = pendingCut.lastRoundNumber;
      pendingCut = null;
    }
    if (closedItem !== undefined && recorded.position > closedItem.recorded.position) {
      verdict.fail(
        'last-round',
        'CLOSE_INVALID',
        at,
        `${event.type} was recorded after the shoe closed`,
      );
    }
    switch (event.type) {
      case 'ShoeShuffled':
        if (index !== 0)
          verdict.fail('event-schema', 'WRONG_STREAM', at, 'the shoe is shuffled twice');
        break;
      case 'CardBurned': {
        const d = event.data;
        if (!shuffled.burn)
          verdict.fail('burn', 'BURN_INVALID', at, 'a card is burned, but the table does not burn');
        if (rounds.size > 0)
          verdict.fail('burn', 'BURN_INVALID', at, 'a card is burned after dealing began');
        const shownExpected = burned.length === 0;
        if (d.position !== burned.length || d.shown !== shownExpected) {
          verdict.fail(
            'burn',
            'BURN_INVALID',
            at,
            `burned card ${burned.length + 1} must be at position ${burned.length}${shownExpected ? ', shown' : ', face down'}`,
            {
              expected: { position: burned.length, shown: shownExpected },
              found: { position: d.position, shown: d.shown },
            },
          );
        }
        if (d.shown && d.card === null)
          verdict.fail('burn', 'BURN_INVALID', at, 'the shown burn card is not recorded');
        if (order !== null) checkOrder(d.position, d.card, at);
        if (d.card !== null) see(d.card, 1, recorded);
        burned.push({ position: d.position, card: d.card, shown: d.shown });
        position = d.position + 1;
        break;
      }
      case 'CardsDrawn': {
        const d = event.data;
        checkBurnComplete(recorded);
        if (d.roundId !== roundIdOf(shoeId, d.roundNumber)) {
          verdict.fail(
            'event-schema',
            'WRONG_STREAM',
            at,
            `cards for ${d.roundId} are recorded as round ${d.roundNumber} of ${shoeId}`,
            { expected: roundIdOf(shoeId, d.roundNumber), found: d.roundId },
          );
        }
        if (lastRoundNumber !== null && d.roundNumber > lastRoundNumber) {
          verdict.fail(
            'last-round',
            'ROUND_AFTER_LAST',
            at,
            `round ${d.roundNumber} drew cards after round ${lastRoundNumber}, the shoe's last`,
            { expected: `round ${lastRoundNumber} at most`, found: `round ${d.roundNumber}` },
          );
        } else if (shuffled.shufflePolicy === 'every-round' && d.roundNumber !== 1) {
          verdict.fail(
            'last-round',
            'ROUND_AFTER_LAST',
            at,
            'a shoe shuffled for one round dealt a second',
          );
        } else {
          verdict.pass('last-round');
        }
        const sealedAt = seals.get(d.roundId)?.at;
        if (sealedAt !== undefined) {
          verdict.fail(
            'streams-agree',
            'STREAMS_DISAGREE',
            at,
            `round ${d.roundId} drew cards after the shoe sealed it for its void (revision ${sealedAt.revision}): the round cannot record them`,
            { expected: 'no card after RoundSealed', found: d.cards.length },
          );
        }
        if (d.roundNumber < lastRoundDrawn) {
          verdict.fail(
            'card-sequence',
            'CARD_OUT_OF_SEQUENCE',
            at,
            `round ${d.roundNumber} drew after round ${lastRoundDrawn}`,
          );
        }
        const round = rounds.get(d.roundId) ?? { number: d.roundNumber, cards: [] };
        rounds.set(d.roundId, round);
        for (const drawn of d.cards) {
          if (drawn.position !== position) {
            verdict.fail(
              'card-sequence',
              'CARD_OUT_OF_SEQUENCE',
              at,
              `round ${d.roundNumber} took the card at position ${drawn.position}, but the next card of the shoe was at ${position}`,
              { expected: String(position), found: String(drawn.position) },
            );
          } else if (drawn.position >= totalCards) {
            verdict.fail(
              'card-sequence',
              'CARD_OUT_OF_SEQUENCE',
              at,
              `position ${drawn.position} is past the end of a ${totalCards}-card shoe`,
            );
          } else {
            verdict.pass('card-sequence');
          }
          position = drawn.position + 1;
          if (order !== null) checkOrder(drawn.position, drawn.card, at);
          checkRecipient(round.cards, drawn.hand, drawn.card, at);
          const indexInRound = round.cards.length;
          round.cards.push({ ...drawn, revision: recorded.revision });
          see(drawn.card, 1, recorded);
          const cutIndex = shuffled.cutCardIndex;
          if (
            shuffled.cardSource === 'rng' &&
            cutIndex !== null &&
            lastRoundNumber === null &&
            pendingCut === null &&
            drawn.position >= cutIndex
          ) {
            pendingCut = {
              position: cutIndex,
              roundNumber: d.roundNumber,
              lastRoundNumber: lastRoundAfterCutCard(d.roundNumber, indexInRound),
              at: recorded,
            };
          }
        }
        lastRoundDrawn = Math.max(lastRoundDrawn, d.roundNumber);
        break;
      }
      case 'CutCardReached': {
        const d = event.data;
        let expected: { position: number; roundNumber: number; lastRoundNumber: number } | null;
        if (shuffled.cardSource === 'rng') {
          expected = pendingCut;
        } else {
          const inRound = rounds.get(roundIdOf(shoeId, d.roundNumber))?.cards.length ?? 0;
          expected =
            lastRoundNumber === null
              ? {
                  position,
                  roundNumber: d.roundNumber,
                  lastRoundNumber: lastRoundAfterCutCard(d.roundNumber, inRound),
                }
              : null;
        }
        if (expected === null) {
          verdict.fail(
            'cut-card',
            'CUT_CARD_INVALID',
            at,
            lastRoundNumber !== null || cut !== null
              ? 'the cut card is reported a second time'
              : `the cut card is reported, but no card has reached position ${shuffled.cutCardIndex ?? '(none)'}`,
            { expected: 'no CutCardReached', found: d },
          );
        } else {
          const found = {
            position: d.position,
            roundNumber: d.roundNumber,
            lastRoundNumber: d.lastRoundNumber,
          };
          const want = {
            position: expected.position,
            roundNumber: expected.roundNumber,
            lastRoundNumber: expected.lastRoundNumber,
          };
          if (JSON.stringify(found) !== JSON.stringify(want)) {
            verdict.fail(
              'cut-card',
              'CUT_CARD_INVALID',
              at,
              `the cut card came out before position ${want.position} in round ${want.roundNumber}, so round ${want.lastRoundNumber} is the last; the record says otherwise`,
              { expected: want, found },
            );
          } else {
            verdict.pass(
              'cut-card',
              `cut card out before position ${want.position} in round ${want.roundNumber}; round ${want.lastRoundNumber} is the last`,
            );
          }
        }
        pendingCut = null;
        lastRoundNumber = d.lastRoundNumber;
        cut = {
          position: d.position,
          roundNumber: d.roundNumber,
          lastRoundNumber: d.lastRoundNumber,
        };
        break;
      }
      case 'CardCorrected': {
        const d = event.data;
        const { actor, occurredAt } = provenanceOf(recorded);
        corrections.push({
          stream: recorded.stream,
          revision: String(recorded.revision),
          shoePosition: d.position,
          previous: d.previous,
          card: d.card,
          reason: d.reason,
          actor,
          occurredAt,
        });
        const round = rounds.get(d.roundId);
        const index = round?.cards.findIndex((c) => c.position === d.position) ?? -1;
        const target = round?.cards[index];
        if (shuffled.cardSource !== 'scanner') {
          verdict.fail(
            'corrections',
            'CORRECTION_INVALID',
            at,
            'a card of an rng shoe is corrected: only scanned cards can be misread',
          );
        } else if (target === undefined || target.card !== d.previous) {
          verdict.fail(
            'corrections',
            'CORRECTION_INVALID',
            at,
            target === undefined
              ? `round ${d.roundId} drew no card at position ${d.position}`
              : `the correction says position ${d.position} held ${d.previous}; the shoe shows ${target.card}`,
            { expected: target?.card ?? null, found: d.previous },
          );
        } else if (actor === null || d.reason.trim() === '') {
          verdict.fail(
            'corrections',
            'CORRECTION_INVALID',
            at,
            'a correction must record who made it and why',
          );
        } else {
          verdict.pass('corrections');
        }
        if (round !== undefined && target !== undefined) {
          round.cards[index] = { ...target, card: d.card };
          see(d.previous, -1, recorded);
          see(d.card, 1, recorded);
        }
        break;
      }
      case 'RoundSealed': {
        const d = event.data;
        const drawn = (rounds.get(d.roundId)?.cards ?? []).map(cardText);
        const named = d.cards.map(cardText);
        if (seals.has(d.roundId)) {
          verdict.fail(
            'streams-agree',
            'STREAMS_DISAGREE',
            at,
            `round ${d.roundId} is sealed a second time`,
            { expected: 'one RoundSealed per round', found: 'two' },
          );
        } else if (named.join(' ') !== drawn.join(' ')) {
          verdict.fail(
            'streams-agree',
            'STREAMS_DISAGREE',
            at,
            `the seal of round ${d.roundId} names [${named.join(' ')}], but the shoe drew [${drawn.join(' ')}] for it`,
            { expected: drawn, found: named },
          );
        } else {
          verdict.pass('streams-agree');
        }
        if (!seals.has(d.roundId)) seals.set(d.roundId, { cards: d.cards, at: recorded });
        break;
      }
      case 'ShoeClosed': {
        const d = event.data;
        if (index !== parsed.length - 1) {
          verdict.fail(
            'last-round',
            'CLOSE_INVALID',
            at,
            'events follow ShoeClosed in the shoe stream',
          );
        }
        if (d.roundsDealt !== lastRoundDrawn) {
          verdict.fail(
            'last-round',
            'CLOSE_INVALID',
            at,
            `ShoeClosed says ${d.roundsDealt} round(s) were dealt; the shoe handed cards to ${lastRoundDrawn}`,
            { expected: String(lastRoundDrawn), found: String(d.roundsDealt) },
          );
        }
        if (
          d.reason === 'completed' &&
          shuffled.shufflePolicy === 'shoe' &&
          lastRoundNumber === null
        ) {
          verdict.fail(
            'last-round',
            'CLOSE_INVALID',
            at,
            'the shoe is closed as completed, but its cut card never came out',
          );
        }
        break;
      }
    }
  }
  if (pendingCut !== null) {
    verdict.fail(
      'cut-card',
      'CUT_CARD_INVALID',
      locationOf(pendingCut.at),
      `the cut card (before position ${pendingCut.position}) came out in round ${pendingCut.roundNumber}, but no CutCardReached follows`,
      { expected: 'CutCardReached', found: null },
    );
  }
  if (burned.length > 0 || (shuffled.burn && shuffled.cardSource === 'rng'))
    checkBurnComplete(null);
  if (!shuffled.burn) verdict.skip('burn', 'the table does not burn');
  else if (!burnChecked) verdict.skip('burn', 'the scanner shoe has not burned yet');
  if (shuffled.shufflePolicy === 'every-round') {
    verdict.skip('cut-card', 'a shoe shuffled for one round has no cut card');
  } else if (cut === null) {
    verdict.skip('cut-card', 'the cut card has not come out');
  }
  verdict.pass('composition');

  function checkOrder(at: number, card: Card | null, where: ReturnType<typeof locationOf>): void {
    const expected = order?.[at];
    if (card === null || expected === card) {
      verdict.pass('shuffle-order');
      return;
    }
    verdict.fail(
      'shuffle-order',
      'CARD_MISMATCH',
      where,
      `position ${at}: the revealed seed puts ${expected ?? 'no card'} there, the shoe recorded ${card}`,
      { expected: expected ?? null, found: card },
    );
  }

  function checkRecipient(
    cards: readonly DrawnCard[],
    hand: Hand,
    card: Card,
    where: ReturnType<typeof locationOf>,
  ): void {
    const player = cards.filter((c) => c.hand === 'player').map((c) => c.card);
    const banker = cards.filter((c) => c.hand === 'banker').map((c) => c.card);
    let due: Hand | null;
    try {
      due = nextCardRecipient(player, banker);
    } catch (error) {
      if (error instanceof InvalidDealError) return; // reported at the card that broke the rule
      throw error;
    }
    if (due === hand) {
      verdict.pass('third-card-rule');
      return;
    }
    verdict.fail(
      'third-card-rule',
      'THIRD_CARD_RULE',
      where,
      due === null
        ? `${card} was handed to the ${hand} after the rules ended the round`
        : `${card} was handed to the ${hand}, but the rules give this card to the ${due}`,
      { expected: due ?? 'no card', found: hand },
    );
  }

  return {
    shuffled,
    shuffledAt,
    closed,
    closedAt: closedItem?.recorded ?? null,
    order,
    burned,
    rounds,
    seals,
    lastRoundDrawn,
    cut,
    position,
    corrections,
  };
}

/** A drawn card as findings name it: card, shoe position and hand. */
export const cardText = (drawn: { card: Card; position: number; hand: string }): string =>
  `${drawn.card}@${drawn.position}→${drawn.hand}`;

/**
 * rng shoes: checks the revealed seed against the commitment and returns the order it gives;
 * null (and the check skipped, saying why) while the seed is sealed or for scanner shoes.
 */
function revealOrder(
  shoeId: string,
  shuffled: Shuffled,
  shuffledAt: RecordedEvent,
  closed: Parsed<Extract<ShoeEvent, { type: 'ShoeClosed' }>> | null,
  verdict: VerdictBuilder,
): Card[] | null {
  if (shuffled.cardSource !== 'rng') {
    const reason = "a scanner shoe's cards come from the card reader: there is no seed";
    verdict.skip('commitment', reason);
    verdict.skip('shuffle-order', reason);
    return null;
  }
  if (closed === null) {
    const reason = 'the seed stays sealed until the shoe closes';
    verdict.skip('commitment', reason);
    verdict.skip('shuffle-order', reason);
    return null;
  }
  const seed = closed.event.data.seed;
  if (seed === null) {
    verdict.fail(
      'commitment',
      'SEED_MISSING',
      locationOf(closed.recorded),
      'the rng shoe closed without revealing its seed',
      { expected: 'the seed', found: null },
    );
    verdict.skip('shuffle-order', 'no seed was revealed');
    return null;
  }
  const params = { shoeId, decks: shuffled.decks };
  const bytes = Buffer.from(seed, 'hex');
  if (shuffled.algorithm !== SHUFFLE_ALGORITHM) {
    verdict.fail(
      'commitment',
      'COMMITMENT_MISMATCH',
      locationOf(shuffledAt),
      `the shoe names shuffle algorithm ${String(shuffled.algorithm)}, which this auditor does not know`,
      { expected: SHUFFLE_ALGORITHM, found: shuffled.algorithm },
    );
  }
  const commitment = shuffleCommitment(bytes, params);
  if (commitment !== shuffled.commitment) {
    verdict.fail(
      'commitment',
      'COMMITMENT_MISMATCH',
      locationOf(shuffledAt),
      'the commitment published at the shuffle is not sha256(revealed seed || parameters)',
      { expected: commitment, found: shuffled.commitment },
    );
  } else {
    verdict.pass(
      'commitment',
      `sha256(seed || ${canonicalShuffleParameters(params)}) = ${commitment}`,
    );
  }
  return shuffleShoe(bytes, params);
}
