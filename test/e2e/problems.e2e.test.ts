import { randomUUID } from 'node:crypto';
import { ERROR_STATUS, type ErrorCode, type Role } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it, vi, type RunnerTask } from 'vitest';
import type { Response } from '../support/api.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  expectStatus,
  fund,
  openRound,
  openTable,
  settled,
  type RoundView,
} from '../support/play.js';

/**
 * The error codes each operation documents (its routes' `config.problems`, in /docs/json)
 * against what the operation really answers, on real PostgreSQL: every code provoked here must
 * be documented, and codes a route cannot answer must stay out of its documentation, so that
 * the guesses the document makes for undeclared routes (every 409 and 422 for a command, every
 * *_NOT_FOUND for a path parameter) cannot come back unnoticed.
 */

type Operation =
  | 'POST /v1/rounds/{roundId}/bets'
  | 'DELETE /v1/rounds/{roundId}/bets'
  | 'POST /v1/rounds/{roundId}/rebet'
  | 'POST /v1/rounds/{roundId}/deal'
  | 'POST /v1/rounds/{roundId}/cards'
  | 'POST /v1/rounds/{roundId}/cards/{shoePosition}/correction'
  | 'POST /v1/rounds/{roundId}/cut-card'
  | 'POST /v1/rounds/{roundId}/void'
  | 'POST /v1/tables/{tableId}/rounds'
  | 'POST /v1/tables/{tableId}/close'
  | 'POST /v1/tables/{tableId}/shoes'
  | 'POST /v1/tables/{tableId}/shoes/current/close'
  | 'POST /v1/shoes/{shoeId}/burn'
  | 'POST /v1/wallets/{playerId}/deposits'
  | 'POST /v1/wallets/{playerId}/withdrawals'
  | 'GET /v1/audit/rounds/{roundId}';

/** Per operation, codes it cannot answer: each was in the guess for it. */
const NEVER: Readonly<Record<Operation, readonly ErrorCode[]>> = {
  // Betting refuses a round past betting as BETTING_CLOSED, whatever followed.
  'POST /v1/rounds/{roundId}/bets': ['ROUND_NOT_DEALING', 'ROUND_FINISHED', 'TABLE_NOT_FOUND'],
  'DELETE /v1/rounds/{roundId}/bets': ['INSUFFICIENT_FUNDS', 'DUPLICATE_BET'],
  // A rebet repeats bets this table took: their type, seat and mode are offered.
  'POST /v1/rounds/{roundId}/rebet': ['UNKNOWN_BET', 'BET_NOT_OFFERED', 'WALLET_NOT_FOUND'],
  // A player's deal places their rebet: funds, bet ids and betting are its refusals.
  'POST /v1/rounds/{roundId}/deal': ['ROUND_NOT_PAUSED', 'SHOE_NOT_FINISHED'],
  'POST /v1/rounds/{roundId}/cards': ['DUPLICATE_BET', 'SHOE_NOT_FOUND'],
  'POST /v1/rounds/{roundId}/cards/{shoePosition}/correction': ['BETTING_CLOSED', 'ROUND_PAUSED'],
  'POST /v1/rounds/{roundId}/cut-card': ['INSUFFICIENT_FUNDS', 'ROUND_PAUSED'],
  // A paused round, and a settled one, can be voided; voiding a voided one changes nothing.
  'POST /v1/rounds/{roundId}/void': ['ROUND_PAUSED', 'ROUND_FINISHED', 'WALLET_NOT_FOUND'],
  'POST /v1/tables/{tableId}/rounds': ['ROUND_NOT_FOUND', 'DUPLICATE_BET'],
  'POST /v1/tables/{tableId}/close': ['ROUND_IN_PROGRESS', 'SHOE_NOT_FOUND'],
  'POST /v1/tables/{tableId}/shoes': ['SHOE_NOT_FOUND', 'INSUFFICIENT_FUNDS'],
  'POST /v1/tables/{tableId}/shoes/current/close': ['INSUFFICIENT_FUNDS', 'BETTING_CLOSED'],
  // The shown card is the shoe's first: the shoe can always hold it.
  'POST /v1/shoes/{shoeId}/burn': ['IMPOSSIBLE_CARD', 'INSUFFICIENT_FUNDS'],
  // A first deposit opens the wallet; a deposit never takes money out.
  'POST /v1/wallets/{playerId}/deposits': ['WALLET_NOT_FOUND', 'INSUFFICIENT_FUNDS'],
  // A withdrawal names no currency; its amount is a positive integer by schema.
  'POST /v1/wallets/{playerId}/withdrawals': ['CURRENCY_MISMATCH', 'INVALID_AMOUNT'],
  'GET /v1/audit/rounds/{roundId}': ['SHOE_NOT_FOUND', 'TABLE_NOT_FOUND', 'WALLET_NOT_FOUND'],
};

interface Problem {
  readonly code: string;
  readonly status: number;
}

interface OpenApiOperation {
  responses: Record<
    string,
    { content?: Record<string, { schema?: { allOf?: { properties?: unknown }[] } }> }
  >;
}

let harness: Harness;
let paths: Record<string, Record<string, OpenApiOperation>>;
/** The codes each operation answered, over the whole file. */
const provoked = new Map<Operation, Set<string>>();

/** Every error code the document lists for an operation, across its problem responses. */
function documented(operation: string): Set<string> {
  const [method, path] = operation.split(' ') as [string, string];
  const found = paths[path]?.[method.toLowerCase()];
  if (found === undefined) throw new Error(`/docs/json has no ${operation}`);
  const codes = new Set<string>();
  for (const response of Object.values(found.responses)) {
    const schema = response.content?.['application/problem+json']?.schema;
    const properties = schema?.allOf?.[1]?.properties as { code?: { enum?: string[] } } | undefined;
    for (const code of properties?.code?.enum ?? []) codes.add(code);
  }
  return codes;
}

/** The answer is the problem `code`, and the operation documents it. */
function expectProblem(operation: Operation, response: Response, code: ErrorCode): void {
  const body = response.body as Problem;
  const where = `${operation}: ${response.status} ${JSON.stringify(body)}`;
  expect(body.code, where).toBe(code);
  expect(response.status, where).toBe(ERROR_STATUS[code]);
  expect([...documented(operation)], `${where} is not documented`).toContain(code);
  expect(NEVER[operation], `${where}: NEVER says it cannot answer this`).not.toContain(code);
  provoked.set(operation, (provoked.get(operation) ?? new Set()).add(code));
}

const as = (role: Role, sub?: string) => harness.api.as(role, sub);
const bet = (roundId: string, player: string, bets: Record<string, unknown>[]) =>
  as('player', player).post(`/v1/rounds/${roundId}/bets`, {
    bets: bets.map((one) => ({ betId: randomUUID(), ...one })),
  });
const dealer = (roundId: string, step: string, body?: unknown) =>
  as('dealer').post<RoundView>(`/v1/rounds/${roundId}/${step}`, body);
const supervisor = (roundId: string, step: string, body?: unknown) =>
  as('supervisor').post<RoundView>(`/v1/rounds/${roundId}/${step}`, body);
const REASON = { reason: 'the table camera is offline' };
const NO_ROUND = 'nowhere.1.1';

beforeAll(async () => {
  // Distributed, the gateway serves the whole API's document (and the audit); the services answer.
  harness = await startHarness({ store: 'memory', gateway: true });
  const document = await harness.api.raw<{ paths: typeof paths }>('GET', '/docs/json');
  paths = expectStatus(document, 200).paths;
  await fund(harness.api, ['ann', 'bram', 'dan'], 1_000_000);
  await fund(harness.api, ['cat'], 1_000);
  await fund(harness.api, ['yuki'], 10_000, 'USD');
});
afterAll(async () => {
  await harness.close();
});

describe('the document declares, it does not guess', () => {
  it('lists no reserved code, and no operation every kind of missing resource', () => {
    const resources: ErrorCode[] = [
      'TABLE_NOT_FOUND',
      'SHOE_NOT_FOUND',
      'ROUND_NOT_FOUND',
      'WALLET_NOT_FOUND',
    ];
    const operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThanOrEqual(36);
    for (const operation of operations) {
      const codes = documented(operation);
      // The guess gave every command every 409, ROUND_NOT_OPEN (answered by nothing) included.
      expect(codes.has('ROUND_NOT_OPEN'), operation).toBe(false);
      expect(
        resources.every((code) => codes.has(code)),
        operation,
      ).toBe(false);
    }
  });
});

describe('bets', () => {
  let roundId: string;
  beforeAll(async () => {
    await openTable(harness.api, 'prob-bets', 'generic');
    roundId = (await openRound(harness.api, 'prob-bets')).roundId;
  });

  it('answers the rules of the table with documented codes', async () => {
    const op = 'POST /v1/rounds/{roundId}/bets';
    const refusals: [Record<string, unknown>, ErrorCode][] = [
      [{ type: 'tiger', amount: 100 }, 'UNKNOWN_BET'],
      [{ type: 'player_pair', amount: 100 }, 'BET_NOT_OFFERED'],
      [{ type: 'player', amount: 12.5 }, 'INVALID_AMOUNT'],
      [{ type: 'player', amount: 50 }, 'BET_BELOW_MIN'],
      [{ type: 'player', amount: 200_000 }, 'BET_ABOVE_MAX'],
      [{ type: 'player', amount: 100, seat: 3 }, 'INVALID_SEAT'],
      [{ type: 'banker', amount: 100, bankerMode: 'no_commission' }, 'BANKER_MODE_NOT_OFFERED'],
    ];
    for (const [one, code] of refusals) expectProblem(op, await bet(roundId, 'ann', [one]), code);
    expectProblem(
      op,
      await bet(NO_ROUND, 'ann', [{ type: 'player', amount: 100 }]),
      'ROUND_NOT_FOUND',
    );

    await openTable(harness.api, 'prob-live', 'live');
    const live = await openRound(harness.api, 'prob-live');
    expectProblem(
      op,
      await bet(live.roundId, 'ann', [{ type: 'player', amount: 600_000 }]),
      'BET_DIFFERENCE_LIMIT',
    );

    // Player Pair only in a shoe's first round: round 1 is voided, round 2 is too late.
    await openTable(harness.api, 'prob-early', 'generic', {
      bets: {
        player: { min: 100, max: 100_000, maxRound: null },
        player_pair: { min: 100, max: 10_000, maxRound: 1 },
      },
    });
    const first = await openRound(harness.api, 'prob-early');
    expectStatus(await bet(first.roundId, 'ann', [{ type: 'player_pair', amount: 100 }]), 201);
    expectStatus(await supervisor(first.roundId, 'void', REASON), 200);
    const second = await openRound(harness.api, 'prob-early');
    expectProblem(
      op,
      await bet(second.roundId, 'ann', [{ type: 'player_pair', amount: 100 }]),
      'BET_PAST_MAX_ROUND',
    );
    expectProblem(
      'POST /v1/rounds/{roundId}/rebet',
      await as('player', 'ann').post(`/v1/rounds/${second.roundId}/rebet`, { multiplier: 1 }),
      'BET_PAST_MAX_ROUND',
    );
  });

  it('answers bet ids, wallets and the round state with documented codes', async () => {
    const op = 'POST /v1/rounds/{roundId}/bets';
    const betId = randomUUID();
    const once = { type: 'player', amount: 100, betId };
    expectStatus(await bet(roundId, 'ann', [once]), 201);
    expectProblem(op, await bet(roundId, 'ann', [once]), 'DUPLICATE_BET');
    expectProblem(op, await bet(roundId, 'ann', [{ ...once, amount: 200 }]), 'ID_CONFLICT');
    const twice = randomUUID();
    expectProblem(
      op,
      await bet(roundId, 'ann', [
        { type: 'player', amount: 100, betId: twice },
        { type: 'tie', amount: 100, betId: twice },
      ]),
      'VALIDATION_ERROR',
    );
    const player = [{ type: 'player', amount: 1_000 }];
    expectProblem(op, await bet(roundId, 'ghost', player), 'WALLET_NOT_FOUND');
    expectProblem(op, await bet(roundId, 'yuki', player), 'CURRENCY_MISMATCH');
    expectProblem(
      op,
      await bet(roundId, 'cat', [{ type: 'player', amount: 5_000 }]),
      'INSUFFICIENT_FUNDS',
    );

    expectProblem(
      'DELETE /v1/rounds/{roundId}/bets',
      await as('player', 'dan').delete(`/v1/rounds/${roundId}/bets`),
      'NO_BETS_TO_CLEAR',
    );
    expectStatus(await dealer(roundId, 'pause', REASON), 200);
    expectProblem(op, await bet(roundId, 'ann', player), 'ROUND_PAUSED');
    expectProblem(
      'DELETE /v1/rounds/{roundId}/bets',
      await as('player', 'ann').delete(`/v1/rounds/${roundId}/bets`),
      'ROUND_PAUSED',
    );
    expectStatus(await supervisor(roundId, 'resume'), 200);
    expectStatus(await dealer(roundId, 'close-betting'), 200);
    expectProblem(op, await bet(roundId, 'ann', player), 'BETTING_CLOSED');
    // Settled, the round still answers BETTING_CLOSED.
    expectStatus(await dealer(roundId, 'deal'), 200);
    await settled(harness.api, roundId);
    expectProblem(op, await bet(roundId, 'ann', player), 'BETTING_CLOSED');
  });
});

describe('rebet', () => {
  const op = 'POST /v1/rounds/{roundId}/rebet';
  const rebet = (roundId: string, player: string, multiplier: 1 | 2) =>
    as('player', player).post(`/v1/rounds/${roundId}/rebet`, { multiplier });

  it('answers what can refuse repeated bets with documented codes', async () => {
    await openTable(harness.api, 'prob-rebet', 'generic');
    const first = await openRound(harness.api, 'prob-rebet');
    expectStatus(await bet(first.roundId, 'bram', [{ type: 'player', amount: 60_000 }]), 201);
    expectStatus(await bet(first.roundId, 'cat', [{ type: 'player', amount: 1_000 }]), 201);
    expectStatus(await dealer(first.roundId, 'close-betting'), 200);
    expectStatus(await dealer(first.roundId, 'deal'), 200);
    await settled(harness.api, first.roundId);
    // cat's winnings, if any, go once paid: nothing is left to repeat the stake with.
    const { available } = await vi.waitFor(
      async () => {
        const wallet = expectStatus(
          await as('operator').get<{ available: number; openStakes: number }>('/v1/wallets/cat'),
          200,
        );
        if (wallet.openStakes > 0) throw new Error('cat still has a stake open');
        return wallet;
      },
      { timeout: 20_000, interval: 20 },
    );
    if (available > 0) {
      expectStatus(
        await as('operator').post('/v1/wallets/cat/withdrawals', {
          amount: available,
          reference: 'prob-rebet-cat',
        }),
        201,
      );
    }
    const second = await openRound(harness.api, 'prob-rebet');
    const { roundId } = second;

    expectProblem(op, await rebet(NO_ROUND, 'bram', 1), 'ROUND_NOT_FOUND');
    expectProblem(op, await rebet(roundId, 'dan', 1), 'NO_PREVIOUS_BETS');
    expectProblem(op, await rebet(roundId, 'bram', 2), 'BET_ABOVE_MAX');
    expectProblem(op, await rebet(roundId, 'cat', 1), 'INSUFFICIENT_FUNDS');
    expectStatus(await rebet(roundId, 'bram', 1), 201);
    expectProblem(op, await rebet(roundId, 'bram', 1), 'DUPLICATE_BET');
    expectProblem(op, await rebet(roundId, 'bram', 2), 'BETS_ALREADY_PLACED');
    // Cleared, the bets can be repeated again: a rebet of its own, under ids of its own.
    expectStatus(await as('player', 'bram').delete(`/v1/rounds/${roundId}/bets`), 200);
    expectStatus(await rebet(roundId, 'bram', 1), 201);
    expectStatus(await dealer(roundId, 'pause', REASON), 200);
    expectProblem(op, await rebet(roundId, 'bram', 1), 'ROUND_PAUSED');
    expectStatus(await supervisor(roundId, 'resume'), 200);
    expectStatus(await dealer(roundId, 'close-betting'), 200);
    expectProblem(op, await rebet(roundId, 'bram', 1), 'BETTING_CLOSED');
  });
});

describe('dealing an rng round', () => {
  const op = 'POST /v1/rounds/{roundId}/deal';

  it('answers the round state with documented codes', async () => {
    await openTable(harness.api, 'prob-deal', 'generic');
    const { roundId } = await openRound(harness.api, 'prob-deal');
    expectProblem(op, await dealer(NO_ROUND, 'deal'), 'ROUND_NOT_FOUND');
    expectProblem(op, await dealer(roundId, 'deal'), 'ROUND_NOT_DEALING');
    expectProblem(
      'POST /v1/tables/{tableId}/rounds',
      await as('dealer').post('/v1/tables/prob-deal/rounds'),
      'ROUND_IN_PROGRESS',
    );
    expectProblem(
      'POST /v1/tables/{tableId}/shoes/current/close',
      await as('supervisor').post('/v1/tables/prob-deal/shoes/current/close'),
      'ROUND_IN_PROGRESS',
    );
    expectProblem(
      'POST /v1/tables/{tableId}/shoes',
      await as('dealer').post('/v1/tables/prob-deal/shoes'),
      'SHOE_NOT_FINISHED',
    );
    expectStatus(await dealer(roundId, 'close-betting'), 200);
    expectStatus(await dealer(roundId, 'pause', REASON), 200);
    expectProblem(op, await dealer(roundId, 'deal'), 'ROUND_PAUSED');
    expectStatus(await supervisor(roundId, 'void', REASON), 200);
    expectProblem(op, await dealer(roundId, 'deal'), 'ROUND_FINISHED');
    expectProblem(
      'POST /v1/rounds/{roundId}/cut-card',
      await dealer(roundId, 'cut-card'),
      'WRONG_CARD_SOURCE',
    );
    expectProblem(
      'POST /v1/rounds/{roundId}/cards/{shoePosition}/correction',
      await supervisor(roundId, 'cards/0/correction', { card: 'AS', reason: 'misread' }),
      'ROUND_FINISHED',
    );
    expectProblem(
      'POST /v1/rounds/{roundId}/void',
      await supervisor(NO_ROUND, 'void', REASON),
      'ROUND_NOT_FOUND',
    );

    const close = (tableId: string) =>
      as('operator').post(`/v1/tables/${tableId}/close`, { reason: 'end of the session' });
    expectStatus(await close('prob-deal'), 200);
    expectProblem('POST /v1/tables/{tableId}/close', await close('prob-deal'), 'TABLE_CLOSED');
    expectProblem('POST /v1/tables/{tableId}/close', await close('nowhere'), 'TABLE_NOT_FOUND');
    expectProblem(
      'POST /v1/tables/{tableId}/rounds',
      await as('dealer').post('/v1/tables/prob-deal/rounds'),
      'TABLE_CLOSED',
    );
    expectProblem(
      'POST /v1/tables/{tableId}/rounds',
      await as('dealer').post('/v1/tables/nowhere/rounds'),
      'TABLE_NOT_FOUND',
    );
    expectProblem(
      'POST /v1/tables/{tableId}/shoes',
      await as('dealer').post('/v1/tables/nowhere/shoes'),
      'TABLE_NOT_FOUND',
    );
    expectProblem(
      'POST /v1/tables/{tableId}/shoes/current/close',
      await as('supervisor').post('/v1/tables/nowhere/shoes/current/close'),
      'TABLE_NOT_FOUND',
    );
  });
});

describe('a scanner shoe', () => {
  const cards = 'POST /v1/rounds/{roundId}/cards';
  const correction = 'POST /v1/rounds/{roundId}/cards/{shoePosition}/correction';
  const burn = 'POST /v1/shoes/{shoeId}/burn';
  const post = (roundId: string, card: string) => dealer(roundId, 'cards', { card });
  const correct = (roundId: string, position: number, card: string) =>
    supervisor(roundId, `cards/${position}/correction`, { card, reason: 'the reader misread it' });

  it('answers the burn, the cards and their corrections with documented codes', async () => {
    // One deck: the burn shows the king of spades, so no other can come out.
    await openTable(harness.api, 'prob-scan', 'generic', {
      cardSource: 'scanner',
      decks: 1,
      cutCard: 14,
    });
    expectProblem(
      'POST /v1/tables/{tableId}/rounds',
      await as('dealer').post('/v1/tables/prob-scan/rounds'),
      'INVALID_DEAL',
    );
    const burnCard = (shoeId: string, card: string) =>
      as('dealer').post(`/v1/shoes/${shoeId}/burn`, { card });
    expectProblem(burn, await burnCard('prob-scan.1', 'ZZ'), 'VALIDATION_ERROR');
    expectProblem(burn, await burnCard('nowhere.1', 'KS'), 'SHOE_NOT_FOUND');
    expectStatus(await burnCard('prob-scan.1', 'KS'), 200);
    expectProblem(burn, await burnCard('prob-scan.1', 'KH'), 'INVALID_DEAL');

    const first = (await openRound(harness.api, 'prob-scan')).roundId;
    expectProblem(cards, await post(NO_ROUND, '9C'), 'ROUND_NOT_FOUND');
    expectProblem(cards, await post(first, '9C'), 'ROUND_NOT_DEALING');
    expectProblem(
      'POST /v1/rounds/{roundId}/deal',
      await dealer(first, 'deal'),
      'WRONG_CARD_SOURCE',
    );
    expectStatus(await dealer(first, 'close-betting'), 200);
    expectProblem(cards, await post(first, 'KS'), 'IMPOSSIBLE_CARD');
    expectStatus(await post(first, '9C'), 200); // Player
    expectStatus(await post(first, '2D'), 200); // Banker
    expectStatus(await post(first, 'KH'), 200); // Player: a natural 9
    const dealt = expectStatus(await post(first, '3S'), 200); // Banker
    expect(dealt.status).toBe('dealt');
    expectProblem(cards, await post(first, '4H'), 'INVALID_DEAL');
    const position = dealt.cards.player[0]!.shoePosition;
    expectProblem(correction, await correct(NO_ROUND, position, '5C'), 'ROUND_NOT_FOUND');
    expectProblem(correction, await correct(first, 999, '5C'), 'INVALID_CORRECTION');
    expectProblem(correction, await correct(first, position, 'KS'), 'IMPOSSIBLE_CARD');
    expectStatus(await dealer(first, 'confirm'), 200);

    // A round voided with a card short: the round refuses the next, while the shoe is open.
    const second = (await openRound(harness.api, 'prob-scan')).roundId;
    expectStatus(await dealer(second, 'close-betting'), 200);
    expectStatus(await post(second, 'AC'), 200);
    expectStatus(await dealer(second, 'pause', REASON), 200);
    expectProblem(cards, await post(second, 'AD'), 'ROUND_PAUSED');
    expectStatus(await supervisor(second, 'void', REASON), 200);
    // Refused before the shoe records it: the card stays in the shoe for the next round.
    const shoeEvents = async () =>
      (await harness.store.readStream(`shoe-${second.slice(0, second.lastIndexOf('.'))}`)).length;
    const recorded = await shoeEvents();
    expectProblem(cards, await post(second, 'AD'), 'ROUND_FINISHED');
    expect(await shoeEvents()).toBe(recorded);
    expectProblem(correction, await correct(second, position, '5C'), 'ROUND_FINISHED');

    // Another, and the shoe closed behind it: the voided round refuses before the shoe is asked.
    const third = (await openRound(harness.api, 'prob-scan')).roundId;
    expectStatus(await dealer(third, 'close-betting'), 200);
    expectStatus(await post(third, '2C'), 200);
    expectStatus(await supervisor(third, 'void', REASON), 200);
    expectStatus(await as('supervisor').post('/v1/tables/prob-scan/shoes/current/close'), 200);
    expectProblem(cards, await post(third, '2H'), 'ROUND_FINISHED');
    expectProblem(
      'POST /v1/rounds/{roundId}/cut-card',
      await dealer(third, 'cut-card'),
      'SHOE_CLOSED',
    );
    expectProblem(
      'POST /v1/rounds/{roundId}/cut-card',
      await dealer(NO_ROUND, 'cut-card'),
      'ROUND_NOT_FOUND',
    );
  });
});

describe('wallets', () => {
  it('answers deposits and withdrawals with documented codes', async () => {
    const deposits = 'POST /v1/wallets/{playerId}/deposits';
    const withdrawals = 'POST /v1/wallets/{playerId}/withdrawals';
    const deposit = (player: string, amount: number, currency: string, reference: string) =>
      as('operator').post(`/v1/wallets/${player}/deposits`, { amount, currency, reference });
    const withdraw = (player: string, amount: number, reference: string) =>
      as('operator').post(`/v1/wallets/${player}/withdrawals`, { amount, reference });
    expectProblem(deposits, await deposit('yuki', 100, 'EUR', 'prob-eur'), 'CURRENCY_MISMATCH');
    expectStatus(await deposit('dan', 100, 'EUR', 'prob-dep'), 201);
    expectProblem(deposits, await deposit('dan', 200, 'EUR', 'prob-dep'), 'ID_CONFLICT');
    expectProblem(withdrawals, await withdraw('ghost', 100, 'prob-w'), 'WALLET_NOT_FOUND');
    expectProblem(withdrawals, await withdraw('yuki', 1_000_000, 'prob-w'), 'INSUFFICIENT_FUNDS');
    expectStatus(await withdraw('dan', 100, 'prob-w'), 201);
    expectProblem(withdrawals, await withdraw('dan', 200, 'prob-w'), 'ID_CONFLICT');
  });
});

describe('audit', () => {
  it('answers an unknown round with its documented code', async () => {
    expectProblem(
      'GET /v1/audit/rounds/{roundId}',
      await as('regulator').get(`/v1/audit/rounds/${NO_ROUND}`),
      'ROUND_NOT_FOUND',
    );
  });
});

/**
 * Each test checks its own answers against NEVER as it provokes them (expectProblem), so any
 * test runs alone; these check the table itself.
 */
describe('codes a route cannot answer', () => {
  it('stay out of its documentation', () => {
    for (const [operation, codes] of Object.entries(NEVER) as [Operation, ErrorCode[]][]) {
      const listed = documented(operation);
      for (const code of codes)
        expect(listed.has(code), `${operation} documents ${code}`).toBe(false);
    }
  });

  it('are listed for operations the document has', () => {
    for (const operation of Object.keys(NEVER)) expect(() => documented(operation)).not.toThrow();
  });
});

/**
 * Once the whole file has passed, every operation NEVER lists was provoked by some test, so no
 * row of it goes unchecked. (A test run alone provokes only its own: nothing to check then.)
 */
// eslint-disable-next-line no-empty-pattern -- vitest passes the file second; the first must be a pattern
afterAll(({}, file) => {
  const tests = (function all(tasks: readonly RunnerTask[]): RunnerTask[] {
    return tasks.flatMap((task) => (task.type === 'suite' ? all(task.tasks) : [task]));
  })(file.tasks);
  if (!tests.every((test) => test.result?.state === 'pass')) return;
  expect([...provoked.keys()].sort()).toEqual(Object.keys(NEVER).sort());
});
