import type { WalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { available, walletDecider } from '../wallet.decider.js';
import { BET, deposited, SETTLEMENT, SHIFT } from '../wallet.fixtures.js';

const spec = deciderSpecification(walletDecider);

describe('wallet: commission', () => {
  it('owes commission per seat and collects each seat apart (002)', () => {
    const accruedAt = (seat: number, amount: number, betId: string): WalletEvent => ({
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat,
        shiftId: SHIFT,
        betId,
        settlementId: SETTLEMENT,
        amount,
      },
    });
    const history = [deposited, accruedAt(3, 20, BET), accruedAt(6, 15, SETTLEMENT)];
    const collected = (seat: number, amount: number): WalletEvent => ({
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId: SHIFT,
        seat,
        amount,
        dealerChangeId: SETTLEMENT,
      },
    });
    spec
      .given(history)
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: BET,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([collected(3, 20), collected(6, 15)]);
    expect(available(spec.stateAfter([...history, collected(3, 20)]))).toBe(965);
    // A collection recorded before seats were owned took the whole shift.
    const legacy: WalletEvent = {
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId: SHIFT,
        amount: 35,
        dealerChangeId: SETTLEMENT,
      },
    };
    const after = spec.stateAfter([...history, legacy]);
    expect(after.commissionOwed.size).toBe(0);
    expect(after.balance).toBe(965);
  });

  it('holds accrued commission back until its dealer shift ends, then collects it', () => {
    // (The shift still running is not collected; BET stands in for a later shift's id.)
    const accrued: WalletEvent = {
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat: 3,
        shiftId: SHIFT,
        betId: BET,
        settlementId: SETTLEMENT,
        amount: 20,
      },
    };
    const state = spec.stateAfter([deposited, accrued]);
    expect(state.balance).toBe(1_000);
    expect(available(state)).toBe(980);
    spec
      .given([deposited, accrued])
      .when({ type: 'Withdraw', amount: 981, reference: 'w' })
      .thenThrows({
        code: 'INSUFFICIENT_FUNDS',
      });
    spec
      .given([deposited, accrued])
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: BET,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([
        {
          type: 'CommissionCollected',
          data: {
            playerId: 'alice',
            tableId: 'salon',
            shiftId: SHIFT,
            seat: 3,
            amount: 20,
            dealerChangeId: SETTLEMENT,
          },
        },
      ]);
    spec
      .given([deposited, accrued])
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: SHIFT,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([]);
  });

  it('collects every shift, the one running too, when the table closes (its last shift ends)', () => {
    const accrued = (shiftId: string, amount: number): WalletEvent => ({
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat: 3,
        shiftId,
        betId: BET,
        settlementId: SETTLEMENT,
        amount,
      },
    });
    const history = [deposited, accrued(SHIFT, 20), accrued(BET, 15)];
    const closed = (shiftId: string, amount: number): WalletEvent => ({
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId,
        seat: 3,
        amount,
        tableClosedId: SETTLEMENT,
      },
    });
    spec
      .given(history)
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: null,
        endedBy: { tableClosedId: SETTLEMENT },
      })
      .then([closed(SHIFT, 20), closed(BET, 15)]);
    const after = spec.stateAfter([...history, closed(SHIFT, 20), closed(BET, 15)]);
    expect(after.commissionOwed.size).toBe(0);
    expect(available(after)).toBe(after.balance);
  });
});
