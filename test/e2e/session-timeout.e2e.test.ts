import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import {
  balanceOf,
  expectStatus,
  fund,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';

interface SessionView {
  sessionId: string;
  status: 'open' | 'closed';
}

/**
 * 003: "an inactive game session is closed automatically after a time the site sets". Here
 * SESSION_IDLE_TIMEOUT_MS is one second; the unfinished round is finished by the rules (a round
 * still taking bets is voided and refunded), restart or not.
 *
 * In both deployments: one process, whose idle sweep the test runs; the distributed one, processes
 * of the file's own all set to the one second, where the round service (and the gateway beside
 * it) sweep on their own timers and are killed and started again for the restart.
 */
describe('session timeout', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      store: 'postgres',
      env: { SESSION_IDLE_TIMEOUT_MS: '1000' },
      // The audit is the gateway's; the processes are killed and started again.
      gateway: true,
      ownCluster: true,
    });
    await fund(harness.api, ['tim', 'tess'], 1_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  /**
   * One process: a pass of the System's idle sweep. Distributed: nothing, the round service and
   * the gateway sweep every five seconds by themselves (so the waits below allow for a few).
   */
  const sweep = async (): Promise<void> => {
    if (DEPLOYMENT === 'single') await harness.system.closeIdleSessions();
  };
  const closing = { timeout: DEPLOYMENT === 'single' ? 10_000 : 40_000, interval: 100 };
  /**
   * Every process that sweeps sessions stops, and starts again: the one-process System, or the
   * distributed round service and gateway, killed with no goodbye (-9).
   */
  const restartSweepers = async (pause: number): Promise<void> => {
    if (harness.cluster === null) {
      await harness.restart();
      await new Promise((resolve) => setTimeout(resolve, pause));
      return;
    }
    const sweepers = [harness.cluster.get('round'), harness.cluster.get('gateway')];
    for (const service of sweepers) await service.kill();
    // The session goes idle past its timeout while nobody is running to notice.
    await new Promise((resolve) => setTimeout(resolve, pause));
    await Promise.all(sweepers.map((service) => service.start()));
  };

  const openSession = async (player: string, preset = 'touch'): Promise<SessionView> =>
    expectStatus(
      await harness.api.as('player', player).post<SessionView>('/v1/sessions', { preset }),
      201,
    );
  const sessionRound = async (player: string, sessionId: string): Promise<RoundView> => {
    const response = await harness.api
      .as('player', player)
      .post<RoundView>(`/v1/sessions/${sessionId}/rounds`);
    expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
    return response.body;
  };

  it('an idle session times out, even across a restart: its round is finished by the rules', async () => {
    const { api } = harness;
    const session = await openSession('tim', 'single-deck');
    const round = await sessionRound('tim', session.sessionId);
    const before = await balanceOf(api, 'tim');
    expectStatus(
      await placeBets(api, round.roundId, 'tim', [{ type: 'banker', amount: 300 }]),
      201,
    );
    // Nothing happens while the session is younger than its timeout.
    await sweep();
    expect(
      expectStatus(
        await api.as('player', 'tim').get<SessionView>(`/v1/sessions/${session.sessionId}`),
        200,
      ).status,
    ).toBe('open');
    await restartSweepers(1_100);
    await vi.waitFor(async () => {
      await sweep();
      const view = expectStatus(
        await api.as('player', 'tim').get<SessionView>(`/v1/sessions/${session.sessionId}`),
        200,
      );
      expect(view.status).toBe('closed');
    }, closing);
    const voided = await settled(api, round.roundId);
    expect(voided.status).toBe('voided');
    await vi.waitFor(
      async () => {
        expect(await balanceOf(api, 'tim')).toBe(before);
      },
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    const audit = expectStatus(
      await api
        .as('regulator')
        .get<{ verdict: { findings: unknown[] } }>(`/v1/audit/rounds/${round.roundId}`),
      200,
    );
    expect(audit.verdict.findings).toEqual([]);
  });

  it('a round whose betting closed is dealt and settled, not voided, when its session times out', async () => {
    const { api } = harness;
    const session = await openSession('tess');
    const round = await sessionRound('tess', session.sessionId);
    expectStatus(
      await placeBets(api, round.roundId, 'tess', [{ type: 'player', amount: 100 }]),
      201,
    );
    // The deal was cut short after betting closed: one process crashing between the two steps;
    // distributed, the shoe service down when the player deals (betting closes, no card is drawn;
    // a sweep meanwhile cannot deal either), then up again for the sweep to deal the round.
    const shoe = harness.cluster?.get('shoe');
    if (shoe === undefined) {
      await harness.system.rounds.closeBetting(round.roundId, {
        actor: { id: 'tess', role: 'player' },
        correlationId: crypto.randomUUID(),
        causationId: null,
        now: () => new Date(),
      });
    } else {
      await shoe.kill();
      const cut = await api.as('player', 'tess').post(`/v1/rounds/${round.roundId}/deal`);
      expect(cut.status).toBe(503);
    }
    expect(
      expectStatus(await api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`), 200)
        .status,
    ).toBe('closed');
    await shoe?.start();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await vi.waitFor(async () => {
      await sweep();
      const view = expectStatus(
        await api.as('player', 'tess').get<SessionView>(`/v1/sessions/${session.sessionId}`),
        200,
      );
      expect(view.status).toBe('closed');
    }, closing);
    const done = await settled(api, round.roundId);
    expect(done.status).toBe('completed');
    expect(done.settlement?.lines).toHaveLength(1);
  });
});
