import type { Card } from '@croupier/baccarat';
import { auditRound, replayShoe } from '@croupier/audit';
import { CommandHandler } from '@croupier/application';
import {
  DomainError,
  parseRoundId,
  presetConfig,
  roundIdOf,
  streams,
  type DrawnCard,
  type ShoePort,
} from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { RoundService } from '@croupier/round';
import { startSettlementReactor } from '@croupier/settlement';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoundEvidence, loadShoeEvidence } from '../src/index.js';
import {
  as,
  openRoundWhenFree,
  placeBetsAs,
  startCasino,
  waitForWallets,
  type Casino,
} from './support/casino.js';
import { named } from './support/tamper.js';

/**
 * A deal against a void (issue 24, defect 4), on a real PostgreSQL, each interleaving held in
 * place: the real shoe service behind a port that waits on a latch after (or before) it draws,
 * so the void lands exactly where it has to. Whatever lands where, the round records every card
 * its shoe handed it (dealt, or discarded by the void from the shoe's seal), a voided round is
 * never paid, and the round's and the shoe's audits find nothing.
 */
let postgres: IsolatedPostgres;
let store: EventStore;
let casino: Casino;
const dealer = as('dan', 'dealer');
const supervisor = as('sue', 'supervisor');

/** The real shoe port, held once at its next draw until released: after the draw, or before. */
function heldShoes(shoes: ShoePort, where: 'after-draw' | 'before-draw') {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const hold = async <T>(draw: () => Promise<T>): Promise<T> => {
    if (held) return draw();
    held = true;
    if (where === 'before-draw') {
      reach();
      await released;
      return draw();
    }
    const drawn = await draw();
    reach();
    await released;
    return drawn;
  };
  const port: ShoePort = Object.assign(Object.create(shoes) as ShoePort, {
    drawRound: (input: Parameters<ShoePort['drawRound']>[0], context: typeof dealer) =>
      hold(() => shoes.drawRound(input, context)),
    drawScannedCard: (input: Parameters<ShoePort['drawScannedCard']>[0], context: typeof dealer) =>
      hold(() => shoes.drawScannedCard(input, context)),
  });
  return { port, reached, release };
}

/** A round service of this process whose shoe port is held (the wallets are the real ones). */
const roundsWith = (shoes: ShoePort, commands: CommandHandler = casino.system.commands) =>
  new RoundService(commands, shoes, casino.system.wallets);

async function bettingRound(tableId: string, playerId: string): Promise<string> {
  const { roundId } = await openRoundWhenFree(casino.system, tableId);
  await placeBetsAs(casino.system, roundId, playerId, [
    { type: 'player', amount: 1_000 },
    { type: 'tie', amount: 100 },
  ]);
  return roundId;
}

const typesOf = async (roundId: string) =>
  (await store.readStream(streams.round(roundId))).map((event) => event.type);

async function voidedEvent(roundId: string) {
  const events = await store.readStream(streams.round(roundId));
  return events.find((event) => event.type === 'RoundVoided')?.data as
    { discarded?: DrawnCard[] } | undefined;
}

/** The round's cards at its shoe, and whether the shoe sealed it. */
async function atShoe(roundId: string) {
  const { shoeId } = parseRoundId(roundId);
  const events = await store.readStream(streams.shoe(shoeId));
  const drawn = events
    .filter((e) => e.type === 'CardsDrawn' && (e.data as { roundId: string }).roundId === roundId)
    .flatMap((e) => (e.data as { cards: DrawnCard[] }).cards);
  const seals = events.filter(
    (e) => e.type === 'RoundSealed' && (e.data as { roundId: string }).roundId === roundId,
  );
  return { drawn, seals: seals.map((e) => (e.data as { cards: DrawnCard[] }).cards) };
}

/** The round's and its shoe's audits, each finding named (empty when both pass). */
async function findings(roundId: string): Promise<string[]> {
  const round = await loadRoundEvidence(store, roundId);
  const shoe = await loadShoeEvidence(store, parseRoundId(roundId).shoeId);
  return [...named(auditRound(round!).verdict), ...named(replayShoe(shoe!).verdict)];
}

const refusal = (error: unknown) => (error instanceof DomainError ? error.code : error);

beforeAll(async () => {
  postgres = await isolatedPostgres('dealvoid');
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  casino = await startCasino(store);
  const operator = as('olga', 'operator');
  for (const playerId of ['pia', 'rex', 'sam', 'tom', 'uma'])
    await casino.system.wallets.deposit(
      { playerId, amount: 100_000, currency: 'EUR', reference: `${playerId}-funds` },
      operator,
    );
  const manual = { mode: 'manual', bettingWindowMs: 0 } as const;
  await casino.system.rounds.openTable(
    { tableId: 'rng', config: presetConfig('generic'), dealing: manual },
    operator,
  );
  await casino.system.rounds.openTable(
    {
      tableId: 'scan',
      config: presetConfig('generic', { cardSource: 'scanner' }),
      dealing: manual,
    },
    operator,
  );
  await casino.system.rounds.openRound('scan', dealer).catch(() => undefined);
  await casino.system.shoes.burnScannedCard({ shoeId: 'scan.1', shownCard: '2D' }, dealer);
});

afterAll(async () => {
  await casino.close();
  await store.close();
  await postgres.drop();
});

describe('a deal against a void', () => {
  it('rng: a void from the same process between the draw and DealCards records the drawn cards as discarded', async () => {
    const roundId = await bettingRound('rng', 'pia');
    await casino.system.rounds.closeBetting(roundId, dealer);
    const held = heldShoes(casino.system.shoes, 'after-draw');
    const rounds = roundsWith(held.port);
    const deal = rounds.deal(roundId, dealer).then(
      () => 'dealt',
      (error: unknown) => refusal(error),
    );
    await held.reached; // the shoe drew the round's cards; the round has not recorded them
    const voided = await rounds.void(roundId, 'camera offline mid-deal', supervisor);
    held.release();
    expect(await deal).toBe('ROUND_FINISHED');
    expect(voided.status).toBe('voided');

    await waitForWallets(casino.system, ['pia']);
    expect(await findings(roundId)).toEqual([]);
    const { drawn, seals } = await atShoe(roundId);
    expect(drawn.length).toBeGreaterThanOrEqual(4);
    expect(seals).toEqual([drawn]);
    expect((await voidedEvent(roundId))?.discarded).toEqual(drawn);
    expect(await typesOf(roundId)).not.toContain('CardDealt');
  });

  it('rng: a void from another process between the draw and DealCards is decided on the seal too', async () => {
    const roundId = await bettingRound('rng', 'rex');
    await casino.system.rounds.closeBetting(roundId, dealer);
    const held = heldShoes(casino.system.shoes, 'after-draw');
    const deal = roundsWith(held.port)
      .deal(roundId, dealer)
      .then(
        () => 'dealt',
        (error: unknown) => refusal(error),
      );
    await held.reached;
    // Another process: its own command handler (its own cache and queues) on the same store.
    const elsewhere = roundsWith(casino.system.shoes, new CommandHandler(store));
    await elsewhere.void(roundId, 'supervisor at another terminal', supervisor);
    held.release();
    expect(await deal).toBe('ROUND_FINISHED');

    await waitForWallets(casino.system, ['rex']);
    expect(await findings(roundId)).toEqual([]);
    const { drawn, seals } = await atShoe(roundId);
    expect(seals).toEqual([drawn]);
    expect((await voidedEvent(roundId))?.discarded).toEqual(drawn);
  });

  it('rng: a void after the deal started and before the draw seals the round empty: the shoe refuses to draw for it', async () => {
    const roundId = await bettingRound('rng', 'sam');
    const held = heldShoes(casino.system.shoes, 'before-draw');
    const rounds = roundsWith(held.port);
    // Betting closes in the deal's first append, with DealStarted.
    const deal = rounds.deal(roundId, dealer, { closeBetting: true }).then(
      () => 'dealt',
      (error: unknown) => refusal(error),
    );
    await held.reached;
    expect(await typesOf(roundId)).toEqual(
      expect.arrayContaining(['BettingClosed', 'DealStarted']),
    );
    await rounds.void(roundId, 'void before the cards came out', supervisor);
    held.release();
    expect(await deal).toBe('ROUND_FINISHED');

    const { drawn, seals } = await atShoe(roundId);
    expect(drawn).toEqual([]);
    expect(seals).toEqual([[]]);
    expect((await voidedEvent(roundId))?.discarded).toEqual([]);
    await waitForWallets(casino.system, ['sam']);
    expect(await findings(roundId)).toEqual([]);
  });

  it('scanner: a void between the shoe recording a scanned card and the round dealing it records the card as discarded', async () => {
    const roundId = await bettingRound('scan', 'tom');
    await casino.system.rounds.closeBetting(roundId, dealer);
    const cards: Card[] = ['4C', '7D'];
    for (const card of cards) await casino.system.rounds.postScannedCard(roundId, card, dealer);
    const held = heldShoes(casino.system.shoes, 'after-draw');
    const rounds = roundsWith(held.port);
    const post = rounds.postScannedCard(roundId, '9H', dealer).then(
      () => 'dealt',
      (error: unknown) => refusal(error),
    );
    await held.reached;
    await rounds.void(roundId, 'card reader misfed', supervisor);
    held.release();
    expect(await post).toBe('ROUND_FINISHED');
    // The shoe deals the round no more.
    await expect(casino.system.rounds.postScannedCard(roundId, '2S', dealer)).rejects.toMatchObject(
      { code: 'ROUND_FINISHED' },
    );

    await waitForWallets(casino.system, ['tom']);
    expect(await findings(roundId)).toEqual([]);
    const { drawn, seals } = await atShoe(roundId);
    expect(drawn.map((c) => c.card)).toEqual(['4C', '7D', '9H']);
    expect(seals).toEqual([drawn]);
    expect((await voidedEvent(roundId))?.discarded).toEqual([drawn[2]]);
  });

  it('a void after the round completed and before settlement handled it: refunded, never paid', async () => {
    const roundId = await bettingRound('rng', 'uma');
    // Settlement held: its reactor stopped where it stands (its checkpoint is in the store).
    const settlement = casino.system.runningSubscriptions.find((s) => s.name === 'settlement')!;
    await settlement.stop();
    let resumed: ReturnType<typeof startSettlementReactor> | null = null;
    try {
      await casino.system.rounds.closeBetting(roundId, dealer);
      const dealt = await casino.system.rounds.deal(roundId, dealer);
      expect(dealt.status).toBe('completed');
      await casino.system.rounds.void(roundId, 'dealer exposed a card', supervisor);
      // Settlement now handles the completion with the void already in the log.
      resumed = startSettlementReactor(casino.system.commands, () => undefined);
      await waitForWallets(casino.system, ['uma']);
    } finally {
      await resumed?.stop();
    }
    expect(await findings(roundId)).toEqual([]);
    const types = await typesOf(roundId);
    expect(types).not.toContain('RoundSettled');
    expect(types).not.toContain('RoundResettled');
    expect(types.slice(-2)).toEqual(['RoundVoided', 'BetsRefunded']);
  });

  it('the shoe draws only for a round that committed to its deal: never for a round not opened or still betting', async () => {
    // A caller with a service token at the internal routes (the soak's fuzzer did it) cannot make
    // the shoe hand out cards no round holds.
    const system = as('svc', 'system');
    const roundId = await bettingRound('rng', 'uma');
    const { shoeId, roundNumber: number } = parseRoundId(roundId);
    const before = (await store.readStream(streams.shoe(shoeId))).length;
    const draw = (roundNumber: number) =>
      casino.system.shoes
        .drawRound({ shoeId, roundId: roundIdOf(shoeId, roundNumber), roundNumber }, system)
        .then(() => 'drawn', refusal);
    expect(await draw(number + 5)).toBe('ROUND_NOT_FOUND');
    expect(await draw(number)).toBe('ROUND_NOT_DEALING');
    const scanned = await casino.system.shoes
      .drawScannedCard(
        { shoeId, roundId, roundNumber: number, index: 0, card: '2D', hand: 'player' },
        system,
      )
      .then(() => 'drawn', refusal);
    expect(scanned).toBe('ROUND_NOT_DEALING');
    expect((await store.readStream(streams.shoe(shoeId))).length).toBe(before);

    // The round's own deal goes on as ever.
    await casino.system.rounds.closeBetting(roundId, dealer);
    expect((await casino.system.rounds.deal(roundId, dealer)).status).toBe('completed');
  });
});
