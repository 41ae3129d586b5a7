import { UsageError, type Command, type CommandIo } from './io.js';

/** A command as the help lists it; its code (and the packages it needs) is loaded when it runs. */
export interface CommandEntry {
  readonly name: string;
  /** The same as the command's own summary (a test holds them equal). */
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

/**
 * Every command. Each is loaded only when called: `croupier token`, scripted by operators, does
 * not load the event store, the bus or the HTTP server that other commands need.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'analyze',
    summary: 'exact house edge and RTP of every bet, by combinatorial analysis',
    load: async () => (await import('./commands/analyze.js')).analyzeCommand,
  },
  {
    name: 'simulate',
    summary: 'deal real shoes and settle every bet; observed RTP with 95% confidence intervals',
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
  {
    name: 'roads',
    summary: 'bead plate, big road and derived roads of a sequence of results',
    load: async () => (await import('./commands/roads.js')).roadsCommand,
  },
  {
    name: 'token',
    summary:
      'print a signed development token (JWT_SECRET, or the embedded store secret in DATA_DIR)',
    load: async () => (await import('./commands/token.js')).tokenCommand,
  },
  {
    name: 'reconcile',
    summary: 'settlement messages by global position, from the API, to find and fill gaps',
    load: async () => (await import('./commands/reconcile.js')).reconcileCommand,
  },
  {
    name: 'operator-calls',
    summary:
      "seamless mode: the calls made to the operator's wallet and their outcome, per player and period, from the API, to reconcile",
    load: async () => (await import('./commands/operator-calls.js')).operatorCallsCommand,
  },
  {
    name: 'report',
    summary: 'daily GGR and turnover, or observed RTP against exact, from a running Croupier',
    load: async () => (await import('./commands/report.js')).reportCommand,
  },
  {
    name: 'audit',
    summary:
      "audit a round (its event trail, cards, third-card decisions, bets, payouts, wallet movements) or a player's wallet from its first movement (what justifies each), with a verdict (exit 1 if it does not verify)",
    load: async () => (await import('./commands/audit.js')).auditCommand,
  },
  {
    name: 'replay',
    summary:
      'replay a shoe from its events alone: seed and commitment, burn, cut card, every card, round and payout, hash chains, digest (exit 1 if it does not verify)',
    load: async () => (await import('./commands/replay.js')).replayCommand,
  },
  {
    name: 'export',
    summary:
      'export a shoe (every event and the verification instructions) to a file that `verify` checks offline',
    load: async () => (await import('./commands/export-shoe.js')).exportCommand,
  },
  {
    name: 'verify',
    summary:
      'verify an exported shoe offline, from the file alone (no database); or, with --checkpoint, the whole store against a checkpoint the operator published (exit 1 if it does not verify)',
    load: async () => (await import('./commands/verify.js')).verifyCommand,
  },
  {
    name: 'checkpoint',
    summary:
      'print a signed checkpoint of every stream head, for the operator to publish (latest, or by number); --out writes it as the file `verify --checkpoint` reads',
    load: async () => (await import('./commands/checkpoint.js')).checkpointCommand,
  },
  {
    name: 'rebuild',
    summary:
      'rebuild read models (tables and roads, game histories, wallet balances) from the event log; with --url, the running gateway rebuilds its own',
    load: async () => (await import('./commands/rebuild.js')).rebuildCommand,
  },
  {
    name: 'bus',
    summary:
      'the settlement bus (BullMQ on REDIS_URL, REDIS_PREFIX): list failed jobs, replay them into the queue; list the parked messages and retry one (through the gateway)',
    load: async () => (await import('./commands/bus.js')).busCommand,
  },
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
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.stderr(`unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
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
