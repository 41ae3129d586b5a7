import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { busSettings, ConfigError, parseEnvironment } from '../src/index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'croupier-env-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('process configuration from the environment', () => {
  it('defaults to the embedded store and generates its secrets once, readable by the owner only', () => {
    const first = parseEnvironment({}, { DATA_DIR: dataDir }, ['JWT_SECRET', 'SHOE_SEED_KEY']);
    expect(first).toMatchObject({
      EVENTSTORE: 'pglite',
      PORT: 8080,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    expect(first.JWT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    const again = parseEnvironment({}, { DATA_DIR: dataDir }, ['JWT_SECRET', 'SHOE_SEED_KEY']);
    expect(again.JWT_SECRET).toBe(first.JWT_SECRET);
    expect(again.SHOE_SEED_KEY).toBe(first.SHOE_SEED_KEY);
    const file = join(dataDir, 'secrets.json');
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('JWT_SECRET', first.JWT_SECRET);
  });

  it('reads the HTTP hardening settings: token lifetimes as durations, limits and timeouts', () => {
    const defaults = parseEnvironment({}, { DATA_DIR: dataDir });
    expect(defaults).toMatchObject({
      TOKEN_MAX_LIFETIME: 86_400,
      SERVICE_TOKEN_MAX_LIFETIME: 3_600,
      RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: 30,
      FAILED_LOGIN_WINDOW_MS: 60_000,
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_CONNECTION_TIMEOUT_MS: 120_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 72_000,
      HTTP_MAX_HEADER_SIZE: 16_384,
    });
    expect(
      parseEnvironment(
        {},
        { DATA_DIR: dataDir, TOKEN_MAX_LIFETIME: '8h', SERVICE_TOKEN_MAX_LIFETIME: '15m' },
      ),
    ).toMatchObject({ TOKEN_MAX_LIFETIME: 28_800, SERVICE_TOKEN_MAX_LIFETIME: 900 });
    try {
      parseEnvironment(
        {},
        {
          DATA_DIR: dataDir,
          TOKEN_MAX_LIFETIME: '1 day',
          HTTP_REQUEST_TIMEOUT_MS: '0',
          HTTP_MAX_HEADER_SIZE: 'big',
        },
      );
      expect.unreachable('a bad environment must not parse');
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.split(':')[0])).toEqual([
        'TOKEN_MAX_LIFETIME',
        'HTTP_REQUEST_TIMEOUT_MS',
        'HTTP_MAX_HEADER_SIZE',
      ]);
    }
  });

  it('keeps V8 from shrinking an idle heap unless V8_MEMORY_REDUCER says so, and refuses a non-boolean', () => {
    expect(parseEnvironment({}, { DATA_DIR: dataDir }).V8_MEMORY_REDUCER).toBe(false);
    expect(
      parseEnvironment({}, { DATA_DIR: dataDir, V8_MEMORY_REDUCER: 'true' }).V8_MEMORY_REDUCER,
    ).toBe(true);
    expect(() =>
      parseEnvironment({}, { DATA_DIR: dataDir, V8_MEMORY_REDUCER: 'sometimes' }),
    ).toThrow(/V8_MEMORY_REDUCER/);
  });

  it('names every bad variable', () => {
    try {
      parseEnvironment(
        { SHOE_URL: z.url() },
        { EVENTSTORE: 'postgres', PORT: 'eighty', SHOE_URL: 'not a url' },
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const issues = (error as ConfigError).issues.join('\n');
      expect(issues).toMatch(/PORT: /);
      expect(issues).toMatch(/SHOE_URL: /);
      expect(issues).toMatch(/DATABASE_URL: is required when EVENTSTORE=postgres/);
      expect(issues).toMatch(/JWT_SECRET: is required outside the embedded development store/);
    }
  });

  it('takes secrets from the environment and never writes them', () => {
    const secret = 'x'.repeat(40);
    const other = mkdtempSync(join(tmpdir(), 'croupier-env-'));
    const config = parseEnvironment(
      {},
      {
        EVENTSTORE: 'postgres',
        DATABASE_URL: 'postgres://h/db',
        JWT_SECRET: secret,
        DATA_DIR: other,
      },
    );
    expect(config.JWT_SECRET).toBe(secret);
    expect(() => statSync(join(other, 'secrets.json'))).toThrow();
    rmSync(other, { recursive: true, force: true });
  });

  it('takes the connection strings the EventStoreDB client parses, and refuses kurrentdb://', () => {
    const esdb = (url: string) =>
      parseEnvironment(
        {},
        { EVENTSTORE: 'esdb', EVENTSTORE_URL: url, JWT_SECRET: 'x'.repeat(40), DATA_DIR: dataDir },
      );
    const seeds = 'esdb://node1:2113,node2:2113,node3:2113?tls=true';
    expect(esdb(seeds).EVENTSTORE_URL).toBe(seeds);
    expect(esdb('esdb+discover://cluster.example:2113').EVENTSTORE_URL).toBe(
      'esdb+discover://cluster.example:2113',
    );
    // @eventstore/db-client 6.2.1 parses no other scheme: refused here, not at the first connect.
    for (const url of ['kurrentdb://node1:2113?tls=false', 'kurrentdb+discover://cluster:2113']) {
      expect(() => esdb(url)).toThrow(
        /EVENTSTORE_URL: must be an esdb:\/\/ or esdb\+discover:\/\/ connection string/,
      );
    }
  });

  it('reads where the settlement bus is, REDIS_URL required, and nothing else', () => {
    expect(busSettings({ REDIS_URL: 'redis://10.0.0.1:6379', EVENTSTORE: 'postgres' })).toEqual({
      REDIS_URL: 'redis://10.0.0.1:6379',
      REDIS_PREFIX: 'croupier',
    });
    expect(
      busSettings({ REDIS_URL: 'redis://r:6379', REDIS_PREFIX: 'casino-b' }).REDIS_PREFIX,
    ).toBe('casino-b');
    expect(() => busSettings({})).toThrow(/REDIS_URL: is required/);
    expect(() => busSettings({ REDIS_URL: 'not a url', REDIS_PREFIX: '' })).toThrow(ConfigError);
    try {
      busSettings({ REDIS_URL: 'not a url', REDIS_PREFIX: '' });
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.split(':')[0])).toEqual([
        'REDIS_URL',
        'REDIS_PREFIX',
      ]);
    }
  });
});
