import { CommandHandler, deterministicId, fold, systemContext } from '@croupier/application';
import { DomainError, streams } from '@croupier/contracts';
import { MemoryEventStore } from '@croupier/eventstore';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  walletAggregate,
  walletDecider,
  walletSnapshots,
  type WalletCommand,
} from '../src/index.js';

const context = systemContext('test');
const uuid = (...parts: (string | number)[]) => deterministicId(...parts.map(String));
const shifts = [uuid('shift', 1), uuid('shift', 2)];

/**
 * A random wallet history: deposits, withdrawals, stakes, payouts with and without commission,
 * refunds, adjustments and collections, over a few rounds and bets, so every map of the state
 * (open stakes, references, commission owed) fills and empties. Commands the wallet refuses
 * are part of the history too: they append nothing.
 */
const walletCommand = (playerId: string): fc.Arbitrary<WalletCommand> => {
  const bet = fc.integer({ min: 0, max: 11 });
  const roundOf = (b: number) => `t1.1.${(b % 4) + 1}`;
  return fc.oneof(
    fc
      .record({ ref: fc.integer({ min: 0, max: 6 }), amount: fc.integer({ min: 1, max: 5_000 }) })
      .map(({ ref, amount }): WalletCommand => ({
        type: 'Deposit',
        playerId,
        amount,
        currency: 'EUR',
        reference: `dep-${ref}`,
        maxBalance: 1_000_000_000,
      })),
    fc
      .record({ ref: fc.integer({ min: 0, max: 6 }), amount: fc.integer({ min: 1, max: 3_000 }) })
      .map(({ ref, amount }): WalletCommand => ({
        type: 'Withdraw',
        amount,
        reference: `wd-${ref}`,
      })),
    fc
      .record({ b: bet, amount: fc.integer({ min: 1, max: 500 }) })
      .map(({ b, amount }): WalletCommand => ({
        type: 'DebitStakes',
        playerId,
        roundId: roundOf(b),
        currency: 'EUR',
        stakes: [{ betId: uuid('bet', b), amount }],
      })),
    fc
      .record({
        b: bet,
        amount: fc.integer({ min: 0, max: 1_000 }),
        commission: fc.integer({ min: 0, max: 20 }),
        shift: fc.integer({ min: 0, max: 1 }),
      })
      .map(({ b, amount, commission, shift }): WalletCommand => ({
        type: 'CreditPayout',
        currency: 'EUR',
        settlementId: uuid('settlement', b),
        roundId: roundOf(b),
        betId: uuid('bet', b),
        amount,
        result: amount === 0 ? 'lose' : 'win',
        accruedCommission:
          commission === 0
            ? null
            : { tableId: 't1', seat: 1, shiftId: shifts[shift]!, amount: commission },
      })),
    bet.map((b): WalletCommand => ({
      type: 'RefundStake',
      betId: uuid('bet', b),
      roundId: roundOf(b),
      // Refused unless it matches the stake's amount: both outcomes are histories.
      amount: 100,
      reason: 'voided',
    })),
    fc
      .record({
        b: bet,
        delta: fc.integer({ min: -300, max: 300 }),
        commissionDelta: fc.integer({ min: -10, max: 10 }),
        shift: fc.integer({ min: 0, max: 1 }),
        n: fc.integer({ min: 0, max: 1_000 }),
      })
      .map(({ b, delta, commissionDelta, shift, n }): WalletCommand => ({
        type: 'AdjustPayout',
        currency: 'EUR',
        resettlementId: uuid('resettlement', n),
        roundId: roundOf(b),
        betId: uuid('bet', b),
        delta,
        commissionDelta,
        tableId: 't1',
        shiftId: shifts[shift]!,
        reason: 'correction',
      })),
    fc.integer({ min: 0, max: 1 }).map((shift): WalletCommand => ({
      type: 'CollectCommission',
      tableId: 't1',
      currentShiftId: shifts[shift]!,
      endedBy: { dealerChangeId: uuid('dealer-change', shift, Math.random()) },
    })),
  );
};

describe('wallet snapshots (ADR 0025)', () => {
  it('a snapshot and the events after it fold to the state of the whole stream', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(walletCommand('alice'), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        async (history, every) => {
          const store = new MemoryEventStore();
          const stream = streams.wallet(`alice-${run++}`);
          const snapshots = { storage: await store.openSnapshotStorage(), every };
          const writer = new CommandHandler(store, { snapshots });
          // The wallet exists first: a movement on a wallet never funded is not a history.
          const opening: WalletCommand = {
            type: 'Deposit',
            playerId: 'alice',
            amount: 1_000,
            currency: 'EUR',
            reference: 'opening',
            maxBalance: 1_000_000_000,
          };
          for (const command of [opening, ...history]) {
            try {
              await writer.handle(walletAggregate, stream, command, context, {
                eventIds: (events) => events.map(() => uuid('event', Math.random())),
              });
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
            }
          }
          await writer.flushSnapshots();
          const recorded = await store.readStream(stream);
          const whole = fold(walletDecider, recorded.map(walletAggregate.parse));
          const refused: unknown[] = [];
          const cold = new CommandHandler(store, {
            snapshots: { ...snapshots, onRefused: (refusal) => refused.push(refusal) },
          });
          const loaded = await cold.load(walletAggregate, stream);
          expect(refused).toEqual([]);
          expect(loaded.state).toEqual(whole);
          expect(loaded.revision).toBe(recorded.at(-1)?.revision ?? null);
          if (recorded.length >= every) expect(cold.stats().snapshots.used).toBe(1);
          await store.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('decodes what it encodes, maps and all', () => {
    const state = {
      exists: true,
      playerId: 'bob',
      currency: 'EUR',
      balance: 120,
      openStakes: new Map([[uuid('bet', 1), { roundId: 't1.1.1', amount: 30 }]]),
      refundedStakes: new Set([uuid('bet', 2)]),
      references: new Map([['deposit:first', 150]]),
      commissionOwed: new Map([[`t1/${shifts[0]!}`, 4]]),
    };
    const json = JSON.parse(JSON.stringify(walletSnapshots.encode(state))) as unknown;
    expect(walletSnapshots.decode(json)).toEqual(state);
  });

  it('refuses to decode a state of another shape', () => {
    expect(() => walletSnapshots.decode({ balance: '12' })).toThrow();
  });
});
