import { runProcess } from '@croupier/runtime';
import { startRoundProcess } from './process.js';

await runProcess('round', (logger) => startRoundProcess(logger, process.env));
