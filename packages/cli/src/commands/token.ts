import { ROLES, type Role } from '@croupier/contracts';
import { loadConfig } from '@croupier/gateway';
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
    const config = loadConfig();
    const token = await new TokenAuthority(config.JWT_SECRET).issue(
      { id: values.sub, role: values.role as Role },
      values.expires,
    );
    io.stdout(`${token}\n`);
    return 0;
  },
};
