import { auditRound, replayShoe, type ShoeEvidence } from '@croupier/audit';
import type { Card } from '@croupier/baccarat';
import { DomainError, presetConfig } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoundEvidence, loadShoeEvidence } from '../src/index.js';
import { as, startCasino, waitForWallets, type Casino } from './support/casino.js';
import { copyShoe, editData, find, named } from './support/tamper.js';

/**
 * A scanner table (a one-deck shoe, cards read by the dealer's reader): the burn shows a card
 * and burns the rest face down, a misread card is corrected by a supervisor, and the replay
 * checks the composition and that the correction is recorded in both streams with who and why.
 */
let casino: Casino;
let shoe: ShoeEvidence;
const ROUND = 'reader.1.1';
const CARDS: Card[] = ['4C', '3D', '3H', '2S', '5C'];

beforeAll(async () => {
  casino = await startCasino();
  const { system } = casino;
  const dealer = as('dan', 'dealer');
  await system.rounds.openTable(
    {
      tableId: 'reader',
      config: presetConfig('generic', { cardSource: 'scanner', decks: 1, cutCard: 14 }),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  await system.wallets.deposit(
    { playerId: 'alice', amount: 100_000, currency: 'EUR', reference: 'reader-1' },
    as('olga', 'operator'),
  );
  await expect(system.rounds.openRound('reader', dealer)).rejects.toThrow(DomainError);
  await system.shoes.burnScannedCard({ shoeId: 'reader.1', shownCard: '2D' }, dealer);
  const round = await system.rounds.openRound('reader', dealer);
  expect(round.roundId).toBe(ROUND);
  await system.rounds.placeBets(
    ROUND,
    'alice',
    [{ type: 'player', amount: 1_000 }],
    as('alice', 'player'),
  );
  await system.rounds.closeBetting(ROUND, dealer);
  // Player 4C 3H (7, stands); Banker 3D 2S (5, draws): its third card is read as 5C...
  for (const card of CARDS) await system.rounds.postScannedCard(ROUND, card, dealer);
  // ...but it was the AS: the supervisor corrects it before the result is confirmed.
  await system.rounds.correctCard(
    ROUND,
    { shoePosition: 7, card: 'AS', reason: 'reader misread the ace of spades' },
    as('sue', 'supervisor'),
  );
  await system.rounds.confirmResult(ROUND, dealer);
  await waitForWallets(system, ['alice']);
  shoe = (await loadShoeEvidence(casino.store, 'reader.1'))!;
}, 120_000);

afterAll(async () => {
  await casino.close();
});

describe('a scanner shoe', () => {
  it('replays as valid: burn, composition, and the correction in both streams', () => {
    const replay = replayShoe(shoe);
    expect(named(replay.verdict)).toEqual([]);
    const status = Object.fromEntries(replay.verdict.checks.map((c) => [c.check, c.status]));
    expect(status).toMatchObject({
      burn: 'pass',
      composition: 'pass',
      corrections: 'pass',
      'streams-agree': 'pass',
      'third-card-rule': 'pass',
      commitment: 'skip',
      digest: 'skip',
    });
    expect(replay.burn).toEqual({ shown: '2D', cards: 3 });
    expect(replay.rounds[0]).toMatchObject({
      player: ['4C', '3H'],
      banker: ['3D', '2S', 'AS'],
      winner: 'player',
    });
    expect(
      replay.corrections.map((c) => [c.stream, c.previous, c.card, c.actor?.id, c.reason]),
    ).toEqual([
      ['shoe-reader.1', '5C', 'AS', 'sue', 'reader misread the ace of spades'],
      ['round-reader.1.1', '5C', 'AS', 'sue', 'reader misread the ace of spades'],
    ]);
  });

  it('audits the round with the corrected card, who corrected it and why', async () => {
    const audit = auditRound((await loadRoundEvidence(casino.store, ROUND))!);
    expect(named(audit.verdict)).toEqual([]);
    expect(audit.cards.map((c) => `${c.card}@${c.shoePosition}`)).toEqual([
      '4C@3',
      '3D@4',
      '3H@5',
      '2S@6',
      'AS@7',
    ]);
    expect(audit.corrections).toEqual([
      expect.objectContaining({
        shoePosition: 7,
        previous: '5C',
        card: 'AS',
        reason: 'reader misread the ace of spades',
        actor: { id: 'sue', role: 'supervisor' },
      }),
    ]);
    expect(audit.thirdCards.map((d) => d.reason)).toEqual([
      'Player 7 stands',
      'Banker 5 draws: Player stood',
    ]);
    expect(audit.verdict.checks.find((c) => c.check === 'shuffle-order')?.detail).toMatch(
      /scanner shoe/,
    );
  });

  it('names a card seen more often than a one-deck shoe holds', () => {
    const evidence = copyShoe(shoe);
    const drawn = find(
      [...evidence.shoe],
      'CardsDrawn',
      (e) => (e.data as { cards: { card: string }[] }).cards[0]!.card === '3H',
    ).event;
    editData(drawn, (data) => {
      (data['cards'] as { card: string }[])[0]!.card = '4C';
    });
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(`composition/COMPOSITION_EXCEEDED shoe-reader.1@${drawn.revision}`);
    expect(found).toContain(`hash-chain/EVENT_EDITED shoe-reader.1@${drawn.revision}`);
  });

  it('names a correction recorded in the round but not in the shoe', () => {
    const evidence = copyShoe(shoe);
    const index = evidence.shoe.findIndex((e) => e.type === 'CardCorrected');
    (evidence.shoe as unknown[]).splice(index, 1);
    const found = named(replayShoe(evidence).verdict);
    expect(
      found.some((f) => f.startsWith('corrections/CORRECTION_INVALID round-reader.1.1@')),
    ).toBe(true);
    expect(
      found.some((f) => f.startsWith('streams-agree/STREAMS_DISAGREE round-reader.1.1@')),
    ).toBe(true);
  });

  it('names a correction whose who or why was erased', () => {
    const evidence = copyShoe(shoe);
    const round = evidence.rounds[0]!;
    const corrected = find([...round.events], 'CardCorrected').event;
    editData(corrected, (data) => {
      data['reason'] = ' ';
    });
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(
      `corrections/CORRECTION_INVALID round-reader.1.1@${corrected.revision}`,
    );
  });
});
