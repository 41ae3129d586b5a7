import { DomainError, presetConfig, streams } from '@croupier/contracts';
import { MemoryEventStore } from '@croupier/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/index.js';
import { as, startCasino, TEST_SECRETS, type Casino } from './support/casino.js';

/**
 * What seamless mode refuses before anything is recorded (ADR 0029): settings it cannot run
 * with, deposits and withdrawals into a wallet that holds no money, and accrued-commission
 * tables. The operator's wallet is never called here, so its URL needs nothing behind it.
 */
const SEAMLESS = {
  WALLET_MODE: 'seamless',
  OPERATOR_WALLET_URL: 'http://127.0.0.1:9',
  OPERATOR_WALLET_SECRET: 'seamless-settings-secret-0123456789abcdef',
};

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig({ EVENTSTORE: 'pglite', ...TEST_SECRETS, AUTO_TABLES: '', ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
};

describe('seamless mode settings', () => {
  it('names the operator wallet settings it cannot start without', () => {
    expect(problemsOf({ WALLET_MODE: 'seamless' })).toEqual([
      'OPERATOR_WALLET_URL: required with WALLET_MODE=seamless',
      'OPERATOR_WALLET_SECRET: required with WALLET_MODE=seamless',
    ]);
    expect(problemsOf(SEAMLESS)).toEqual([]);
  });

  it('refuses auto tables that accrue commission, and only in seamless mode', () => {
    expect(problemsOf({ ...SEAMLESS, AUTO_TABLES: 'live,land-based' })).toEqual([
      'AUTO_TABLES: land-based accrues commission, which seamless mode does not support (WALLET_MODE=seamless)',
    ]);
    expect(problemsOf({ AUTO_TABLES: 'live,land-based' })).toEqual([]);
  });
});

describe('seamless mode refusals', () => {
  let casino: Casino;
  beforeAll(async () => {
    casino = await startCasino(undefined, SEAMLESS);
  });
  afterAll(async () => {
    await casino.close();
  });

  it.each([
    [
      'deposits',
      () =>
        casino.system.wallets.deposit(
          { playerId: 'ana', amount: 1_000, currency: 'EUR', reference: 'dep-1' },
          as('olga', 'operator'),
        ),
    ],
    [
      'withdrawals',
      () =>
        casino.system.wallets.withdraw(
          { playerId: 'ana', amount: 1_000, reference: 'wd-1' },
          as('olga', 'operator'),
        ),
    ],
  ])('refuses %s with HELD_BY_OPERATOR_WALLET, recording nothing', async (movement, move) => {
    const refusal: unknown = await move().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'HELD_BY_OPERATOR_WALLET' });
    expect((refusal as Error).message).toContain(`${movement} are refused in seamless mode`);
    expect(await casino.store.readStream(streams.wallet('ana'))).toEqual([]);
  });

  it('refuses to open a table whose commission is accrued, and opens one that deducts it', async () => {
    const refusal: unknown = await casino.system.rounds
      .openTable(
        {
          tableId: 'salon',
          config: presetConfig('land-based'),
          dealing: { mode: 'manual', bettingWindowMs: 0 },
        },
        as('olga', 'operator'),
      )
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'INVALID_TABLE_CONFIG' });
    expect((refusal as Error).message).toContain('seamless mode');
    expect(await casino.store.readStream(streams.table('salon'))).toEqual([]);
    const opened = await casino.system.rounds.openTable(
      {
        tableId: 'salon',
        config: presetConfig('land-based', { commission: 'deducted' }),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('olga', 'operator'),
    );
    expect(opened.config?.commission).toBe('deducted');
  });

  it('refuses a round at an accrued-commission table opened before the deployment turned seamless', async () => {
    const store = new MemoryEventStore();
    const before = await startCasino(store);
    await before.system.rounds.openTable(
      {
        tableId: 'old-salon',
        config: presetConfig('land-based'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('olga', 'operator'),
    );
    await before.close();
    const after = await startCasino(store, SEAMLESS);
    try {
      const refusal: unknown = await after.system.rounds
        .openRound('old-salon', as('dan', 'dealer'))
        .catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: 'INVALID_TABLE_CONFIG' });
      expect((refusal as Error).message).toContain('seamless mode');
      expect(await store.readStream(streams.shoe('old-salon.1'))).toEqual([]);
    } finally {
      await after.close();
      await store.close();
    }
  });
});
