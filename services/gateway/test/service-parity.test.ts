import { randomUUID } from 'node:crypto';
import { MemoryEventStore } from '@croupier/eventstore';
import { startRoundProcess } from '@croupier/round';
import { ServiceManifest } from '@croupier/runtime';
import { startSettlementProcess } from '@croupier/settlement';
import { startShoeProcess } from '@croupier/shoe';
import { startWalletProcess } from '@croupier/wallet';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { startCasino, TEST_SECRETS } from './support/casino.js';

type Start = typeof startShoeProcess;

const PROCESSES: Readonly<Record<string, Start>> = {
  shoe: startShoeProcess,
  wallet: startWalletProcess,
  settlement: startSettlementProcess,
  round: startRoundProcess,
};

/**
 * What a service runs where, as its plugin recorded it. The `/internal/` routes are the HTTP side
 * of the shoe and wallet ports: served only where the round service calls them over HTTP; the
 * gateway's rounds hold the ports themselves.
 */
function hosted(manifest: ServiceManifest, service: string) {
  const { routes, jobs } = manifest.service(service);
  return { routes: routes.filter((route) => !route.includes(' /internal/')), jobs };
}

const MODES = {
  transfer: { WALLET_MODE: 'transfer' },
  seamless: {
    WALLET_MODE: 'seamless',
    OPERATOR_WALLET_URL: 'http://127.0.0.1:9',
    OPERATOR_WALLET_SECRET: 'service-parity-secret-0123456789abcdef',
  },
} as const;

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'each service runs the same in its own process as in the gateway (%s wallet)',
  (mode) => {
    it.each(Object.keys(PROCESSES))('%s: the same routes and background jobs', async (service) => {
      // The same settings for both, on Redis under a prefix of the test's own.
      const env = {
        ...TEST_SECRETS,
        ...MODES[mode],
        EVENTSTORE: 'pglite',
        REDIS_URL: 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `parity-${randomUUID()}`,
        LOG_LEVEL: 'silent',
      };
      const casino = await startCasino(undefined, env);
      const app = await buildApp(casino.system);
      await app.ready();
      const alone = new ServiceManifest();
      const store = new MemoryEventStore();
      const running = await PROCESSES[service]!(pino({ level: 'silent' }), env, {
        store,
        listen: false,
        manifest: alone,
      });
      await running.app.ready();
      try {
        const inGateway = hosted(casino.system.manifest, service);
        expect(inGateway.routes.length + inGateway.jobs.length).toBeGreaterThan(0);
        expect(hosted(alone, service)).toEqual(inGateway);
      } finally {
        await running.stop();
        await store.close();
        await app.close();
        await casino.close();
      }
    });
  },
);
