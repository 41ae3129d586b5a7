export { run, COMMANDS } from './cli.js';
export type { Command, CommandIo } from './io.js';
