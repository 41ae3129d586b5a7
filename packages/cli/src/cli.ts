import { analyzeCommand } from './commands/analyze.js';
import { auditCommand } from './commands/audit.js';
import { busCommand } from './commands/bus.js';
import { checkpointCommand } from './commands/checkpoint.js';
import { exportCommand } from './commands/export-shoe.js';
import { rebuildCommand } from './commands/rebuild.js';
import { reconcileCommand } from './commands/reconcile.js';
import { replayCommand } from './commands/replay.js';
import { roadsCommand } from './commands/roads.js';
import { simulateCommand } from './commands/simulate.js';
import { tokenCommand } from './commands/token.js';
import { verifyCommand } from './commands/verify.js';
import { UsageError, type Command, type CommandIo } from './io.js';

export const COMMANDS: readonly Command[] = [
  analyzeCommand,
  simulateCommand,
  roadsCommand,
  tokenCommand,
  reconcileCommand,
  auditCommand,
  replayCommand,
  exportCommand,
  verifyCommand,
  checkpointCommand,
  rebuildCommand,
  busCommand,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return (
    'croupier: the Croupier command line\n\nCommands:\n' +
    COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n') +
    '\n\nRun `croupier <command> --help` for its options.\n'
  );
}

/** Runs one command line; returns the process exit code. */
export async function run(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`usage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`croupier ${name}: ${error.message}\nusage: ${command.usage}\n`);
      return 2;
    }
    throw error;
  }
}
