import type { FastifyRequest, FastifyServerOptions } from 'fastify';

const CENSOR = '[redacted]';

/**
 * Where credentials sit in the objects Croupier logs: request and response headers (fastify's
 * `req`/`res`, or headers logged on their own). pino blanks them before a line is written.
 */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'authorization',
  'cookie',
];

/**
 * Names whose values are secrets wherever they appear in a logged object: JWT_SECRET,
 * SHOE_SEED_KEY, a password, a token. Configuration objects are logged whole by mistake more
 * often than anyone plans to.
 */
export function isSecretName(name: string): boolean {
  return (
    /secret|password|passwd|authorization|cookie|token$/i.test(name) ||
    /(^|[_-])key$/i.test(name) ||
    /[a-z0-9]Key$/.test(name)
  );
}

/**
 * Query parameters that carry credentials: a token (`token`, `access_token`, `id_token`), an
 * authorization value, an API key, a JWT, a password, a secret, a session or a signature.
 */
const CREDENTIAL_PARAMETER =
  /^(?:(?:access|id|refresh|auth|bearer|session)?[_-]?token|auth|authorization|bearer|api[_-]?key|apikey|key|jwt|pass|passwd|password|pwd|secret|client[_-]?secret|session|session[_-]?id|sid|sig|signature|credentials?)$/i;
/** A JWT anywhere, whatever the parameter's name: three base64url parts, the first `{"`. */
const JWT_TEXT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** `?name=value` / `&name=value` / `;name=value` in a URL or in any text that quotes one. */
const QUERY_PARAMETER = /([?&;])([^=&\s?#;]+)=([^&\s#;"']*)/g;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * A URL (or a text that holds one, such as "no route GET /v1/x?token=...") with the values of
 * credential-like query parameters and any JWT replaced by `[redacted]`: what may be logged,
 * stored in an event or echoed in a problem.
 */
export function withoutQueryCredentials(text: string): string {
  if (!text.includes('=') && !text.includes('eyJ')) return text;
  return text
    .replace(QUERY_PARAMETER, (whole, separator: string, name: string) =>
      CREDENTIAL_PARAMETER.test(decodedName(name)) || isSecretName(decodedName(name))
        ? `${separator}${name}=${CENSOR}`
        : whole,
    )
    .replace(JWT_TEXT, CENSOR);
}

/** `postgres://user:pass@host/db` -> `postgres://user:[redacted]@host/db`. */
export function withoutUrlPassword(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@\s/]+@/gi, `$1${CENSOR}@`);
}

const MAX_DEPTH = 6;

/** A copy of a log object with secret-named fields and URL passwords blanked. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return withoutQueryCredentials(value.includes('://') ? withoutUrlPassword(value) : value);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  // Errors, buffers and the like keep their own serializers.
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] = isSecretName(key) && field != null ? CENSOR : redactSecrets(field, depth + 1);
  }
  return copy;
}

/** pino options every Croupier logger shares: headers' credentials and secrets never written. */
export function secureLoggerOptions<T extends object>(
  options: T,
): T & {
  redact: { paths: string[]; censor: string };
  formatters: { log: (object: Record<string, unknown>) => Record<string, unknown> };
} {
  return {
    ...options,
    redact: { paths: [...REDACTED_PATHS], censor: CENSOR },
    formatters: {
      ...(options as { formatters?: object }).formatters,
      log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown>,
    },
  };
}

/** The request as fastify logs it, with the URL's credentials redacted. */
function requestSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: withoutQueryCredentials(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort ?? 0,
  };
}

/**
 * The fastify `logger` option with Croupier's redaction added (false stays false): request
 * lines log the URL without its query credentials.
 */
export function secureFastifyLogger(
  logger: FastifyServerOptions['logger'],
): Exclude<FastifyServerOptions['logger'], undefined> {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return secureLoggerOptions({
    ...options,
    serializers: { ...options.serializers, req: requestSerializer },
  });
}
