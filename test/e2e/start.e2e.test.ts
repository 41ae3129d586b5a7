import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEventStore } from '@croupier/eventstore';
import { TokenAuthority } from '@croupier/http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEPLOYMENT } from '../support/harness.js';

const MAIN = fileURLToPath(new URL('../../services/gateway/src/main.ts', import.meta.url));
const SECRET = 'start-test-secret-0123456789abcdef012345';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** `pnpm start` as a new user runs it: the gateway on the embedded store, dealing by itself. */
/** Why the distributed run skips this file: it would run the very same process again. */
const ONE_RUN = '(single-process run only: `pnpm start` is one process on the embedded store)';

describe.skipIf(DEPLOYMENT === 'distributed')(`the gateway process ${ONE_RUN}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'croupier-start-'));
  let child: ChildProcess | null = null;
  let output = '';
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'starts on PGlite, opens auto-dealt tables, deals rounds, and shuts down gracefully',
    {
      timeout: 400_000,
    },
    async () => {
      const port = await freePort();
      child = spawn(process.execPath, ['--conditions=@croupier/source', '--import', 'tsx', MAIN], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: String(port),
          JWT_SECRET: SECRET,
          BETTING_WINDOW_MS: '200',
          LOG_LEVEL: 'info',
          AUTO_TABLES: 'live,touch',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const base = `http://127.0.0.1:${port}`;
      // tsx compiling the gateway and PGlite starting share two cores with the chaos test: a
      // bound for a slow machine, and the process's own words if it exits instead.
      const exitedEarly = new Promise<never>((_resolve, reject) =>
        child!.once('exit', (code) => {
          reject(new Error(`the gateway exited (${String(code)}) while starting:\n${output}`));
        }),
      );
      exitedEarly.catch(() => undefined);
      await Promise.race([
        vi.waitFor(
          async () => {
            const ready = await fetch(`${base}/ready`);
            expect(ready.status).toBe(200);
          },
          { timeout: 150_000, interval: 250 },
        ),
        exitedEarly,
      ]);
      const token = await new TokenAuthority(SECRET).issue({ id: 'reg', role: 'regulator' });
      const tables = await vi.waitFor(
        async () => {
          const response = await fetch(`${base}/v1/tables`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const body = (await response.json()) as { tableId: string; roundsCompleted: number }[];
          expect(body.map((t) => t.tableId).sort()).toEqual(['live', 'touch']);
          for (const table of body) expect(table.roundsCompleted).toBeGreaterThanOrEqual(2);
          return body;
        },
        { timeout: 120_000, interval: 250 },
      );
      expect(tables).toHaveLength(2);
      const docs = await fetch(`${base}/docs/json`);
      expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);

      // Bets in flight when SIGTERM arrives are finished, not cut between debit and BetPlaced.
      const as = async (role: 'operator' | 'dealer' | 'player', id: string) => ({
        authorization: `Bearer ${await new TokenAuthority(SECRET).issue({ id, role })}`,
        'content-type': 'application/json',
      });
      const post = async (headers: Record<string, string>, path: string, body: unknown = {}) =>
        fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const operator = await as('operator', 'op');
      expect(
        (await post(operator, '/v1/tables', { tableId: 'drain', preset: 'generic' })).status,
      ).toBe(201);
      const deposit = { amount: 1_000_000, currency: 'EUR', reference: 'drain-fund' };
      expect((await post(operator, '/v1/wallets/pia/deposits', deposit)).status).toBe(201);
      const opened = await post(await as('dealer', 'dan'), '/v1/tables/drain/rounds');
      const { roundId } = (await opened.json()) as { roundId: string };
      const player = await as('player', 'pia');
      const betIds = Array.from({ length: 40 }, () => randomUUID());
      const bets = betIds.map((betId) =>
        post(player, `/v1/rounds/${roundId}/bets`, {
          bets: [{ type: 'player', amount: 100, betId }],
        }).then(
          (response) => response.status,
          // A connection with no request started yet is closed as idle: the client retries.
          () => 'reset',
        ),
      );
      await Promise.race(bets);

      const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));
      child.kill('SIGTERM');
      const answers = await Promise.all(bets);
      expect(await exited).toBe(0);
      expect(output).toMatch(/Croupier is dealing/);
      expect(output).toMatch(/shutting down/);

      const store = await createEventStore({
        kind: 'pglite',
        dataDir: join(dataDir, 'eventstore'),
      });
      try {
        const ids = async (stream: string, type: string) =>
          new Set(
            (await store.readStream(stream))
              .filter((event) => event.type === type)
              .map((event) => (event.data as { betId: string }).betId),
          );
        const debited = await ids('wallet-pia', 'StakeDebited');
        const refunded = await ids('wallet-pia', 'StakeRefunded');
        const placed = await ids(`round-${roundId}`, 'BetPlaced');
        expect(debited.size).toBeGreaterThan(0);
        for (const betId of debited)
          expect(placed.has(betId) || refunded.has(betId), betId).toBe(true);
        answers.forEach((answer, index) => {
          // Placed and answered, or refused as the service closed (a 503 problem), or not begun.
          expect([201, 503, 'reset']).toContain(answer);
          if (answer === 201) expect(placed.has(betIds[index]!)).toBe(true);
          if (answer === 201 || placed.has(betIds[index]!))
            expect(debited.has(betIds[index]!)).toBe(true);
        });
        expect(answers).toContain(201);
      } finally {
        await store.close();
      }
    },
  );
});
