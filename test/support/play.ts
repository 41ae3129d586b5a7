import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import type { ApiClient, Response } from './api.js';

export interface RoundView {
  roundId: string;
  shoeId: string;
  number: number;
  status: string;
  paused: boolean;
  bets: { betId: string; playerId: string; type: string; amount: number; status: string }[];
  cards: {
    player: { card: string; shoePosition: number }[];
    banker: { card: string; shoePosition: number }[];
  };
  result: { winner: string; playerTotal: number; bankerTotal: number } | null;
  settlement: {
    settlementId: string;
    lines: { betId: string; payout: number; result: string; commission: number }[];
  } | null;
}

export interface BetInput {
  type: string;
  amount: number;
  bankerMode?: string;
  seat?: number;
  betId?: string;
}

/** Asserts a response status, showing the body when it differs. */
export function expectStatus<T>(response: Response<T>, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

/** A small deterministic generator for test choices (not for cards: those come from the shoe). */
export function testRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function openTable(
  api: ApiClient,
  tableId: string,
  preset: string,
  config: Record<string, unknown> = {},
): Promise<void> {
  expectStatus(await api.as('operator').post('/v1/tables', { tableId, preset, config }), 201);
}

export async function fund(
  api: ApiClient,
  players: readonly string[],
  amount: number,
  currency = 'EUR',
): Promise<void> {
  for (const player of players) {
    expectStatus(
      await api.as('operator').post(`/v1/wallets/${player}/deposits`, {
        amount,
        currency,
        reference: `fund-${player}-${amount}`,
      }),
      201,
    );
  }
}

export async function openRound(api: ApiClient, tableId: string): Promise<RoundView> {
  return expectStatus(await api.as('dealer').post<RoundView>(`/v1/tables/${tableId}/rounds`), 201);
}

export async function placeBets(
  api: ApiClient,
  roundId: string,
  player: string,
  bets: BetInput[],
): Promise<Response<RoundView>> {
  // Each bet carries the id the API requires; a test that retries passes its own.
  return api.as('player', player).post<RoundView>(`/v1/rounds/${roundId}/bets`, {
    bets: bets.map((bet) => ({ betId: randomUUID(), ...bet })),
  });
}

/** Waits until the round's money is settled (or refunded, for a voided round). */
export async function settled(api: ApiClient, roundId: string): Promise<RoundView> {
  return vi.waitFor(
    async () => {
      const round = expectStatus(
        await api.as('regulator').get<RoundView>(`/v1/rounds/${roundId}`),
        200,
      );
      if (round.status === 'completed' && round.settlement === null)
        throw new Error(`${roundId} not settled yet`);
      if (round.status !== 'completed' && round.status !== 'voided')
        throw new Error(`${roundId} is ${round.status}`);
      return round;
    },
    { timeout: 20_000, interval: 20 },
  );
}

/** Opens a round, places everyone's bets, closes betting, deals, and waits for settlement. */
export async function playRound(
  api: ApiClient,
  tableId: string,
  bets: Record<string, BetInput[]>,
): Promise<RoundView> {
  const round = await openRound(api, tableId);
  for (const [player, playerBets] of Object.entries(bets)) {
    if (playerBets.length > 0)
      expectStatus(await placeBets(api, round.roundId, player, playerBets), 201);
  }
  expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
  expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
  return settled(api, round.roundId);
}

export async function balanceOf(api: ApiClient, player: string): Promise<number> {
  return expectStatus(
    await api.as('operator').get<{ balance: number }>(`/v1/wallets/${player}`),
    200,
  ).balance;
}
