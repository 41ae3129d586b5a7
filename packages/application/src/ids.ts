import { randomUUID } from 'node:crypto';
import { parse as uuidParse, v5 as uuidV5 } from 'uuid';

/** Croupier's UUID namespace (a v4 UUID chosen once): ids derived from it are Croupier's own. */
export const CROUPIER_NAMESPACE = '3f4c3a52-8c1e-4f8e-9d5b-2b0d8e6c7a11';

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of namespace and name, by the `uuid` package). The
 * same parts always give the same id, on any machine and in any language, which makes a retried
 * step append the same event id, so the store recognizes it instead of recording it twice. The
 * ids are stored: test/ids.test.ts pins them, so no change of library can change them (ADR 0018).
 */
export function deterministicId(...parts: readonly string[]): string {
  const name = parts.join('\u001f');
  // The same bytes the library would make of the strings, made by Node's UTF-8 encoder and the
  // namespace parsed once: a third of the call's cost in the game loop's profile. A name that is
  // not well-formed UTF-16 (a lone surrogate) goes to the library as text, which refuses it.
  if (LONE_SURROGATE.test(name)) return uuidV5(name, CROUPIER_NAMESPACE);
  return uuidV5(Buffer.from(name, 'utf8'), NAMESPACE_BYTES);
}

const NAMESPACE_BYTES = uuidParse(CROUPIER_NAMESPACE);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A fresh random id, for events no retry can repeat (a new deposit reference, a new round). */
export function randomId(): string {
  return randomUUID();
}
