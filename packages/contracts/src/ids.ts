import { z } from 'zod';

/**
 * Identifiers and stream names. Shoes and rounds have ids derived from their place, so that
 * the streams sequence themselves: shoe k of table T is `T.k`, round n of that shoe is `T.k.n`.
 * Creating one is an append with `expectedVersion: 'no-stream'`, so exactly one process can
 * open a given shoe or round, and an auditor reads a shoe's rounds as `T.k.1`, `T.k.2`, ...
 * (docs/adr/0005-streams-that-sequence-themselves.md).
 */

export const tableIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,39}$/,
    'must be 1-40 lowercase letters, digits or dashes, starting with a letter or digit',
  );
export const shoeIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}\.[1-9][0-9]*$/, 'must be <tableId>.<shoe number>');
export const roundIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,39}\.[1-9][0-9]*\.[1-9][0-9]*$/,
    'must be <tableId>.<shoe number>.<round number>',
  );
export const playerIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, 'must be 1-64 letters, digits, or _ . @ -');
export const uuidSchema = z.uuid();
export const minorUnitsSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const positiveMinorUnitsSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const isoTimestampSchema = z.iso.datetime({ offset: true });

export type TableId = string;
export type ShoeId = string;
export type RoundId = string;
export type PlayerId = string;

export const shoeIdOf = (tableId: TableId, shoeNumber: number): ShoeId =>
  `${tableId}.${shoeNumber}`;
export const roundIdOf = (shoeId: ShoeId, roundNumber: number): RoundId =>
  `${shoeId}.${roundNumber}`;

/** Splits a round id into its table, shoe and numbers. */
export function parseRoundId(roundId: RoundId): {
  tableId: TableId;
  shoeId: ShoeId;
  shoeNumber: number;
  roundNumber: number;
} {
  const match = /^(.+)\.(\d+)\.(\d+)$/.exec(roundId);
  if (!match) throw new RangeError(`not a round id: "${roundId}"`);
  const [, tableId, shoe, round] = match as unknown as [string, string, string, string];
  return {
    tableId,
    shoeId: `${tableId}.${shoe}`,
    shoeNumber: Number(shoe),
    roundNumber: Number(round),
  };
}

export function parseShoeId(shoeId: ShoeId): { tableId: TableId; shoeNumber: number } {
  const match = /^(.+)\.(\d+)$/.exec(shoeId);
  if (!match) throw new RangeError(`not a shoe id: "${shoeId}"`);
  const [, tableId, shoe] = match as unknown as [string, string, string];
  return { tableId, shoeNumber: Number(shoe) };
}

/** Stream names by category. */
export const streams = {
  table: (tableId: TableId) => `table-${tableId}`,
  shoe: (shoeId: ShoeId) => `shoe-${shoeId}`,
  round: (roundId: RoundId) => `round-${roundId}`,
  wallet: (playerId: PlayerId) => `wallet-${playerId}`,
  /** Seamless mode: what Croupier asked the operator's wallet for this player, and its answers. */
  operatorWallet: (playerId: PlayerId) => `operator-wallet-${playerId}`,
  /** A player's play money (fun mode, ADR 0030): never `wallet-`, so nothing real reads it. */
  funWallet: (playerId: PlayerId) => `fun-wallet-${playerId}`,
  /**
   * A message a consumer set aside rather than retry forever (ADR 0035): `parked-<consumer>.<id>`.
   * Consumer names have no dot, so the first dot ends it.
   */
  parked: (consumer: string, messageId: string) => `parked-${consumer}.${messageId}`,
} as const;

export const STREAM_PREFIXES = {
  table: 'table-',
  shoe: 'shoe-',
  round: 'round-',
  wallet: 'wallet-',
  operatorWallet: 'operator-wallet-',
  funWallet: 'fun-wallet-',
  parked: 'parked-',
} as const;

/** The id part of a stream name: `round-t1.2.3` -> `t1.2.3`. */
export function streamId(stream: string, category: keyof typeof STREAM_PREFIXES): string {
  const prefix = STREAM_PREFIXES[category];
  if (!stream.startsWith(prefix)) throw new RangeError(`"${stream}" is not a ${category} stream`);
  return stream.slice(prefix.length);
}
