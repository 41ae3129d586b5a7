import { runProcess } from '@croupier/runtime';
import { startShoeProcess } from './process.js';

await runProcess('shoe', (logger) => startShoeProcess(logger, process.env));
