import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenAuthority } from '@croupier/http';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';

const SECRET = 'token-test-jwt-secret-0123456789abcdef0123';
/** Everything the token command could read; each test sets what it means to give. */
const SETTINGS = [
  'EVENTSTORE',
  'DATA_DIR',
  'JWT_SECRET',
  'SHOE_SEED_KEY',
  'DATABASE_URL',
  'EVENTSTORE_URL',
  'REDIS_URL',
  'TOKEN_MAX_LIFETIME',
];

const scratch = mkdtempSync(join(tmpdir(), 'croupier-token-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function croupier(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    interactive: false,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** The command as `pnpm casino token` runs it: its own process, with only `env` set. */
async function croupierProcess(env: Record<string, string>, ...argv: string[]) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !SETTINGS.includes(name)),
  );
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [fileURLToPath(new URL('../croupier.js', import.meta.url)), ...argv],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...inherited, ...env } },
      (error, stdout, stderr) => {
        // The launcher says so when it (re)builds the bundle first: on a fresh clone, or when
        // the launcher's own test touches a source meanwhile. Not the command's output.
        const output = stderr.replace(/^croupier: building the command line.*\n/, '');
        resolve({
          code: error === null ? 0 : (error.code as number | null),
          stdout,
          stderr: output,
        });
      },
    );
  });
}

describe('croupier token', () => {
  beforeEach(() => {
    for (const name of SETTINGS) vi.stubEnv(name, undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('prints a JWT with the role and subject asked for, signed with JWT_SECRET alone', async () => {
    // A production environment, but no database URL nor shoe seed key: signing needs neither.
    vi.stubEnv('EVENTSTORE', 'postgres');
    vi.stubEnv('JWT_SECRET', SECRET);
    const { code, stdout, stderr } = await croupier(
      'token',
      '--role',
      'supervisor',
      '--sub',
      'sam@floor-2',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = stdout.trim();
    expect(await new TokenAuthority(SECRET).verify(token)).toMatchObject({
      id: 'sam@floor-2',
      role: 'supervisor',
    });
    await expect(
      new TokenAuthority('another-secret-0123456789abcdef0123').verify(token),
    ).rejects.toThrow(/signature/);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(12 * 3600); // the default --expires
  });

  it('signs with the embedded store secret generated into DATA_DIR when no JWT_SECRET is set', async () => {
    const dataDir = join(scratch, 'embedded');
    vi.stubEnv('DATA_DIR', dataDir);
    const { code, stdout } = await croupier('token', '--role', 'player', '--sub', 'pia');
    expect(code).toBe(0);
    const { JWT_SECRET } = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
      JWT_SECRET: string;
    };
    expect(await new TokenAuthority(JWT_SECRET).verify(stdout.trim())).toMatchObject({
      id: 'pia',
      role: 'player',
    });
    // A second token is signed with the same secret, not a new one.
    const again = await croupier('token', '--role', 'regulator', '--sub', 'reg');
    expect((await new TokenAuthority(JWT_SECRET).verify(again.stdout.trim())).role).toBe(
      'regulator',
    );
  });

  it('never prints a token the API would refuse for living too long (TOKEN_MAX_LIFETIME)', async () => {
    vi.stubEnv('JWT_SECRET', SECRET);
    const long = await croupier('token', '--role', 'operator', '--sub', 'olga', '--expires', '2d');
    expect(long.code).toBe(2);
    expect(long.stdout).toBe('');
    expect(long.stderr).toMatch(/--expires 2d is longer than TOKEN_MAX_LIFETIME \(86400 s\)/);
    vi.stubEnv('TOKEN_MAX_LIFETIME', '3d');
    const allowed = await croupier(
      'token',
      '--role',
      'operator',
      '--sub',
      'olga',
      '--expires',
      '2d',
    );
    expect(allowed.code).toBe(0);
    const authority = new TokenAuthority(SECRET, { maxLifetimeSeconds: 3 * 86_400 });
    expect(await authority.verify(allowed.stdout.trim())).toMatchObject({
      id: 'olga',
      role: 'operator',
    });
  });

  it('refuses a role it does not issue, naming the roles it does', async () => {
    vi.stubEnv('JWT_SECRET', SECRET);
    for (const role of ['croupier', 'system']) {
      const { code, stdout, stderr } = await croupier('token', '--role', role, '--sub', 'x');
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(
        /^croupier token: --role must be one of player, dealer, supervisor, operator, regulator\n/,
      );
    }
  });

  it('reports a bad environment as a usage error naming every bad variable', async () => {
    vi.stubEnv('EVENTSTORE', 'mysql');
    vi.stubEnv('JWT_SECRET', 'short');
    const { code, stdout, stderr } = await croupier('token', '--role', 'player', '--sub', 'x');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^croupier token: invalid configuration:\n/);
    expect(stderr).toMatch(/ {2}- EVENTSTORE: /);
    expect(stderr).toMatch(/ {2}- JWT_SECRET: must be at least 32 characters/);
  });

  it('reports a DATA_DIR where the development secret cannot be kept', async () => {
    const notADirectory = join(scratch, 'a-file');
    writeFileSync(notADirectory, 'not a directory');
    vi.stubEnv('DATA_DIR', notADirectory);
    const { code, stderr } = await croupier('token', '--role', 'player', '--sub', 'x');
    expect(code).toBe(2);
    expect(stderr).toMatch(/DATA_DIR: the development secrets in .*secrets\.json: /);
  });

  it('as a process: a missing secret is one clear message and exit code 2, no stack trace', async () => {
    const { code, stdout, stderr } = await croupierProcess(
      { EVENTSTORE: 'postgres', DATABASE_URL: 'postgres://db.example/casino' },
      'token',
      '--role',
      'operator',
      '--sub',
      'olga',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'croupier token: invalid configuration:\n' +
        '  - JWT_SECRET: is required outside the embedded development store\n' +
        'usage: croupier token --role player|dealer|supervisor|operator|regulator --sub ID [--expires 12h]\n',
    );
  });
});
