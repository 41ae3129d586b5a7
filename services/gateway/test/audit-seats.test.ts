import { auditRound, type RoundAudit, type RoundEvidence } from '@croupier/audit';
import { presetConfig } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoundEvidence } from '../src/index.js';
import { as, startCasino, waitForWallets, type Casino } from './support/casino.js';
import { copyRound, editData, named } from './support/tamper.js';

/**
 * A land-based table (002): seven seats, Banker wins paid 1:1 and the 5% commission accrued
 * per seat. The audit recomputes the accrued commission and checks the wallet recorded it.
 */
let casino: Casino;
const audits: { evidence: RoundEvidence; audit: RoundAudit }[] = [];

beforeAll(async () => {
  casino = await startCasino();
  const { system } = casino;
  await system.rounds.openTable(
    {
      tableId: 'salon',
      config: presetConfig('land-based'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  await system.wallets.deposit(
    { playerId: 'carla', amount: 10_000_000, currency: 'EUR', reference: 'salon-1' },
    as('olga', 'operator'),
  );
  await system.rounds.takeSeat('salon', 'carla', 3, as('carla', 'player'));
  for (let i = 0; i < 16; i++) {
    const round = await system.rounds.openRound('salon', as('dan', 'dealer'));
    await system.rounds.placeBets(
      round.roundId,
      'carla',
      [
        { type: 'banker', amount: 2_010, bankerMode: 'commission', seat: 3 },
        { type: 'player', amount: 1_000, seat: 3 },
      ],
      as('carla', 'player'),
    );
    await system.rounds.closeBetting(round.roundId, as('dan', 'dealer'));
    await system.rounds.deal(round.roundId, as('dan', 'dealer'));
    await waitForWallets(system, ['carla']);
    const evidence = (await loadRoundEvidence(casino.store, round.roundId))!;
    audits.push({ evidence, audit: auditRound(evidence) });
  }
}, 120_000);

afterAll(async () => {
  await casino.close();
});

const bankerWin = () => {
  const found = audits.find(({ audit }) => audit.result?.winner === 'banker');
  if (found === undefined) throw new Error('the Banker won none of 16 rounds');
  return found;
};

describe('a land-based table with accrued commission', () => {
  it('audits every round as valid, seats and accrued commission included', () => {
    for (const { audit } of audits) expect(named(audit.verdict), audit.roundId).toEqual([]);
    const { audit } = bankerWin();
    const banker = audit.bets.find((b) => b.type === 'banker')!;
    expect(banker.seat).toBe(3);
    // Paid 1:1 at the table; the seat owes the win less 95% of it rounded down: 2010 - 1909.
    expect(banker.settlement).toEqual({
      result: 'win',
      payout: 4_020,
      commission: 101,
      commissionMode: 'accrued',
    });
    expect(audit.wallet?.find((m) => m.type === 'CommissionAccrued')?.amount).toBe(101);
  });

  it('names commission accrued for another amount than the settlement owes', () => {
    const evidence = copyRound(bankerWin().evidence);
    const accrued = evidence.wallet!.find((e) => e.type === 'CommissionAccrued')!;
    editData(accrued, (data) => {
      data['amount'] = 10;
    });
    const found = named(auditRound(evidence).verdict);
    expect(found).toContain(`hash-chain/EVENT_EDITED ${accrued.stream}@${accrued.revision}`);
    expect(found.some((f) => f.startsWith('debits/CREDIT_MISMATCH wallet-carla@'))).toBe(true);
  });
});
