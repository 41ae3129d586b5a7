import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TokenAuthority } from '@croupier/http';
import { afterAll, describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const NODE_ARGS = ['--conditions=@croupier/source', '--import', 'tsx'];
/** Settings the README's flow leaves unset: the gateway and the CLI must find the secret alone. */
const UNSET = ['EVENTSTORE', 'DATA_DIR', 'JWT_SECRET', 'SHOE_SEED_KEY', 'DATABASE_URL', 'PORT'];

// A whole gateway process on PGlite: allow for a slow start on a shared CI machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

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

/**
 * The README's quick start, with no JWT_SECRET anywhere: `pnpm start` generates the embedded
 * store's secret into DATA_DIR/secrets.json, and `pnpm casino token` run with the same DATA_DIR
 * signs a token that gateway accepts.
 */
describe('a token from `casino token` on the gateway of the same DATA_DIR', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'croupier-token-e2e-'));
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !UNSET.includes(name))),
    DATA_DIR: dataDir,
  };
  let gateway: ChildProcess | null = null;
  let output = '';
  afterAll(async () => {
    const child = gateway;
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<boolean>((resolve) =>
        child.once('exit', () => {
          resolve(true);
        }),
      );
      child.kill('SIGTERM');
      const stopped = await Promise.race([
        exited,
        new Promise<boolean>((resolve) =>
          setTimeout(() => {
            resolve(false);
          }, 10_000),
        ),
      ]);
      if (!stopped) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is accepted, and the secret is the one kept in DATA_DIR/secrets.json', async () => {
    const port = await freePort();
    gateway = spawn(process.execPath, [...NODE_ARGS, 'services/gateway/src/main.ts'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    gateway.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    gateway.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    await vi.waitFor(
      async () => {
        expect(gateway?.exitCode, output).toBeNull();
        expect((await fetch(`${base}/ready`)).status).toBe(200);
      },
      { timeout: 90_000, interval: 250 },
    );
    expect(existsSync(join(dataDir, 'secrets.json'))).toBe(true);

    const { stdout } = await promisify(execFile)(
      process.execPath,
      // As `pnpm casino token` runs it: the bundled command line, built on first use.
      ['packages/cli/croupier.js', 'token', '--role', 'regulator', '--sub', 'me'],
      { cwd: ROOT, env },
    );
    const token = stdout.trim();
    const tables = (bearer: string) =>
      fetch(`${base}/v1/tables`, { headers: { authorization: `Bearer ${bearer}` } });
    const accepted = await tables(token);
    expect(accepted.status, output).toBe(200);
    const listed = (await accepted.json()) as { tableId: string }[];
    expect(listed.map((table) => table.tableId).sort()).toEqual(['live', 'touch']);

    // The gateway really checks: the same claims signed with another secret are refused.
    const forged = await new TokenAuthority('not-the-secret-in-data-dir-0123456789').issue({
      id: 'me',
      role: 'regulator',
    });
    expect((await tables(forged)).status).toBe(401);
    const { JWT_SECRET } = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
      JWT_SECRET: string;
    };
    expect(await new TokenAuthority(JWT_SECRET).verify(token)).toMatchObject({
      id: 'me',
      role: 'regulator',
    });
  });
});
