import { walletMessageSchema, type WalletMessage } from '@croupier/contracts';
import { ConfigError, loadConfig } from '@croupier/gateway';
import { TokenAuthority } from '@croupier/http';
import type { Command, CommandIo } from '../io.js';
import { UsageError } from '../io.js';
import { integerOption, parseOptions } from '../options.js';
import { alignedColumns } from '../format.js';

/** A page of GET /v1/settlements. */
interface Page {
  readonly from: string;
  readonly next: string;
  readonly more: boolean;
  readonly messages: WalletMessage[];
}

/** Checks an answer against the page shape and every message against the public schema. */
function pageOf(body: unknown): Page | string {
  const page = body as Partial<Record<keyof Page, unknown>> | null;
  if (
    typeof page?.from !== 'string' ||
    typeof page.next !== 'string' ||
    !/^\d+$/.test(page.next) ||
    typeof page.more !== 'boolean' ||
    !Array.isArray(page.messages)
  )
    return 'not a page of settlement messages';
  const messages: WalletMessage[] = [];
  for (const [index, candidate] of (page.messages as unknown[]).entries()) {
    const parsed = walletMessageSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `messages[${index}].${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`;
    }
    messages.push(parsed.data);
  }
  return { from: page.from, next: page.next, more: page.more, messages };
}

/** Positions (unsigned 128-bit) are decimal strings end to end: never a JavaScript number. */
function positionOption(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--from is required: a position (0 for the start)');
  if (!/^\d{1,39}$/.test(value) || BigInt(value) >= 2n ** 128n)
    throw new UsageError(`--from must be a decimal position, got "${value}"`);
  return BigInt(value).toString();
}

/** A token for the API: --token, CROUPIER_TOKEN, or an operator token from the local secret. */
export async function tokenFor(given: string | undefined): Promise<string> {
  const token = given ?? process.env['CROUPIER_TOKEN'];
  if (token !== undefined && token !== '') return token;
  try {
    const config = loadConfig();
    return await new TokenAuthority(config.JWT_SECRET).issue(
      { id: 'croupier-reconcile', role: 'operator' },
      '5m',
    );
  } catch (error) {
    if (error instanceof ConfigError)
      throw new UsageError(
        'pass --token JWT (an operator or regulator token) or set CROUPIER_TOKEN',
      );
    throw error;
  }
}

/** The API could not be reached, or refused: said on stderr, exit 1. */
export class ApiError extends Error {}

/** The JSON body of a GET of the API; an ApiError naming the problem when it is not a 2xx. */
export async function getFromApi(address: URL, token: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(address, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new ApiError(
      `cannot reach ${address.origin}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = body as { code?: string; detail?: string } | null;
    throw new ApiError(
      `${response.status} ${problem?.code ?? response.statusText}: ${problem?.detail ?? 'no detail'}`,
    );
  }
  return body;
}

async function fetchPage(url: string, token: string, from: string, limit: number): Promise<Page> {
  const address = new URL('/v1/settlements', url);
  address.searchParams.set('from', from);
  address.searchParams.set('limit', String(limit));
  const page = pageOf(await getFromApi(address, token));
  if (typeof page === 'string')
    throw new ApiError(`unexpected answer from ${address.origin}: ${page}`);
  return page;
}

function readable(messages: readonly WalletMessage[]): string {
  const rows = messages.map((m) => [
    m.position,
    m.kind,
    m.playerId,
    String(m.sequence),
    m.roundId ?? '-',
    m.betId ?? m.reference ?? '-',
    m.reason ?? m.result ?? '-',
    String(m.amount),
    String(m.balance),
    m.currency,
    m.messageId,
  ]);
  const header = [
    'position',
    'kind',
    'player',
    'seq',
    'round',
    'bet/reference',
    'why',
    'amount',
    'balance',
    'cur',
    'message',
  ];
  return alignedColumns(header, rows, new Set([3, 7, 8]));
}

function print(io: CommandIo, page: Page, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(page, null, 2)}\n`);
    return;
  }
  if (page.messages.length > 0) io.stdout(readable(page.messages));
  io.stdout(
    `${page.messages.length} message(s) after position ${page.from}; next: ${page.next}` +
      (page.more ? ` (more follow: --from ${page.next})\n` : ' (the end, for now)\n'),
  );
}

export const reconcileCommand: Command = {
  name: 'reconcile',
  summary: 'settlement messages by global position, from the API, to find and fill gaps',
  usage:
    'croupier reconcile --from POS [--limit N] [--all] [--url http://127.0.0.1:8080] [--token JWT] [--json]',
  async run(args, io) {
    const { values } = parseOptions(args, {
      from: { type: 'string' },
      limit: { type: 'string' },
      all: { type: 'boolean', default: false },
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const from = positionOption(values.from);
    const limit = integerOption('limit', values.limit, { min: 1, max: 1_000, fallback: 100 });
    if (!/^https?:\/\/[^/]/.test(values.url))
      throw new UsageError(`--url must be an http(s) URL, got "${values.url}"`);
    const token = await tokenFor(values.token);
    try {
      let page = await fetchPage(values.url, token, from, limit);
      if (values.all) {
        const messages = [...page.messages];
        while (page.more) {
          page = await fetchPage(values.url, token, page.next, limit);
          messages.push(...page.messages);
        }
        page = { from, next: page.next, more: false, messages };
      }
      print(io, page, values.json);
      return 0;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      io.stderr(`croupier reconcile: ${error.message}\n`);
      return 1;
    }
  },
};
