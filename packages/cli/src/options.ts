import { readFile } from 'node:fs/promises';
import { publishedCheckpointSchema, type PublishedCheckpoint } from '@croupier/audit';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of every command that reads the audit trail: --json, and --url/--token to ask a
 * running gateway instead of the store.
 */
export const REPORT_OPTIONS = {
  json: { type: 'boolean', default: false },
  url: { type: 'string' },
  token: { type: 'string' },
} as const;

/** A file's text; a file that cannot be read is a usage error naming it and why. */
export async function readTextFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Parses command options strictly: an unknown option or a missing value is a UsageError. */
export function parseOptions<const T extends Options>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** An integer option within [min, max], or the fallback when absent. */
export function integerOption(
  name: string,
  value: string | undefined,
  { min, max, fallback }: { min: number; max: number; fallback?: number },
): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const normalized = value.replace(/_/g, '');
  const parsed = /^\d+$/.test(normalized) ? Number(normalized) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

/**
 * `--commitment` and `--digest`: the values the operator published outside the store when the
 * shoe was shuffled and closed, for the replay to compare the record with.
 */
export function publishedOptions(values: {
  commitment?: string | undefined;
  digest?: string | undefined;
}): { commitment: string | null; digest: string | null } | null {
  const hex = (name: string, value: string | undefined): string | null => {
    if (value === undefined) return null;
    if (!/^[0-9a-fA-F]{64}$/.test(value))
      throw new UsageError(`--${name} must be 64 hex digits (a sha256), got "${value}"`);
    return value.toLowerCase();
  };
  const commitment = hex('commitment', values.commitment);
  const digest = hex('digest', values.digest);
  return commitment === null && digest === null ? null : { commitment, digest };
}

/**
 * A checkpoint the operator published (`casino checkpoint --out FILE` wrote it), read from a file
 * for --checkpoint, with the key id the operator published (--key-id), if given.
 */
export async function checkpointOption(values: {
  checkpoint?: string | undefined;
  'key-id'?: string | undefined;
}): Promise<{ published: PublishedCheckpoint; keyId?: string } | null> {
  const keyId = values['key-id'];
  if (keyId !== undefined && !/^[0-9a-f]{16}$/.test(keyId))
    throw new UsageError(`--key-id must be 16 lowercase hex digits, got "${keyId}"`);
  const file = values.checkpoint;
  if (file === undefined) {
    if (keyId !== undefined) throw new UsageError('--key-id goes with --checkpoint FILE');
    return null;
  }
  const text = await readTextFile(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(
      `${file} is not JSON: give a checkpoint as \`casino checkpoint\` prints it`,
    );
  }
  const parsed = publishedCheckpointSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `${file} is not a published checkpoint: ${issue?.path.join('.') || '(top)'} ${issue?.message ?? ''}`.trim(),
    );
  }
  return { published: parsed.data, ...(keyId === undefined ? {} : { keyId }) };
}
