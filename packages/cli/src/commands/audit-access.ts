import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Role } from '@croupier/contracts';
import { untilReadable, type EventStore } from '@croupier/eventstore';
import { ConfigError, loadConfig, openStore, type GatewayConfig } from '@croupier/gateway';
import { TokenAuthority } from '@croupier/http';
import { UsageError } from '../io.js';

/**
 * How the audit commands reach the events: straight from the store the gateway is configured
 * with (EVENTSTORE, DATABASE_URL, DATA_DIR: the same environment), or through a running
 * gateway's API with --url.
 */

/** The store could not be opened; the message says why and what to do. Exit code 3. */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

export const STORE_UNAVAILABLE = 3;

/** The gateway's configuration from the environment, a bad one reported as a usage error. */
export function gatewayConfig(): GatewayConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The embedded store's directory, as the gateway opens it. */
export function embeddedStoreDir(config: GatewayConfig): string {
  return join(resolve(config.DATA_DIR), 'eventstore');
}

/** Whether something answers on the gateway's configured address. */
async function gatewayAnswers(config: GatewayConfig): Promise<string | null> {
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`;
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    return response.ok ? url : null;
  } catch {
    return null;
  }
}

/**
 * Opens the configured event store for reading. PGlite keeps a data directory to one process
 * and writes it back when it closes, so opening the directory of a running gateway could
 * corrupt it: PGlite marks an open directory with postmaster.pid, and then this refuses,
 * saying whether the gateway answers and how to ask it instead (--url).
 */
export async function openConfiguredStore(config: GatewayConfig): Promise<EventStore> {
  if (config.EVENTSTORE === 'pglite') {
    const dir = embeddedStoreDir(config);
    if (existsSync(join(dir, 'postmaster.pid'))) {
      const running = await gatewayAnswers(config);
      throw new StoreUnavailableError(
        [
          `The embedded event store ${dir} is in use by another process${running === null ? '' : ` (a gateway answers on ${running})`}.`,
          'PGlite allows one process per data directory; opening it here could corrupt it.',
          running === null
            ? `Stop the process that holds it and try again, or ask a running gateway with --url URL. If none runs, a crash left ${join(dir, 'postmaster.pid')} behind: remove it.`
            : `Ask the running gateway instead: --url ${running} (a token is minted from JWT_SECRET, or pass --token), or stop it first.`,
        ].join('\n'),
      );
    }
  }
  try {
    return await openStore(config, 'cli');
  } catch (error) {
    throw new StoreUnavailableError(
      `cannot open the ${config.EVENTSTORE} event store: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Runs `work` on the configured store and closes it afterwards, whatever happens. The work reads
 * everything committed before the command started: a SQL store holds back what commits after a
 * transaction still running on its server, so the command first waits until the log is readable
 * that far (up to 10 s, then it fails naming both positions rather than audit a log cut short).
 */
export async function withStore<T>(work: (store: EventStore) => Promise<T>): Promise<T> {
  const store = await openConfiguredStore(gatewayConfig());
  try {
    await untilReadable(store);
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A token for the API: --token, CROUPIER_TOKEN, or one minted from the local JWT_SECRET. */
export async function apiToken(given: string | undefined, role: Role): Promise<string> {
  const token = given ?? process.env['CROUPIER_TOKEN'];
  if (token !== undefined && token !== '') return token;
  const config = gatewayConfig();
  return new TokenAuthority(config.JWT_SECRET).issue({ id: `casino-${role}`, role }, '5m');
}

/** A call to a running gateway; a refusal is reported with its problem+json detail. */
export async function callApi(
  base: string,
  path: string,
  token: string,
  method: 'GET' | 'POST' = 'GET',
  payload?: unknown,
): Promise<{ status: number; body: unknown; text: string }> {
  let url: URL;
  try {
    url = new URL(path, base);
  } catch {
    throw new UsageError(`--url must be the gateway's address, e.g. http://127.0.0.1:8080`);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new StoreUnavailableError(
      `cannot reach ${url.origin}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const problem = body as { code?: string; detail?: string } | null;
    throw new StoreUnavailableError(
      `${method} ${url.pathname} answered ${response.status}${problem?.code ? ` ${problem.code}` : ''}: ${problem?.detail ?? text.slice(0, 200)}`,
    );
  }
  return { status: response.status, body, text };
}

/** Catches the store and API failures every audit command reports the same way. */
export async function reportingUnavailable(
  stderr: (text: string) => void,
  work: () => Promise<number>,
): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreUnavailableError) {
      stderr(`${error.message}\n`);
      return STORE_UNAVAILABLE;
    }
    throw error;
  }
}
