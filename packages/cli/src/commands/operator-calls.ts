import { isoTimestampSchema, playerIdSchema } from '@croupier/contracts';
import type { Command, CommandIo } from '../io.js';
import { UsageError } from '../io.js';
import { integerOption, parseOptions } from '../options.js';
import { alignedColumns } from '../format.js';
import { ApiError, getFromApi, tokenFor } from './reconcile.js';

/** One call of GET /v1/operator-wallet/calls, as far as this command reads it. */
interface Call {
  readonly key: string;
  readonly call: string;
  readonly playerId: string;
  readonly roundId: string;
  readonly betId: string;
  readonly amount: number;
  readonly currency: string;
  readonly state: string;
  readonly requestedAt: string;
  readonly code: string | null;
  readonly transactionId: string | null;
}

/** A page of GET /v1/operator-wallet/calls. */
interface Page {
  readonly after: string;
  readonly next: string;
  readonly more: boolean;
  readonly calls: Call[];
}

const CURSOR = /^(0|\d{1,15}\.[0-9a-f]{32})$/;

/** Checks an answer against the page shape (the API checked each call against its schema). */
function pageOf(body: unknown): Page | string {
  const page = body as Partial<Record<keyof Page, unknown>> | null;
  if (
    typeof page?.after !== 'string' ||
    typeof page.next !== 'string' ||
    !CURSOR.test(page.next) ||
    typeof page.more !== 'boolean' ||
    !Array.isArray(page.calls)
  )
    return 'not a page of operator-wallet calls';
  for (const [index, call] of (page.calls as unknown[]).entries()) {
    const fields = call as Partial<Record<keyof Call, unknown>> | null;
    if (typeof fields?.key !== 'string' || typeof fields.amount !== 'number')
      return `calls[${index}]: not a call`;
  }
  return page as Page;
}

interface Query {
  readonly player: string | undefined;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly limit: number;
}

async function fetchPage(url: string, token: string, query: Query, after: string): Promise<Page> {
  const address = new URL('/v1/operator-wallet/calls', url);
  if (query.player !== undefined) address.searchParams.set('playerId', query.player);
  if (query.from !== undefined) address.searchParams.set('from', query.from);
  if (query.to !== undefined) address.searchParams.set('to', query.to);
  address.searchParams.set('after', after);
  address.searchParams.set('limit', String(query.limit));
  const page = pageOf(await getFromApi(address, token));
  if (typeof page === 'string')
    throw new ApiError(`unexpected answer from ${address.origin}: ${page}`);
  return page;
}

function readable(calls: readonly Call[]): string {
  const header = [
    'requested',
    'call',
    'state',
    'player',
    'round',
    'bet',
    'amount',
    'cur',
    'key',
    'code/transaction',
  ];
  const rows = calls.map((c) => [
    c.requestedAt,
    c.call,
    c.state,
    c.playerId,
    c.roundId,
    c.betId,
    String(c.amount),
    c.currency,
    c.key,
    c.code ?? c.transactionId ?? '-',
  ]);
  return alignedColumns(header, rows, new Set([6]));
}

function print(io: CommandIo, page: Page, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(page, null, 2)}\n`);
    return;
  }
  if (page.calls.length > 0) io.stdout(readable(page.calls));
  io.stdout(
    `${page.calls.length} call(s) after ${page.after}; next: ${page.next}` +
      (page.more ? ` (more follow: --after ${page.next})\n` : ' (the end, for now)\n'),
  );
}

/** An option that must match a schema, refused with its name when it does not. */
function checked(
  name: string,
  value: string | undefined,
  valid: (text: string) => boolean,
  what: string,
): string | undefined {
  if (value !== undefined && !valid(value))
    throw new UsageError(`--${name} must be ${what}, got "${value}"`);
  return value;
}

export const operatorCallsCommand: Command = {
  name: 'operator-calls',
  summary:
    "seamless mode: the calls made to the operator's wallet and their outcome, per player and period, from the API, to reconcile",
  usage:
    'croupier operator-calls [--player ID] [--from ISO] [--to ISO] [--after CURSOR] [--limit N] [--all] [--url http://127.0.0.1:8080] [--token JWT] [--json]',
  async run(args, io) {
    const { values } = parseOptions(args, {
      player: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      after: { type: 'string', default: '0' },
      limit: { type: 'string' },
      all: { type: 'boolean', default: false },
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const isTime = (text: string) => isoTimestampSchema.safeParse(text).success;
    const query: Query = {
      player: checked(
        'player',
        values.player,
        (text) => playerIdSchema.safeParse(text).success,
        'a player id',
      ),
      from: checked('from', values.from, isTime, 'an ISO 8601 time with its offset'),
      to: checked('to', values.to, isTime, 'an ISO 8601 time with its offset'),
      limit: integerOption('limit', values.limit, { min: 1, max: 1_000, fallback: 100 }),
    };
    const after = checked(
      'after',
      values.after,
      (text) => CURSOR.test(text),
      "0 or a page's next",
    )!;
    if (!/^https?:\/\/[^/]/.test(values.url))
      throw new UsageError(`--url must be an http(s) URL, got "${values.url}"`);
    const token = await tokenFor(values.token);
    try {
      let page = await fetchPage(values.url, token, query, after);
      if (values.all) {
        const calls = [...page.calls];
        while (page.more) {
          page = await fetchPage(values.url, token, query, page.next);
          calls.push(...page.calls);
        }
        page = { after, next: page.next, more: false, calls };
      }
      print(io, page, values.json);
      return 0;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      io.stderr(`croupier operator-calls: ${error.message}\n`);
      return 1;
    }
  },
};
