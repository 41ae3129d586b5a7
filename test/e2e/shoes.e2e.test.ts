import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents } from '../support/invariants.js';
import { expectStatus, fund, openRound, openTable, placeBets, settled } from '../support/play.js';

interface Shoe {
  shoeId: string;
  number: number;
  status: string;
  cardSource: string;
  commitment: string | null;
}

interface Problem {
  code: string;
  status: number;
  detail: string;
}

describe('shoes: a dealer starts one, a supervisor closes one, each in its turn', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'shoe-rng', 'generic');
    await openTable(harness.api, 'shoe-scan', 'generic', { cardSource: 'scanner' });
    await openTable(harness.api, 'shoe-single', 'single-deck');
    await fund(harness.api, ['sly'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  const startShoe = (tableId: string) =>
    harness.api.as('dealer').post<Shoe>(`/v1/tables/${tableId}/shoes`);

  /** A refused request appends nothing and answers problem+json with this code. */
  async function refused(request: () => Promise<{ status: number; body: unknown }>, code: string) {
    const before = (await allEvents(harness.store)).length;
    const response = await request();
    expect(response.body).toMatchObject({ code });
    expect((await allEvents(harness.store)).length).toBe(before);
    return response.body as Problem;
  }

  it('starts a shoe with its commitment, and refuses a second while the first is in play', async () => {
    const shoe = expectStatus(await startShoe('shoe-rng'), 201);
    expect(shoe).toMatchObject({ shoeId: 'shoe-rng.1', number: 1, status: 'dealing' });
    expect(shoe.commitment).toMatch(/^[0-9a-f]{64}$/);
    const again = await refused(() => startShoe('shoe-rng'), 'SHOE_NOT_FINISHED');
    expect(again.detail).toContain('shoe-rng.1');
    // The next round is dealt from the shoe the dealer started.
    const round = await openRound(harness.api, 'shoe-rng');
    expect(round.shoeId).toBe('shoe-rng.1');
    // Not while its round is being played either; then closed by a supervisor, the next starts.
    await refused(() => startShoe('shoe-rng'), 'SHOE_NOT_FINISHED');
    expectStatus(
      await placeBets(harness.api, round.roundId, 'sly', [{ type: 'tie', amount: 100 }]),
      201,
    );
    await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`);
    await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`);
    await settled(harness.api, round.roundId);
    const closed = expectStatus(
      await harness.api
        .as('supervisor')
        .post<Shoe & { seed?: string }>('/v1/tables/shoe-rng/shoes/current/close'),
      200,
    );
    expect(closed).toMatchObject({ shoeId: 'shoe-rng.1', status: 'closed' });
    const next = expectStatus(await startShoe('shoe-rng'), 201);
    expect(next).toMatchObject({ shoeId: 'shoe-rng.2', number: 2, status: 'dealing' });
    expect(next.commitment).not.toBe(shoe.commitment);
    expect(
      expectStatus(await harness.api.as('regulator').get<Shoe>('/v1/shoes/shoe-rng.2'), 200),
    ).toMatchObject({ status: 'dealing' });
  });

  it('leaves a scanner shoe to be burnt by the dealer before its first round', async () => {
    const shoe = expectStatus(await startShoe('shoe-scan'), 201);
    expect(shoe).toMatchObject({ cardSource: 'scanner', status: 'awaiting-burn' });
    await refused(
      () => harness.api.as('dealer').post('/v1/tables/shoe-scan/rounds'),
      'INVALID_DEAL',
    );
  });

  it('starts the next shoe of an every-round table once its round is settled', async () => {
    const round = await openRound(harness.api, 'shoe-single');
    await refused(() => startShoe('shoe-single'), 'ROUND_IN_PROGRESS');
    await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`);
    await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`);
    await settled(harness.api, round.roundId);
    const next = expectStatus(await startShoe('shoe-single'), 201);
    expect(next.number).toBe(2);
    const previous = expectStatus(
      await harness.api.as('regulator').get<Shoe>(`/v1/shoes/${round.shoeId}`),
      200,
    );
    expect(previous.status).toBe('closed');
  });

  it('refuses to start a shoe on a closed or unknown table', async () => {
    await refused(() => startShoe('no-such-table'), 'TABLE_NOT_FOUND');
    expectStatus(
      await harness.api.as('operator').post('/v1/tables/shoe-scan/close', { reason: 'end of day' }),
      200,
    );
    await refused(() => startShoe('shoe-scan'), 'TABLE_CLOSED');
  });
});
