import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { RoundRules } from './events/round.js';
import type { DigestEntry } from './events/shoe.js';

/*
 * Digests that name or seal recorded values: the service that records one and the audit that
 * recomputes it must agree to the bit, so each is defined here, once.
 */

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Names a paytable in game records (`RoundOpened.paytableId`): hex sha256 of the canonical JSON
 * of the round's rules.
 */
export function paytableIdOf(rules: RoundRules): string {
  return sha256Hex(canonicalJson(rules));
}

/** Seals a shoe (`ShoeClosed.digest.value`): hex sha256 of the canonical JSON of its entries. */
export function digestValueOf(entries: readonly DigestEntry[]): string {
  return sha256Hex(canonicalJson(entries));
}
