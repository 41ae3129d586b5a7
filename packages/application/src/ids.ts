import { createHash, randomUUID } from 'node:crypto';

/** Croupier's UUID namespace (a v4 UUID chosen once): ids derived from it are Croupier's own. */
export const CROUPIER_NAMESPACE = '3f4c3a52-8c1e-4f8e-9d5b-2b0d8e6c7a11';

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name). The same parts always give
 * the same id, on any machine and in any language, which makes a retried step append the same
 * event id, so the store recognizes it instead of recording it twice.
 */
export function deterministicId(...parts: readonly string[]): string {
  const name = parts.join('\u001f');
  const hash = createHash('sha1')
    .update(uuidBytes(CROUPIER_NAMESPACE))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh random id, for events no retry can repeat (a new deposit reference, a new round). */
export function randomId(): string {
  return randomUUID();
}
