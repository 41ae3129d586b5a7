import { runProcess } from '@croupier/runtime';
import { startSettlementProcess } from './process.js';

await runProcess('settlement', (logger) => startSettlementProcess(logger, process.env));
