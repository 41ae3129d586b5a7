import { randomUUID } from 'node:crypto';
import { sleep, type ChaosDeployment, type Responses } from './chaos.js';

export interface AttackFigures {
  /** Bets placed to be reused, once their round stopped taking bets. */
  bets: number;
  /** Posts of a bet id that is open on a closed, unsettled round, to another round or its own. */
  attempts: number;
  /** Attempts answered 2xx: the id moved money again. Must stay 0. */
  successes: number;
}

interface RoundState {
  status: string;
  settlement: unknown;
}

/**
 * The bet-id reuse attacker (issue 11): bets, waits for betting to close on that round, and
 * while the round is not settled posts the same bet id to the round of another table taking
 * bets (and to its own round), hoping the refusal refunds the stake it is about to lose. Any 2xx
 * is a success of the attack; the money invariants at the end catch a refund it won quietly.
 */
export async function betIdReuseAttacker(
  deployment: ChaosDeployment,
  player: string,
  tables: readonly string[],
  running: () => boolean,
  responses: Responses,
  figures: AttackFigures,
): Promise<void> {
  const as = { role: 'player', sub: player } as const;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown) => {
    const answer = await deployment.remote.call<T>(deployment.url('round'), method, path, as, body);
    responses.record(answer.status, `${method} ${path} (attacker)`, answer.body);
    return answer;
  };
  const bettingRound = async (tableId: string): Promise<string | null> => {
    const table = await call<{ currentRound: { roundId: string; status: string } | null }>(
      'GET',
      `/v1/tables/${tableId}`,
    );
    const current = table.status === 200 ? table.body.currentRound : null;
    return current?.status === 'betting' ? current.roundId : null;
  };
  while (running()) {
    try {
      const [home, away] = [...tables].sort(() => Math.random() - 0.5) as [string, string];
      const roundId = await bettingRound(home);
      if (roundId === null) {
        await sleep(50);
        continue;
      }
      const betId = randomUUID();
      const bet = { betId, type: 'player', amount: 500 };
      const placed = await call('POST', `/v1/rounds/${roundId}/bets`, { bets: [bet] });
      if (placed.status !== 201) continue;
      figures.bets++;
      // Betting closes in a moment; the attack is between the close and the settlement.
      for (let look = 0; look < 200 && running(); look++) {
        const round = await call<RoundState>('GET', `/v1/rounds/${roundId}`);
        if (round.status !== 200) break;
        if (round.body.settlement !== null || ['completed', 'voided'].includes(round.body.status))
          break;
        if (round.body.status === 'betting') {
          await sleep(20);
          continue;
        }
        const target = await bettingRound(away);
        for (const reuse of target === null ? [roundId] : [target, roundId]) {
          const answer = await call('POST', `/v1/rounds/${reuse}/bets`, { bets: [bet] });
          figures.attempts++;
          if (answer.status >= 200 && answer.status < 300) figures.successes++;
        }
      }
    } catch {
      responses.noAnswer++;
      await sleep(200);
    }
  }
}
