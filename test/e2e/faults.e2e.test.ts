import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  settled,
} from '../support/play.js';

/**
 * The seed's fault policy (000) on its own, through the API: a scanner round that waits for a
 * card past the limit is paused, and voided with refunds when nobody resumes it. Distributed,
 * the round service's own watchdog does it (no gateway runs). The limits are short; every wait
 * is "until it happened".
 */
describe('a stalled deal, left alone', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      store: 'memory',
      env: { DEALING_STALL_MS: '300', VOID_AFTER_PAUSE_MS: '600' },
      // A stall of 300 ms is the point: in the distributed run, no file beside it.
      alone: true,
    });
    await openTable(harness.api, 'fault-scan', 'generic', { cardSource: 'scanner' });
    await fund(harness.api, ['gus'], 10_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is paused by the watchdog, then voided and refunded', async () => {
    const { api } = harness;
    const shoe = expectStatus(
      await api.as('dealer').post<{ shoeId: string }>('/v1/tables/fault-scan/shoes'),
      201,
    );
    expectStatus(await api.as('dealer').post(`/v1/shoes/${shoe.shoeId}/burn`, { card: '2D' }), 200);
    const round = await openRound(api, 'fault-scan');
    expectStatus(
      await placeBets(api, round.roundId, 'gus', [{ type: 'player', amount: 1_000 }]),
      201,
    );
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    expectStatus(
      await api.as('dealer').post(`/v1/rounds/${round.roundId}/cards`, { card: '4C' }),
      200,
    );
    // Read from the log: distributed, no process here serves the audit routes.
    const reasons = async (type: string) =>
      (await harness.store.readStream(`round-${round.roundId}`))
        .filter((event) => event.type === type)
        .map((event) => ({
          what: (event.data as { reason: string }).reason,
          actor: (event.metadata['actor'] as { id: string } | undefined) ?? null,
        }));
    await vi.waitFor(
      async () => {
        expect(await reasons('RoundPaused')).toHaveLength(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    const [paused] = await reasons('RoundPaused');
    expect(paused!.actor?.id).toBe('fault-watchdog');
    expect(paused!.what).toMatch(/dealing stalled/);
    const voided = await settled(api, round.roundId);
    expect(voided.status).toBe('voided');
    expect((await reasons('RoundVoided'))[0]!.what).toMatch(/not resumed within/);
    // Its deal had started: the shoe sealed the round first (distributed: over the shoe's
    // internal route), and the void records that no drawn card was left undealt (ADR 0033).
    const voidedEvent = (await harness.store.readStream(`round-${round.roundId}`)).find(
      (event) => event.type === 'RoundVoided',
    );
    expect((voidedEvent?.data as { discarded?: unknown[] }).discarded).toEqual([]);
    const sealed = (await harness.store.readStream(`shoe-${shoe.shoeId}`)).filter(
      (event) => event.type === 'RoundSealed',
    );
    expect(sealed.map((event) => (event.data as { cards: { card: string }[] }).cards)).toEqual([
      [expect.objectContaining({ card: '4C' })],
    ]);
    await vi.waitFor(
      async () => {
        expect(await balanceOf(api, 'gus')).toBe(10_000);
      },
      {
        timeout: 20_000,
        interval: 50,
      },
    );
  });
});
