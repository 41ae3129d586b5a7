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
 */
describe.skipIf(DEPLOYMENT === 'distributed')(
  "session timeout (single-process run: it drives the one-process System's idle sweep and restarts it; the round service alone runs the same sweep)",
  () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startHarness({ store: 'postgres', env: { SESSION_IDLE_TIMEOUT_MS: '1000' } });
      await fund(harness.api, ['tim', 'tess'], 1_000_000);
    });
    afterAll(async () => {
      await harness.close();
    });

    const openSession = async (player: string, preset = 'touch'): Promise<SessionView> =>
      expectStatus(
        await harness.api.as('player', player).post<SessionView>('/v1/sessions', { preset }),
        201,
      );
    const sessionRound = async (player: string, sessionId: string): Promise<RoundView> =>
      (await harness.api.as('player', player).post<RoundView>(`/v1/sessions/${sessionId}/rounds`))
        .body;

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
      await harness.system.closeIdleSessions();
      expect(
        expectStatus(
          await api.as('player', 'tim').get<SessionView>(`/v1/sessions/${session.sessionId}`),
          200,
        ).status,
      ).toBe('open');
      await harness.restart();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await vi.waitFor(
        async () => {
          await harness.system.closeIdleSessions();
          const view = expectStatus(
            await api.as('player', 'tim').get<SessionView>(`/v1/sessions/${session.sessionId}`),
            200,
          );
          expect(view.status).toBe('closed');
        },
        { timeout: 10_000, interval: 100 },
      );
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
      // The deal was cut short after betting closed (a crash between the two steps).
      await harness.system.rounds.closeBetting(round.roundId, {
        actor: { id: 'tess', role: 'player' },
        correlationId: crypto.randomUUID(),
        causationId: null,
        now: () => new Date(),
      });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await vi.waitFor(
        async () => {
          await harness.system.closeIdleSessions();
          const view = expectStatus(
            await api.as('player', 'tess').get<SessionView>(`/v1/sessions/${session.sessionId}`),
            200,
          );
          expect(view.status).toBe('closed');
        },
        { timeout: 10_000, interval: 100 },
      );
      const done = await settled(api, round.roundId);
      expect(done.status).toBe('completed');
      expect(done.settlement?.lines).toHaveLength(1);
    });
  },
);
