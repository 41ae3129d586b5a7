import { secureLoggerOptions } from '@croupier/http';
import { pino, type Logger } from 'pino';
import { ConfigError } from './environment.js';
import { applyV8Settings } from './v8-settings.js';

export interface Process {
  /** Called once on SIGINT/SIGTERM: stop accepting, finish what is in flight, close. */
  readonly stop: () => Promise<void>;
}

/**
 * Runs a service process: reads its configuration (a ConfigError exits 2 with every bad
 * variable named), starts it, and stops it gracefully on SIGINT or SIGTERM.
 */
export async function runProcess(
  name: string,
  start: (logger: Logger) => Promise<Process>,
  level = process.env.LOG_LEVEL ?? 'info',
): Promise<void> {
  applyV8Settings();
  // The same redaction as the HTTP loggers: no credential or secret ever reaches a log line.
  const logger = pino(secureLoggerOptions({ name, level }));
  let running: Process;
  try {
    running = await start(logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    try {
      await running.stop();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
