import { writeFile } from 'node:fs/promises';
import type { PublishedCheckpoint } from '@croupier/audit';
import { loadCheckpoint } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions, REPORT_OPTIONS } from '../options.js';
import {
  apiToken,
  callApi,
  reportingUnavailable,
  STORE_UNAVAILABLE,
  withStore,
} from './audit-access.js';
import { publishedCheckpointText } from './audit-text.js';

export const checkpointCommand: Command = {
  name: 'checkpoint',
  summary:
    'print a signed checkpoint of every stream head, for the operator to publish (latest, or by number); --out writes it as the file `verify --checkpoint` reads',
  usage:
    'croupier checkpoint [latest|SEQUENCE] [--out FILE] [--json] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      ...REPORT_OPTIONS,
      out: { type: 'string' },
    });
    const [given = 'latest', ...rest] = positionals;
    if (rest.length > 0) throw new UsageError('give at most one checkpoint: latest or a number');
    const which = given === 'latest' ? 'latest' : Number(given);
    if (which !== 'latest' && !(Number.isSafeInteger(which) && which > 0))
      throw new UsageError(
        `"${given}" is not a checkpoint: give latest or a sequence number (1, 2, ...)`,
      );
    return reportingUnavailable(io.stderr, async () => {
      let checkpoint: PublishedCheckpoint | null;
      if (values.url !== undefined) {
        const token = await apiToken(values.token, 'regulator');
        checkpoint = (await callApi(values.url, `/v1/audit/checkpoints/${which}`, token))
          .body as PublishedCheckpoint;
      } else {
        checkpoint = await withStore((store) => loadCheckpoint(store, which));
      }
      if (checkpoint === null) {
        io.stderr(
          which === 'latest'
            ? 'no checkpoint recorded yet: the notary records one every CHECKPOINT_INTERVAL_MS once events exist\n'
            : `no checkpoint ${which}\n`,
        );
        return STORE_UNAVAILABLE;
      }
      const json = `${JSON.stringify(checkpoint, null, 2)}\n`;
      if (values.out !== undefined) await writeFile(values.out, json);
      io.stdout(values.json ? json : publishedCheckpointText(checkpoint));
      return 0;
    });
  },
};
