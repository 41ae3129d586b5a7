import { ROLES, type Role } from '@croupier/contracts';
import { ConfigError, tokenSecret } from '@croupier/gateway';
import { TokenAuthority } from '@croupier/http';
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
    if (!/^\d+[smhd]$/.test(values.expires))
      throw new UsageError('--expires must look like 30m, 12h or 7d');
    const token = await new TokenAuthority(signingSecret()).issue(
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
  try {
    return tokenSecret(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
