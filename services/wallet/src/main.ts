import { runProcess } from '@croupier/runtime';
import { startWalletProcess } from './process.js';

await runProcess('wallet', (logger) => startWalletProcess(logger, process.env));
