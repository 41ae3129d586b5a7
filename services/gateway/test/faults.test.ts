import { replayShoe, significantEventOf } from '@croupier/audit';
import type { Card } from '@croupier/baccarat';
import { DomainError, presetConfig, streams, type ShoePort } from '@croupier/contracts';
import { AutoDealer, RoundService } from '@croupier/round';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShoeEvidence, type System } from '../src/index.js';
import {
  as,
  openRoundWhenFree,
  placeBetsAs,
  startCasino,
  waitForWallets,
  type Casino,
} from './support/casino.js';

/**
 * The seed's fault policy (000) on its own: a deal that stalls is paused, a pause not resolved
 * is voided with refunds, a scanner shoe that runs out of cards ends its round. The limits are
 * short here; every wait below is "until it happened", never "within so long".
 */
const dealer = as('dan', 'dealer');
const supervisor = as('sue', 'supervisor');
const operator = as('olga', 'operator');

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
}

const reasonOf = (event: { data: unknown }) => (event.data as { reason: string }).reason;

async function roundEvents(system: System, roundId: string) {
  return system.store.readStream(streams.round(roundId));
}

async function scannerTable(system: System, tableId: string): Promise<void> {
  await system.rounds.openTable(
    {
      tableId,
      config: presetConfig('generic', { cardSource: 'scanner', decks: 1, cutCard: 14 }),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    operator,
  );
  // The first round's open brings the shoe in and is refused until the dealer burns.
  await system.rounds.openRound(tableId, dealer).catch(() => undefined);
  await system.shoes.burnScannedCard({ shoeId: `${tableId}.1`, shownCard: '2D' }, dealer);
}

async function fund(system: System, playerId: string, amount = 100_000): Promise<void> {
  await system.wallets.deposit(
    { playerId, amount, currency: 'EUR', reference: `${playerId}-funds` },
    operator,
  );
}

describe('a deal that stalls', () => {
  let casino: Casino;
  beforeAll(async () => {
    casino = await startCasino(undefined, { DEALING_STALL_MS: '150', VOID_AFTER_PAUSE_MS: '0' });
  });
  afterAll(async () => {
    await casino.close();
  });

  it('pauses a scanner round waiting for a card past the limit, as a significant event', async () => {
    const { system } = casino;
    await scannerTable(system, 'stall');
    const { roundId } = await system.rounds.openRound('stall', dealer);
    await system.rounds.closeBetting(roundId, dealer);
    await system.rounds.postScannedCard(roundId, '4C', dealer);
    const round = await until('the pause', async () => {
      const state = await system.rounds.getRound(roundId);
      return state.paused ? state : undefined;
    });
    expect(round.status).toBe('dealing');
    const paused = (await roundEvents(system, roundId)).filter((e) => e.type === 'RoundPaused');
    expect(paused).toHaveLength(1);
    const significant = significantEventOf(paused[0]!);
    expect(significant).toMatchObject({
      category: 'pause',
      tableId: 'stall',
      actor: { id: 'fault-watchdog', role: 'system' },
    });
    expect(significant!.summary).toMatch(/no card scanned for 0\.2 s \(1 dealt\)/);
    // Resumed, the round waits again and its stall clock starts again from the resume.
    await system.rounds.resume(roundId, supervisor);
    await until('the second pause', async () => {
      const events = await roundEvents(system, roundId);
      return events.filter((e) => e.type === 'RoundPaused').length === 2 ? events : undefined;
    });
    await system.rounds.void(roundId, 'card reader replaced mid-round', supervisor);
  });

  it('pauses an rng round whose deal keeps failing', async () => {
    const { system } = casino;
    let attempts = 0;
    // The shoe as seen by a dealer whose draws fail (a shoe service down, a vault that refuses).
    const failing: ShoePort = Object.assign(Object.create(system.shoes) as ShoePort, {
      drawRound: () => {
        attempts++;
        return Promise.reject(new Error('shoe service unavailable'));
      },
    });
    const jammed = new RoundService(system.commands, failing, system.wallets);
    await system.rounds.openTable(
      {
        tableId: 'jammed',
        config: presetConfig('live'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      operator,
    );
    const autoDealer = new AutoDealer(jammed, 'jammed', { bettingWindowMs: 0 });
    autoDealer.start();
    try {
      const round = await until('the pause', async () => {
        const state = await system.rounds.currentRound('jammed');
        return state?.paused === true ? state : undefined;
      });
      expect(round.status).toBe('closed');
      expect(attempts).toBeGreaterThan(0);
      const [paused] = (await roundEvents(system, round.roundId)).filter(
        (e) => e.type === 'RoundPaused',
      );
      expect(reasonOf(paused!)).toMatch(/rng deal/);
    } finally {
      await autoDealer.stop();
    }
    const round = (await system.rounds.currentRound('jammed'))!;
    await system.rounds.void(round.roundId, 'shoe service down', supervisor);
  });

  it('leaves a round alone while its limit is off (0)', async () => {
    const quiet = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '0' });
    try {
      const { system } = quiet;
      await scannerTable(system, 'quiet');
      const { roundId } = await system.rounds.openRound('quiet', dealer);
      await system.rounds.closeBetting(roundId, dealer);
      await system.readModels.syncToHead();
      expect(await system.dealingWatch.stalled(0)).toHaveLength(1);
      expect(await system.watchdog.sweep()).toEqual({ paused: [], voided: [], exhausted: [] });
      expect((await system.rounds.getRound(roundId)).paused).toBe(false);
    } finally {
      await quiet.close();
    }
  });
});

describe('when the watchdog looks next (ADR 0045)', () => {
  it('at the earliest deadline it knows, else half the shortest limit from now; never with both limits off', async () => {
    const watched = await startCasino(undefined, {
      DEALING_STALL_MS: '60000',
      VOID_AFTER_PAUSE_MS: '300000',
    });
    try {
      const { system } = watched;
      await system.readModels.syncToHead();
      const now = Date.now();
      expect(await system.watchdog.nextLook(now)).toBe(now + 30_000);
      await scannerTable(system, 'deadlines');
      const { roundId } = await system.rounds.openRound('deadlines', dealer);
      await system.rounds.closeBetting(roundId, dealer);
      await system.readModels.syncToHead();
      const since = (await system.dealingWatch.get(roundId))!.waitingSince!;
      // Waiting for its next card: due a whole stall limit after betting closed.
      expect(await system.watchdog.nextLook(since)).toBe(since + 30_000);
      expect(await system.watchdog.nextLook(since + 40_000)).toBe(since + 60_000);
      await system.rounds.pause(roundId, 'reader jammed', supervisor);
      await system.readModels.syncToHead();
      const pausedAt = (await system.dealingWatch.get(roundId))!.pausedAt!;
      // Paused, it no longer waits for a card: due when the pause has lasted too long.
      expect(await system.watchdog.nextLook(pausedAt + 280_000)).toBe(pausedAt + 300_000);
      await system.rounds.void(roundId, 'reader replaced', supervisor);
    } finally {
      await watched.close();
    }
    const off = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '0' });
    try {
      expect(await off.system.watchdog.nextLook()).toBeNull();
    } finally {
      await off.close();
    }
  });
});

describe('a pause not resolved', () => {
  let casino: Casino;
  beforeAll(async () => {
    casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '150' });
  });
  afterAll(async () => {
    await casino.close();
  });

  it('voids the round past the limit and refunds every stake', async () => {
    const { system } = casino;
    await scannerTable(system, 'camera');
    await fund(system, 'carol');
    const { roundId } = await system.rounds.openRound('camera', dealer);
    await placeBetsAs(system, roundId, 'carol', [
      { type: 'player', amount: 1_000 },
      { type: 'tie', amount: 500 },
    ]);
    await system.rounds.closeBetting(roundId, dealer);
    await system.rounds.pause(roundId, 'table camera offline', supervisor);
    const voided = await until('the void', async () => {
      const state = await system.rounds.getRound(roundId);
      return state.status === 'voided' ? state : undefined;
    });
    expect(voided.paused).toBe(false);
    await waitForWallets(system, ['carol']);
    const wallet = await system.wallets.getWallet('carol');
    expect(wallet.balance).toBe(100_000);
    const events = await roundEvents(system, roundId);
    const [voidEvent] = events.filter((e) => e.type === 'RoundVoided');
    expect(reasonOf(voidEvent!)).toMatch(/not resumed within 0\.2 s .*table camera offline/);
    expect(significantEventOf(voidEvent!)?.actor).toEqual({ id: 'fault-watchdog', role: 'system' });
    expect(events.filter((e) => e.type === 'BetsRefunded')).toHaveLength(1);
  });

  it('leaves a round resumed in time alone', async () => {
    const { system } = casino;
    await scannerTable(system, 'resumed');
    const { roundId } = await system.rounds.openRound('resumed', dealer);
    await system.rounds.closeBetting(roundId, dealer);
    await system.rounds.pause(roundId, 'card on the floor', supervisor);
    await system.rounds.resume(roundId, supervisor);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await system.watchFaults();
    const round = await system.rounds.getRound(roundId);
    expect(round.status).toBe('closed');
    expect(round.paused).toBe(false);
  });
});

describe('a scanner shoe that runs out of cards', () => {
  let casino: Casino;
  beforeAll(async () => {
    casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '0' });
  });
  afterAll(async () => {
    await casino.close();
  });

  it('voids the round left waiting, refunds it and closes the shoe as exhausted', async () => {
    const { system } = casino;
    await scannerTable(system, 'empty');
    await fund(system, 'dave');
    // The 49 cards after the burn (2D shown, two face down), each once: a one-deck shoe.
    const deck: Card[] = [];
    for (const suit of ['C', 'D', 'H', 'S'])
      for (const rank of ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'])
        if (`${rank}${suit}` !== '2D') deck.push(`${rank}${suit}` as Card);
    const left = deck.slice(0, 52 - 3);
    let voidedRound: string | null = null;
    while (voidedRound === null) {
      const { roundId } = await openRoundWhenFree(system, 'empty');
      await placeBetsAs(system, roundId, 'dave', [{ type: 'banker', amount: 100 }]);
      await system.rounds.closeBetting(roundId, dealer);
      let round = await system.rounds.getRound(roundId);
      while (round.status === 'closed' || round.status === 'dealing')
        round = await system.rounds.postScannedCard(roundId, left.shift()!, dealer);
      if (round.status === 'voided') voidedRound = roundId;
      else await system.rounds.confirmResult(roundId, dealer);
    }
    expect(left).toHaveLength(0);
    const shoe = (await system.shoes.getShoe('empty.1'))!;
    expect(shoe).toMatchObject({ status: 'closed', cardsLeft: 0 });
    const [closed] = (await system.store.readStream(streams.shoe('empty.1'))).filter(
      (e) => e.type === 'ShoeClosed',
    );
    expect(closed!.data).toMatchObject({ reason: 'exhausted' });
    expect(significantEventOf(closed!)?.category).toBe('shoe-closed-early');
    const [voided] = (await roundEvents(system, voidedRound)).filter(
      (e) => e.type === 'RoundVoided',
    );
    expect(reasonOf(voided!)).toMatch(/ran out of cards .*cut card was never reported/);
    await waitForWallets(system, ['dave']);
    expect((await roundEvents(system, voidedRound)).map((e) => e.type)).toContain('BetsRefunded');
    // The shoe replays valid: the void and the exhausted close are facts of its streams.
    const replay = replayShoe((await loadShoeEvidence(system.store, 'empty.1'))!);
    expect(replay.verdict.findings).toEqual([]);
    expect(replay.verdict.ok).toBe(true);
    // The table goes on with a new shoe, which the dealer burns first.
    const next = await openRoundWhenFree(system, 'empty').catch((error: unknown) => error);
    expect(next).toBeInstanceOf(DomainError);
    expect((next as DomainError).details).toMatchObject({ shoeId: 'empty.2', next: 'burn-shoe' });
  });
});
