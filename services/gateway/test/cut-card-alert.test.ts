import { lastRoundAfterCutCard, type Card } from '@croupier/baccarat';
import { DomainError, presetConfig, streams } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type System } from '../src/index.js';
import { as, openRoundWhenFree, startCasino, type Casino } from './support/casino.js';

/**
 * A scanner shoe dealt past its cut card with no report from the dealer (issue 26: position 38
 * and on, no alert until it ran out) raises a `cut-card-passed` significant event when the first
 * card from behind the cut card is scanned, once per shoe, in the index and in the supervision
 * feed alike; it changes nothing the dealer's report decides, and the shoe still verifies
 * (ADR 0043).
 */
const dealer = as('dan', 'dealer');
const operator = as('olga', 'operator');

let casino: Casino;
let app: HttpApp;
let token: string;

beforeAll(async () => {
  casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '0' });
  app = await buildApp(casino.system);
  await app.ready();
  token = await casino.system.tokens.issue({ id: 'sue', role: 'supervisor' });
});
afterAll(async () => {
  await app.close();
  await casino.close();
});

/** A one-deck scanner table: its cut card 14 cards from the end, before position 38. */
async function scannerTable(system: System, tableId: string): Promise<void> {
  await system.rounds.openTable(
    {
      tableId,
      config: presetConfig('generic', { cardSource: 'scanner', decks: 1, cutCard: 14 }),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    operator,
  );
  await system.rounds.openRound(tableId, dealer).catch(() => undefined);
  // 2D shown burns two more face down: the first card dealt is at position 3.
  await system.shoes.burnScannedCard({ shoeId: `${tableId}.1`, shownCard: '2D' }, dealer);
}

/** The deck less the 2D burned face up, each card once. */
function deck(): Card[] {
  const cards: Card[] = [];
  for (const suit of ['C', 'D', 'H', 'S'])
    for (const rank of ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'])
      if (`${rank}${suit}` !== '2D') cards.push(`${rank}${suit}` as Card);
  return cards;
}

/** One round dealt from `cards`; the shoe position of the last card it drew. */
async function dealRound(
  system: System,
  tableId: string,
  cards: Card[],
  before?: (roundId: string) => Promise<void>,
): Promise<{ roundId: string; lastPosition: number }> {
  const { roundId } = await openRoundWhenFree(system, tableId);
  await system.rounds.closeBetting(roundId, dealer);
  await before?.(roundId);
  let round = await system.rounds.getRound(roundId);
  while (round.status === 'closed' || round.status === 'dealing')
    round = await system.rounds.postScannedCard(roundId, cards.shift()!, dealer);
  await system.rounds.confirmResult(roundId, dealer);
  const dealt = [...round.player, ...round.banker];
  return { roundId, lastPosition: Math.max(...dealt.map((card) => card.shoePosition)) };
}

interface Listed {
  category: string;
  type: string;
  tableId: string | null;
  stream: string;
  summary: string;
  actor: { id: string; role: string } | null;
}

async function read<T>(url: string): Promise<T> {
  const response = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
}

const alertsOf = async (tableId: string) =>
  (await read<{ events: Listed[] }>(`/v1/significant-events?tableId=${tableId}`)).events.filter(
    (event) => event.category === 'cut-card-passed',
  );
const feedAlerts = async (tableId: string) =>
  (await read<{ events: Listed[] }>('/v1/supervision/feed')).events.filter(
    (event) => event.category === 'cut-card-passed' && event.tableId === tableId,
  );

describe('the cut-card alert of a scanner shoe', () => {
  it('is raised when the first card behind the cut card is scanned unreported, once, and decides nothing', async () => {
    const { system } = casino;
    await scannerTable(system, 'late-cut');
    const cards = deck();
    let last = 0;
    let passing: string | null = null;
    while (passing === null) {
      const dealt = await dealRound(system, 'late-cut', cards);
      last = dealt.lastPosition;
      if (last >= 38) passing = dealt.roundId;
      // Every card so far in front of the cut card: nothing to say.
      else expect(await alertsOf('late-cut')).toEqual([]);
    }
    const [alert, ...more] = await alertsOf('late-cut');
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      type: 'CardsDrawn',
      tableId: 'late-cut',
      stream: streams.shoe('late-cut.1'),
      actor: { id: 'dan', role: 'dealer' },
    });
    expect(alert!.summary).toContain('position 38');
    expect(alert!.summary).toContain('has not reported the cut card');
    // The feed says the same.
    expect(await feedAlerts('late-cut')).toEqual([alert]);

    // The shoe deals on (the alert decides no last round), and says it once; the dealer's
    // report, when it comes, decides the last round, as before.
    const reporting = await dealRound(system, 'late-cut', cards, async (roundId) => {
      await system.rounds.reportCutCard(roundId, dealer);
    });
    const reached = (await system.store.readStream(streams.shoe('late-cut.1'))).find(
      (event) => event.type === 'CutCardReached',
    );
    const roundNumber = Number(reporting.roundId.split('.').at(-1));
    expect(reached?.data).toMatchObject({
      position: last + 1,
      roundNumber,
      lastRoundNumber: lastRoundAfterCutCard(roundNumber, 0),
    });
    expect(reporting.lastPosition).toBeGreaterThan(last);
    expect(await alertsOf('late-cut')).toHaveLength(1);
    // The shoe's replay verifies every card, the cut card and the last round.
    const replay = await app.inject({
      method: 'GET',
      url: '/v1/audit/shoes/late-cut.1/replay',
      headers: {
        authorization: `Bearer ${await system.tokens.issue({ id: 'rita', role: 'regulator' })}`,
      },
    });
    expect(replay.json<{ verdict: { findings: unknown[] } }>().verdict.findings).toEqual([]);
  });

  it('stays quiet when the dealer reports the cut card in time, and on rng shoes', async () => {
    const { system } = casino;
    await scannerTable(system, 'cut-in-time');
    const cards = deck();
    let reported = false;
    for (let rounds = 0; rounds < 20; rounds++) {
      // The next card's position: 3 burned, then the cards dealt.
      const next = 52 - cards.length;
      const dealt = await dealRound(system, 'cut-in-time', cards, async (roundId) => {
        // Reported in the round that may reach it (a round draws at most six cards).
        if (!reported && next + 6 > 38) {
          await system.rounds.reportCutCard(roundId, dealer);
          reported = true;
        }
      }).catch((error: unknown) => error);
      // The shoe's last round is over: the next round would open the next shoe.
      if (dealt instanceof DomainError && dealt.details['next'] === 'burn-shoe') break;
      if (dealt instanceof Error) throw dealt;
    }
    expect((await system.shoes.getShoe('cut-in-time.1'))?.status).toBe('closed');
    expect(reported).toBe(true);
    expect(await alertsOf('cut-in-time')).toEqual([]);

    // An rng shoe places its own cut card: never watched.
    await system.rounds.openTable(
      {
        tableId: 'rng-cut',
        config: presetConfig('generic', { decks: 1, cutCard: 14 }),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      operator,
    );
    for (let i = 0; i < 12; i++) {
      const round = await openRoundWhenFree(system, 'rng-cut').catch(() => null);
      if (round === null) break;
      await system.rounds.closeBetting(round.roundId, dealer);
      await system.rounds.deal(round.roundId, dealer);
    }
    expect(await alertsOf('rng-cut')).toEqual([]);
    expect(await feedAlerts('rng-cut')).toEqual([]);
  });
});
