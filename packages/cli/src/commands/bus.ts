import { settlementMessageSchema } from '@croupier/contracts';
import { BullMqSettlementBus, type FailedSettlement, type JobState } from '@croupier/messaging';
import { busSettings, ConfigError } from '@croupier/runtime';
import type { Command, CommandIo } from '../io.js';
import { UsageError } from '../io.js';
import { integerOption, parseOptions } from '../options.js';
import { apiToken, callApi, reportingUnavailable } from './audit-access.js';

/** Redis did not answer: exit code 3, as for an event store that cannot be opened. */
const BUS_UNAVAILABLE = 3;

const USAGE = [
  'croupier bus failed [--limit N] [--json]',
  '       croupier bus replay-failed [--job JOB_ID]... [--json]',
  '       croupier bus parked [--status open|resolved|all] [--limit N] [--json] [--url GATEWAY_URL] [--token JWT]',
  '       croupier bus retry-parked ID [--json] [--url GATEWAY_URL] [--token JWT]',
].join('\n');

const GATEWAY_OPTIONS = {
  url: { type: 'string', default: 'http://127.0.0.1:8080' },
  token: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** A parked message as GET /v1/admin/parked-messages lists it. */
interface ParkedMessage {
  readonly id: string;
  readonly status: string;
  readonly code: string;
  readonly detail: string;
  readonly attempts: number;
  readonly playerId: string | null;
  readonly timesParked: number;
  readonly lastParkedAt: string;
}

/**
 * The messages the consumers parked (ADR 0035), from the running gateway: whatever bus the
 * deployment runs (in-process included), they are in the log, not in Redis.
 */
async function listParked(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    ...GATEWAY_OPTIONS,
    status: { type: 'string', default: 'open' },
    limit: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals.join(' ')}"`);
  if (!['open', 'resolved', 'all'].includes(values.status))
    throw new UsageError(`--status must be open, resolved or all, got "${values.status}"`);
  const limit = integerOption('limit', values.limit, { min: 1, max: 1_000, fallback: 100 });
  return reportingUnavailable(io.stderr, async () => {
    const token = await apiToken(values.token, 'operator');
    const { body } = await callApi(
      values.url,
      `/v1/admin/parked-messages?status=${values.status}&limit=${limit}`,
      token,
    );
    if (values.json) {
      io.stdout(`${JSON.stringify(body, null, 2)}\n`);
      return 0;
    }
    const { messages } = body as { messages: ParkedMessage[] };
    const lines =
      messages.length === 0
        ? [`No ${values.status === 'all' ? '' : `${values.status} `}parked message.`]
        : [
            `${messages.length} parked message(s), oldest first:`,
            ...messages.map(
              (message) =>
                `${message.id}  ${message.status}  ${message.lastParkedAt}  ${message.playerId ?? '-'}  ${message.attempts} attempt(s), parked ${message.timesParked} time(s)\n    ${message.code}: ${message.detail}`,
            ),
            'Fix what refused one, then: croupier bus retry-parked ID',
          ];
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  });
}

/** Asks for a parked message's retry; its consumer's process tries it and records the outcome. */
async function retryParked(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions(args, GATEWAY_OPTIONS);
  const [id, ...extra] = positionals;
  if (id === undefined)
    throw new UsageError('name the parked message: croupier bus retry-parked ID (see bus parked)');
  if (extra.length > 0) throw new UsageError(`unexpected "${extra.join(' ')}"`);
  return reportingUnavailable(io.stderr, async () => {
    const token = await apiToken(values.token, 'operator');
    const { body } = await callApi(
      values.url,
      `/v1/admin/parked-messages/${encodeURIComponent(id)}/retry`,
      token,
      'POST',
    );
    io.stdout(
      values.json
        ? `${JSON.stringify(body, null, 2)}\n`
        : `Retry of ${id} recorded: its consumer tries it again, then it is resolved or parked again (croupier bus parked --status all).\n`,
    );
    return 0;
  });
}

/**
 * The settlement bus the services publish to and consume from, found as they find it:
 * REDIS_URL and REDIS_PREFIX: Croupier's own queue `wallet-ledger` under the prefix, whose
 * failed jobs are payouts Croupier's wallet has not applied (the public `settlement-events` is
 * its readers' to watch).
 */
function configuredBus(): BullMqSettlementBus {
  let settings: ReturnType<typeof busSettings>;
  try {
    settings = busSettings(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  return new BullMqSettlementBus({ redisUrl: settings.REDIS_URL, prefix: settings.REDIS_PREFIX });
}

/** What a failed job carries, in a line: the message's own fields when it is a valid one. */
function describeJob(job: FailedSettlement): string {
  const message = settlementMessageSchema.safeParse(job.data);
  const what = message.success
    ? `${message.data.kind} ${message.data.roundId} ${message.data.playerId} bet ${message.data.betId} payout ${message.data.payout} ${message.data.currency}`
    : 'not a valid settlement message';
  const when = job.failedAt === null ? '-' : job.failedAt.toISOString();
  return `${job.jobId}  ${when}  ${job.attemptsMade} attempt(s)  ${what}\n    ${job.failedReason}`;
}

function countsLine(counts: Record<JobState, number>): string {
  return Object.entries(counts)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
}

async function listFailed(bus: BullMqSettlementBus, args: readonly string[], io: CommandIo) {
  const { values, positionals } = parseOptions(args, {
    limit: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals.join(' ')}"`);
  const limit = integerOption('limit', values.limit, { min: 1, max: 100_000, fallback: 100 });
  const counts = await bus.jobCounts();
  const failed = await bus.failed(limit);
  if (values.json) {
    io.stdout(
      `${JSON.stringify(
        {
          queue: `${bus.prefix}:${bus.queueName}`,
          counts,
          failed: failed.map((job) => ({
            ...job,
            failedAt: job.failedAt?.toISOString() ?? null,
          })),
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const lines = [`Queue ${bus.prefix}:${bus.queueName}: ${countsLine(counts)}.`];
  if (failed.length === 0) lines.push('No failed jobs.');
  else {
    lines.push(
      `Failed jobs, newest first${failed.length < counts.failed ? ` (${failed.length} of ${counts.failed}; --limit for more)` : ''}:`,
    );
    lines.push(...failed.map(describeJob));
    lines.push('Replay them with: croupier bus replay-failed [--job JOB_ID]...');
  }
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

async function replayFailed(bus: BullMqSettlementBus, args: readonly string[], io: CommandIo) {
  const { values, positionals } = parseOptions(args, {
    job: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals.join(' ')}"`);
  const named = values.job;
  const replayed = await bus.replayFailed(named);
  // A named job that was not replayed is not in the failed set (any more): say so, exit 1.
  const notFailed = (named ?? []).filter((jobId) => !replayed.includes(jobId));
  if (values.json) {
    io.stdout(`${JSON.stringify({ replayed, notFailed }, null, 2)}\n`);
  } else {
    const lines = [
      replayed.length === 0
        ? 'No failed job replayed.'
        : `Replayed ${replayed.length} job(s) with a fresh budget of attempts: ${replayed.join(', ')}`,
    ];
    if (notFailed.length > 0)
      lines.push(`Not in the failed set, left alone: ${notFailed.join(', ')}`);
    io.stdout(`${lines.join('\n')}\n`);
  }
  return notFailed.length === 0 ? 0 : 1;
}

export const busCommand: Command = {
  name: 'bus',
  summary:
    'the settlement bus (BullMQ on REDIS_URL, REDIS_PREFIX): list failed jobs, replay them into the queue; list the parked messages and retry one (through the gateway)',
  usage: USAGE,
  async run(args, io) {
    const [action, ...rest] = args;
    // Parked messages are in the log, whatever the bus: asked of the gateway, not of Redis.
    if (action === 'parked') return listParked(rest, io);
    if (action === 'retry-parked') return retryParked(rest, io);
    const actions: Record<string, typeof listFailed> = {
      failed: listFailed,
      'replay-failed': replayFailed,
    };
    const act = action === undefined ? undefined : actions[action];
    if (act === undefined)
      throw new UsageError(
        action === undefined
          ? 'say what to do: failed, replay-failed, parked or retry-parked'
          : `unknown "${action}"`,
      );
    const bus = configuredBus();
    try {
      if (!(await bus.ready())) {
        io.stderr(
          `Redis does not answer at REDIS_URL (${redactedUrl(process.env.REDIS_URL ?? '')}): start it, or point REDIS_URL at the services' Redis.\n`,
        );
        return BUS_UNAVAILABLE;
      }
      return await act(bus, rest, io);
    } finally {
      await bus.close();
    }
  },
};

/** A URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '[redacted]';
    return parsed.toString();
  } catch {
    return url;
  }
}
