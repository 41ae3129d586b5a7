/** A value has no canonical JSON form (bigint, NaN, ±Infinity, function, symbol, Map/Set, cycle). */
export class CanonicalJsonError extends Error {
  readonly code = 'NOT_CANONICAL_JSON';
  constructor(
    /** Where in the value, as `$.a.b[2]`. */
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot encode ${path} as canonical JSON: ${reason}`);
    this.name = 'CanonicalJsonError';
  }
}

/**
 * Canonical JSON in the style of RFC 8785 (JCS): object keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers exactly as `JSON.stringify` writes them (which is what JCS
 * specifies). Hashes are computed over this text, so an offline verifier can recompute them from
 * the parsed events in any language that implements JCS. It is the one definition: the event
 * store's hash chain, the paytable id and the shoe digest all use it (ADR 0018).
 *
 * Follows `JSON.stringify` where it is unambiguous (`toJSON` is honoured, so a Date becomes its ISO
 * string; an `undefined` property is omitted; `undefined` in an array becomes `null`) and throws a
 * `CanonicalJsonError` naming the path where it would silently lose information: bigint, NaN,
 * ±Infinity, functions, symbols, Map/Set, and cycles.
 */
export function canonicalJson(value: unknown): string {
  const text = encode(value, '$', new Set());
  if (text === undefined) throw new CanonicalJsonError('$', 'undefined is not a JSON value');
  return text;
}

function encode(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && 'toJSON' in value) {
    const { toJSON } = value;
    if (typeof toJSON === 'function') value = (toJSON as () => unknown).call(value);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new CanonicalJsonError(path, `${value} is not a finite number`);
      }
      return JSON.stringify(value);
    case 'undefined':
      return undefined;
    case 'bigint':
      throw new CanonicalJsonError(path, 'bigint has no JSON form; encode it as a string');
    case 'function':
    case 'symbol':
      throw new CanonicalJsonError(path, `a ${typeof value} is not a JSON value`);
    case 'object':
      break;
  }
  if (value === null) return 'null';
  const object = value;
  if (object instanceof Map || object instanceof Set || ArrayBuffer.isView(object)) {
    throw new CanonicalJsonError(path, `${object.constructor.name} is not a JSON value`);
  }
  if (ancestors.has(object)) throw new CanonicalJsonError(path, 'the value contains a cycle');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      const items = object.map(
        (item: unknown, index) => encode(item, `${path}[${index}]`, ancestors) ?? 'null',
      );
      return `[${items.join(',')}]`;
    }
    const record = object as Record<string, unknown>;
    // Default sort compares UTF-16 code units, exactly what JCS asks for.
    const keys = Object.keys(record).sort();
    const members: string[] = [];
    for (const key of keys) {
      const encoded = encode(record[key], `${path}.${key}`, ancestors);
      if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}
