import { shuffleCommitment, shuffleShoe } from '@croupier/baccarat';
import { PRESETS, shoeEventSchema } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openTable,
  playRound,
  testRandom,
  type BetInput,
  type RoundView,
} from '../support/play.js';

const PLAYERS = ['abe', 'bix', 'chen', 'dora', 'eno', 'fae', 'guy'];
const SIDE_BETS = Object.entries(PRESETS.live.bets).filter(
  ([type]) => !['player', 'banker', 'tie'].includes(type),
);

describe('a full live shoe through the HTTP API, on PostgreSQL', () => {
  let harness: Harness;
  const rounds: RoundView[] = [];
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('deals to the cut card with seven players betting at random, and every rule and cent holds', async () => {
    const { api } = harness;
    await openTable(api, 'live-e2e', 'live');
    await fund(api, PLAYERS, 1_000_000);
    const random = testRandom(20261129);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    let shoeId: string | null = null;

    for (;;) {
      const roundNumber = rounds.length + 1;
      const bets: Record<string, BetInput[]> = {};
      for (const player of PLAYERS) {
        const main = pick(['player', 'banker', 'banker', 'tie'] as const);
        const playerBets: BetInput[] = [
          {
            type: main,
            amount: 100 * (1 + Math.floor(random() * 20)),
            ...(main === 'banker' ? { bankerMode: pick(['commission', 'no_commission']) } : {}),
          },
        ];
        for (const [type, limit] of SIDE_BETS) {
          const offered = limit.maxRound === null || roundNumber <= limit.maxRound;
          if (offered && random() < 0.15)
            playerBets.push({ type, amount: 100 * (1 + Math.floor(random() * 5)) });
        }
        bets[player] = playerBets;
      }
      const round = await playRound(api, 'live-e2e', bets);
      shoeId ??= round.shoeId;
      if (round.shoeId !== shoeId) break; // the shoe closed: this round opened the next one
      expect(round.number).toBe(roundNumber);
      expect(round.status).toBe('completed');
      expect(round.settlement?.lines).toHaveLength(Object.values(bets).flat().length);
      rounds.push(round);
    }

    // An 8-deck shoe with a burn and the cut card 16 from the end deals about 80 rounds.
    expect(rounds.length).toBeGreaterThan(60);
    const events = await settledEverywhere(harness.store);
    const report = checkMoney(events);
    expect(report.discrepancies).toEqual([]);
    expect(report.figures.bets).toBeGreaterThan(rounds.length * PLAYERS.length);
    for (const player of PLAYERS)
      expect(await balanceOf(api, player)).toBe(report.balances.get(player));

    // The shoe closed revealing its seed: its commitment and every dealt card check out.
    const shoeEvents = events
      .filter((e) => e.stream === `shoe-${shoeId}`)
      .map((e) => shoeEventSchema.parse({ type: e.type, data: e.data }));
    const shuffled = shoeEvents.find((e) => e.type === 'ShoeShuffled');
    const closed = shoeEvents.find((e) => e.type === 'ShoeClosed');
    expect(shuffled?.type === 'ShoeShuffled' && closed?.type === 'ShoeClosed').toBe(true);
    if (shuffled?.type !== 'ShoeShuffled' || closed?.type !== 'ShoeClosed') return;
    const seed = Buffer.from(closed.data.seed!, 'hex');
    expect(shuffleCommitment(seed, { shoeId: shoeId, decks: 8 })).toBe(shuffled.data.commitment);
    const order = shuffleShoe(seed, { shoeId: shoeId, decks: 8 });
    const dealt = rounds
      .flatMap((r) => [...r.cards.player, ...r.cards.banker])
      .sort((a, b) => a.shoePosition - b.shoePosition);
    for (const { card, shoePosition } of dealt) expect(card).toBe(order[shoePosition]);
    // Consecutive positions from the first card after the burn to the last.
    const positions = dealt.map((c) => c.shoePosition);
    expect(positions).toEqual(positions.map((_, i) => positions[0]! + i));
    expect(closed.data.roundsDealt).toBe(rounds.length);
    const cut = shoeEvents.find((e) => e.type === 'CutCardReached');
    expect(cut?.type === 'CutCardReached' && cut.data.lastRoundNumber).toBe(rounds.length);
    expectStatus(await api.as('regulator').get(`/v1/shoes/${shoeId}`), 200);
  });
});
