import { randomUUID } from 'node:crypto';
import { v5 as uuidV5 } from 'uuid';

/** Croupier's UUID namespace (a v4 UUID chosen once): ids derived from it are Croupier's own. */
export const CROUPIER_NAMESPACE = '3f4c3a52-8c1e-4f8e-9d5b-2b0d8e6c7a11';

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name, by the `uuid` package). The
 * same parts always give the same id, on any machine and in any language, which makes a retried
 * step append the same event id, so the store recognizes it instead of recording it twice. The
 * ids are stored: test/ids.test.ts pins them, so no change of library can change them (ADR 0018).
 */
export function deterministicId(...parts: readonly string[]): string {
  return uuidV5(parts.join('\u001f'), CROUPIER_NAMESPACE);
}

/** A fresh random id, for events no retry can repeat (a new deposit reference, a new round). */
export function randomId(): string {
  return randomUUID();
}
