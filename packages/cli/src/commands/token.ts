import { ROLES, type Role } from '@croupier/contracts';
import { ConfigError, tokenPolicy, tokenSecret } from '@croupier/runtime';
import { durationSeconds, TokenAuthority } from '@croupier/http';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions } from '../options.js';

const ISSUABLE = ROLES.filter((role) => role !== 'system');

export const tokenCommand: Command = {
  name: 'token',
  summary:
    'print a signed development token (JWT_SECRET, or the embedded store secret in DATA_DIR)',
  usage: `croupier token --role ${ISSUABLE.join('|')} --sub ID [--expires 12h]`,
  async run(args, io) {
    const { values } = parseOptions(args, {
      role: { type: 'string' },
      sub: { type: 'string' },
      expires: { type: 'string', default: '12h' },
    });
    if (values.role === undefined || !(ISSUABLE as readonly string[]).includes(values.role)) {
      throw new UsageError(`--role must be one of ${ISSUABLE.join(', ')}`);
    }
    if (values.sub === undefined || !/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/.test(values.sub)) {
      throw new UsageError(
        '--sub is required: the id of the player or staff member (letters, digits, _ . @ -)',
      );
    }
    const lifetime = durationSeconds(values.expires);
    if (lifetime === null) throw new UsageError('--expires must look like 30m, 12h or 7d');
    const authority = new TokenAuthority(signingSecret(), configured(tokenPolicy));
    // The API refuses a token that lives longer than TOKEN_MAX_LIFETIME: never print one.
    const bound = authority.maxLifetimeOf(values.role as Role);
    if (lifetime > bound) {
      throw new UsageError(
        `--expires ${values.expires} is longer than TOKEN_MAX_LIFETIME (${bound} s): the API would refuse the token`,
      );
    }
    const token = await authority.issue(
      { id: values.sub, role: values.role as Role },
      values.expires,
    );
    io.stdout(`${token}\n`);
    return 0;
  },
};

/**
 * The secret the gateway verifies tokens with, from the same environment. Only it is read: a
 * token is signed without the store's URL or the shoe seed key, and a bad setting is reported
 * like every other command's, not as a stack trace.
 */
function signingSecret(): string {
  return configured(tokenSecret);
}

/** A setting read from the environment, a bad one reported as a usage error. */
function configured<T>(read: (env: NodeJS.ProcessEnv) => T): T {
  try {
    return read(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
