import type { SystemOptions } from '@croupier/gateway';

const noop = () => undefined;

/** A logger that says nothing, for a System the CLI tests start in process. */
export const silentLogger = {
  level: 'silent',
  fatal: noop,
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
  trace: noop,
  silent: noop,
  child: () => silentLogger,
} as unknown as SystemOptions['logger'];
