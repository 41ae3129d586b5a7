import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenAuthority } from '@croupier/http';
import { afterAll, describe, expect, it, vi } from 'vitest';

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
describe('the gateway process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'croupier-start-'));
  let child: ChildProcess | null = null;
  let output = '';
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on PGlite, opens auto-dealt tables, deals rounds, and shuts down gracefully', async () => {
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
    await vi.waitFor(
      async () => {
        const ready = await fetch(`${base}/ready`);
        expect(ready.status).toBe(200);
      },
      { timeout: 60_000, interval: 250 },
    );
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
      { timeout: 60_000, interval: 250 },
    );
    expect(tables).toHaveLength(2);
    const docs = await fetch(`${base}/docs/json`);
    expect(((await docs.json()) as { openapi: string }).openapi).toMatch(/^3\./);

    const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/Croupier is dealing/);
    expect(output).toMatch(/shutting down/);
  });
});
