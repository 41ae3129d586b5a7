import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import { fund, openTable, playRound, type BetInput, type RoundView } from '../support/play.js';

const TABLE = 'inv-e2e';
const bet = (type: string, amount: number): BetInput => ({ type, amount, betId: randomUUID() });

interface Line {
  betId: string;
  playerId: string;
  stake: number;
  payout: number;
  commission: number;
  result: string;
}

/**
 * checkMoney and settledEverywhere decide every money assertion of the e2e and chaos tests. Here
 * they must notice money that went wrong: a few real rounds are played, the system is stopped,
 * and discrepancies are planted straight into its event store, one at a time. Each plant must
 * add exactly the discrepancies it causes, named by bet, and a plant that puts things right must
 * take them away again.
 */
const PLANTED =
  'the money invariants report planted discrepancies (single-process run only: it tests the checker on planted events, whatever the deployment, and stops the in-process system to plant them)';

describe.skipIf(DEPLOYMENT === 'distributed')(PLANTED, () => {
  let harness: Harness;
  let store: EventStore;
  let settledRound: RecordedEvent[];
  let lines: Line[];

  /** Appends events to a stream and returns the discrepancies they added. */
  async function plant(
    stream: string,
    events: readonly { type: string; data: unknown }[],
  ): Promise<string[]> {
    const before = new Set(checkMoney(await allEvents(store)).discrepancies);
    await store.append(
      stream,
      events.map((event) => ({ id: randomUUID(), ...event })),
      { expectedVersion: 'any' },
    );
    return checkMoney(await allEvents(store)).discrepancies.filter((found) => !before.has(found));
  }

  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    store = harness.store;
    const { api } = harness;
    await openTable(api, TABLE, 'generic');
    await fund(api, ['ana', 'ben'], 100_000);
    const played: RoundView[] = [];
    for (let round = 0; round < 3; round++) {
      const view = await playRound(api, TABLE, {
        ana: [bet('banker', 1_000)],
        ben: [bet('player', 500), bet('tie', 100)],
      });
      played.push(view);
    }
    const events = await settledEverywhere(store);
    expect(checkMoney(events).discrepancies).toEqual([]);
    settledRound = await store.readStream(`round-${played.at(-1)!.roundId}`);
    const settled = settledRound.find((event) => event.type === 'RoundSettled')!;
    lines = (settled.data as { lines: Line[] }).lines;
    expect(lines).toHaveLength(3);
    // Nothing may react to the planted events: they are for the checks alone.
    await harness.app.close();
    await harness.system.stop();
  });
  afterAll(async () => {
    await harness.close();
  });

  const roundIdOf = (events: readonly RecordedEvent[]) => events[0]!.stream.slice('round-'.length);
  const money = (found: string) => found.startsWith('money is not conserved');

  it('a round settled with a payout the rules do not pay, though the money adds up', async () => {
    // A copy of the last real round under a new id and new bet ids, with its debits.
    const from = roundIdOf(settledRound);
    const to = `${TABLE}.1.90`;
    const renames = new Map<string, string>([[from, to]]);
    for (const line of lines) renames.set(line.betId, randomUUID());
    const renamed = <T>(data: T): T =>
      JSON.parse(
        [...renames].reduce(
          (json, [old, now]) => json.replaceAll(`"${old}"`, `"${now}"`),
          JSON.stringify(data),
        ),
      ) as T;
    const copied = lines.map(renamed);
    for (const line of copied) {
      await plant(`wallet-${line.playerId}`, [
        {
          type: 'StakeDebited',
          data: { playerId: line.playerId, betId: line.betId, roundId: to, amount: line.stake },
        },
      ]);
    }
    const played = settledRound.filter((event) => event.type !== 'RoundSettled');
    expect(played.at(-1)!.type).toBe('RoundCompleted');
    const unsettled = await plant(
      `round-${to}`,
      played.map((event) => ({ type: event.type, data: renamed(event.data) })),
    );
    // Completed but never settled: the round and each of its bets are named, and the money waits.
    expect(unsettled).toContain(`${to}: completed but settled 0 times`);
    for (const line of copied)
      expect(unsettled).toContain(`bet ${line.betId} on ${to}: neither settled nor refunded`);
    await expect(settledEverywhere(store, 300)).rejects.toThrow(
      /^3 stakes still open and 1 rounds unsettled/,
    );

    // Settled, the wallets paid what the round says, but one line pays 100 more than the rules.
    const settlement = renamed(
      settledRound.find((event) => event.type === 'RoundSettled')!.data as {
        settlementId: string;
        lines: Line[];
        totals: { paidOut: number };
      },
    );
    settlement.settlementId = randomUUID();
    const wrong = settlement.lines[0]!;
    wrong.payout += 100;
    settlement.totals.paidOut += 100;
    for (const line of settlement.lines) {
      await plant(`wallet-${line.playerId}`, [
        {
          type: 'PayoutCredited',
          data: {
            playerId: line.playerId,
            betId: line.betId,
            roundId: to,
            settlementId: settlement.settlementId,
            amount: line.payout,
            result: line.result,
          },
        },
      ]);
    }
    await plant(`round-${to}`, [{ type: 'RoundSettled', data: settlement }]);
    expect(checkMoney(await allEvents(store)).discrepancies).toEqual([
      `bet ${wrong.betId} on ${to}: paid ${wrong.payout} (commission ${wrong.commission}), the rules pay ${wrong.payout - 100} (${wrong.commission})`,
    ]);
    await settledEverywhere(store, 1_000); // nothing is open: only checkMoney can tell
  });

  it('a second payout of a paid bet', async () => {
    const paid = lines[0]!;
    const added = await plant(`wallet-${paid.playerId}`, [
      {
        type: 'PayoutCredited',
        data: {
          playerId: paid.playerId,
          betId: paid.betId,
          roundId: roundIdOf(settledRound),
          settlementId: randomUUID(),
          amount: 2_000,
          result: 'win',
        },
      },
    ]);
    expect(added).toHaveLength(3);
    expect(added).toContainEqual(
      expect.stringMatching(new RegExp(`^bet ${paid.betId}: paid ${paid.payout} on its round`)),
    );
    expect(added).toContainEqual(
      expect.stringMatching(new RegExp(`^debit of bet ${paid.betId} .* closed 2 times$`)),
    );
    expect(added.filter(money)).toHaveLength(1);
  });

  it('a stake debited for a bet no round recorded, open until it is refunded', async () => {
    const before = checkMoney(await allEvents(store)).discrepancies;
    const roundId = roundIdOf(settledRound);
    const debit = { playerId: 'ben', betId: randomUUID(), roundId, amount: 700 };
    const added = await plant('wallet-ben', [{ type: 'StakeDebited', data: debit }]);
    expect(added).toEqual([
      `debit of bet ${debit.betId} (ben, ${roundId}) closed 0 times`,
      expect.stringMatching(/^money is not conserved/),
    ]);
    await expect(settledEverywhere(store, 300)).rejects.toThrow(
      /^1 stakes still open and 0 rounds unsettled/,
    );
    // The orphan sweep's refund closes it: the report is what it was before the debit.
    await plant('wallet-ben', [
      { type: 'StakeRefunded', data: { ...debit, reason: 'orphaned-debit' } },
    ]);
    expect(checkMoney(await allEvents(store)).discrepancies).toEqual(before);
  });

  it('a credit with no debit behind it', async () => {
    const betId = randomUUID();
    const added = await plant('wallet-ana', [
      {
        type: 'PayoutCredited',
        data: {
          playerId: 'ana',
          betId,
          roundId: `${TABLE}.1.77`,
          settlementId: randomUUID(),
          amount: 5_000,
          result: 'win',
        },
      },
    ]);
    expect(added).toEqual([
      `bet ${betId} credited without a debit`,
      expect.stringMatching(/^money is not conserved/),
    ]);
  });
});
