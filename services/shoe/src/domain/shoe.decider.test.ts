import { burnCount, shuffleShoe } from '@croupier/baccarat';
import type { ShoeEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { shoeDecider, type ShoeCommand } from './shoe.decider.js';

const spec = deciderSpecification(shoeDecider);
const SEED = '11'.repeat(32);
const OTHER_SEED = '22'.repeat(32);
const shuffle = (
  overrides: Partial<Extract<ShoeCommand, { type: 'ShuffleShoe' }>> = {},
): ShoeCommand => ({
  type: 'ShuffleShoe',
  shoeId: 't1.1',
  tableId: 't1',
  number: 1,
  decks: 8,
  cardSource: 'rng',
  shufflePolicy: 'shoe',
  burn: true,
  cutCard: 16,
  rng: { seed: SEED, sealedSeed: 'sealed' },
  ...overrides,
});
const order = shuffleShoe(Buffer.from(SEED, 'hex'), { shoeId: 't1.1', decks: 8 });
const shuffled = () => shoeDecider.decide(shuffle(), shoeDecider.initialState());

describe('shoe decider', () => {
  it('commits to the seed and burns by the shown card', () => {
    const events = shuffled();
    const burned = burnCount(order[0]!);
    expect(events).toHaveLength(2 + burned);
    expect(events[0]).toMatchObject({
      type: 'ShoeShuffled',
      data: { cutCardIndex: 400, sealedSeed: 'sealed' },
    });
    expect(events[1]).toEqual({
      type: 'CardBurned',
      data: { shoeId: 't1.1', position: 0, card: order[0], shown: true },
    });
    expect(spec.stateAfter(events).position).toBe(1 + burned);
  });

  it('draws a round from the next cards of the committed order, once', () => {
    const history = shuffled();
    const start = spec.stateAfter(history).position;
    const [drawn] = shoeDecider.decide(
      { type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED },
      spec.stateAfter(history),
    );
    const cards = (drawn as Extract<ShoeEvent, { type: 'CardsDrawn' }>).data.cards;
    expect(cards.map((c) => c.card)).toEqual(order.slice(start, start + cards.length));
    expect(cards.map((c) => c.position)).toEqual(cards.map((_, i) => start + i));
    expect(cards.slice(0, 4).map((c) => c.hand)).toEqual(['player', 'banker', 'player', 'banker']);
    spec
      .given([...history, drawn!])
      .when({ type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED })
      .then([]);
  });

  it('refuses a seed that does not match the commitment', () => {
    spec
      .given(shuffled())
      .when({ type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: OTHER_SEED })
      .thenThrows({ code: 'SEED_MISMATCH' });
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'operator',
        seed: OTHER_SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SEED_MISMATCH' });
  });

  it('notes the cut card and the last round, then refuses rounds after it', () => {
    let history = shuffled();
    let round = 0;
    while (spec.stateAfter(history).lastRoundNumber === null) {
      round++;
      history = [
        ...history,
        ...shoeDecider.decide(
          { type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED },
          spec.stateAfter(history),
        ),
      ];
    }
    const cut = history.find((e) => e.type === 'CutCardReached') as Extract<
      ShoeEvent,
      { type: 'CutCardReached' }
    >;
    expect(cut.data.position).toBe(400);
    expect(cut.data.lastRoundNumber - cut.data.roundNumber).toBeLessThanOrEqual(1);
    const last = spec.stateAfter(history).lastRoundNumber!;
    for (round++; round <= last; round++) {
      history = [
        ...history,
        ...shoeDecider.decide(
          { type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED },
          spec.stateAfter(history),
        ),
      ];
    }
    spec
      .given(history)
      .when({ type: 'DrawRound', roundId: `t1.1.${round}`, roundNumber: round, seed: SEED })
      .thenThrows({ code: 'SHOE_FINISHED' });
    const closed = shoeDecider.decide(
      {
        type: 'CloseShoe',
        reason: 'completed',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      },
      spec.stateAfter(history),
    );
    expect(closed).toMatchObject([{ type: 'ShoeClosed', data: { seed: SEED, roundsDealt: last } }]);
  });

  it('will not close a shoe as completed before its cut card', () => {
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'completed',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SHOE_NOT_FINISHED' });
  });

  it('will not close a shoe as exhausted while it holds a card', () => {
    spec
      .given(shuffled())
      .when({
        type: 'CloseShoe',
        reason: 'exhausted',
        seed: SEED,
        digest: { streams: [], value: '0'.repeat(64) },
      })
      .thenThrows({ code: 'SHOE_NOT_FINISHED' });
  });

  it('seals a round for its void, naming the cards it drew, and draws no more for it', () => {
    const history = shuffled();
    const draw: ShoeCommand = { type: 'DrawRound', roundId: 't1.1.1', roundNumber: 1, seed: SEED };
    const drawn = shoeDecider.decide(draw, spec.stateAfter(history));
    const cards = (drawn[0] as Extract<ShoeEvent, { type: 'CardsDrawn' }>).data.cards;
    const seal: ShoeCommand = { type: 'SealRound', roundId: 't1.1.1' };
    const sealed: ShoeEvent = {
      type: 'RoundSealed',
      data: { shoeId: 't1.1', roundId: 't1.1.1', cards },
    };
    spec
      .given([...history, ...drawn])
      .when(seal)
      .then([sealed]);
    spec
      .given([...history, ...drawn, sealed])
      .when(seal)
      .then([]);
    spec
      .given([...history, ...drawn, sealed])
      .when(draw)
      .thenThrows({ code: 'ROUND_FINISHED' });
    // Sealed before it drew: it never will.
    const empty: ShoeEvent = {
      type: 'RoundSealed',
      data: { shoeId: 't1.1', roundId: 't1.1.1', cards: [] },
    };
    spec.given(history).when(seal).then([empty]);
    spec
      .given([...history, empty])
      .when(draw)
      .thenThrows({ code: 'ROUND_FINISHED' });
    // The next round draws on.
    spec
      .given([...history, empty])
      .when({ type: 'DrawRound', roundId: 't1.1.2', roundNumber: 2, seed: SEED })
      .then(
        shoeDecider.decide(
          { ...draw, roundId: 't1.1.2', roundNumber: 2 },
          spec.stateAfter(history),
        ),
      );
  });

  describe('scanner shoes', () => {
    const scannerShoe = () =>
      shoeDecider.decide(
        shuffle({ cardSource: 'scanner', decks: 1, cutCard: 16, rng: null }),
        shoeDecider.initialState(),
      );
    const scan = (card: string, index: number, hand: 'player' | 'banker'): ShoeCommand => ({
      type: 'DrawScannedCard',
      roundId: 't1.1.1',
      roundNumber: 1,
      index,
      card: card as never,
      hand,
    });

    it('waits for the burn card, then burns the rest face down', () => {
      spec
        .given(scannerShoe())
        .when(scan('AS', 0, 'player'))
        .thenThrows({ code: 'INVALID_DEAL' });
      const burned = shoeDecider.decide(
        { type: 'BurnScannedCard', shownCard: '3H' },
        spec.stateAfter(scannerShoe()),
      );
      expect(burned.map((e) => e.type === 'CardBurned' && e.data.card)).toEqual([
        '3H',
        null,
        null,
        null,
      ]);
    });

    it('rejects a card the shoe cannot hold any more', () => {
      const history = [
        ...scannerShoe(),
        ...shoeDecider.decide(
          { type: 'BurnScannedCard', shownCard: 'AS' },
          spec.stateAfter(scannerShoe()),
        ),
      ];
      // One deck, and the ace of spades was the burn card.
      spec
        .given(history)
        .when(scan('AS', 0, 'player'))
        .thenThrows({ code: 'IMPOSSIBLE_CARD' });
      const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
      spec
        .given([...history, first!])
        .when(scan('KD', 1, 'banker'))
        .thenThrows({ code: 'IMPOSSIBLE_CARD' });
      spec
        .given([...history, first!])
        .when(scan('KD', 0, 'player'))
        .then([]); // the same post, retried
    });

    it('takes no scanned card for a round sealed for its void', () => {
      const history = [
        ...scannerShoe(),
        ...shoeDecider.decide(
          { type: 'BurnScannedCard', shownCard: 'AS' },
          spec.stateAfter(scannerShoe()),
        ),
      ];
      const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
      const [sealed] = shoeDecider.decide(
        { type: 'SealRound', roundId: 't1.1.1' },
        spec.stateAfter([...history, first!]),
      );
      expect(sealed).toMatchObject({ type: 'RoundSealed', data: { cards: [{ card: 'KD' }] } });
      spec
        .given([...history, first!, sealed!])
        .when(scan('QD', 1, 'banker'))
        .thenThrows({ code: 'ROUND_FINISHED' });
    });

    it('corrects a misread card, keeping the composition right', () => {
      const history = [
        ...scannerShoe(),
        ...shoeDecider.decide(
          { type: 'BurnScannedCard', shownCard: 'AS' },
          spec.stateAfter(scannerShoe()),
        ),
      ];
      const [first] = shoeDecider.decide(scan('KD', 0, 'player'), spec.stateAfter(history));
      const correct: ShoeCommand = {
        type: 'CorrectCard',
        roundId: 't1.1.1',
        position: 2,
        card: 'QD',
        reason: 'reader misread',
      };
      const [corrected] = shoeDecider.decide(correct, spec.stateAfter([...history, first!]));
      expect(corrected).toMatchObject({
        type: 'CardCorrected',
        data: { previous: 'KD', card: 'QD', position: 2 },
      });
      // KD is back in the shoe, QD is out.
      const after = spec.stateAfter([...history, first!, corrected!]);
      expect(after.seen.get('KD')).toBe(0);
      expect(after.seen.get('QD')).toBe(1);
    });
  });
});
