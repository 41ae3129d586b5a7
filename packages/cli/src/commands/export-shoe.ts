import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exportShoe, parseShoeExport } from '@croupier/audit';
import { shoeIdSchema } from '@croupier/contracts';
import { loadShoeEvidence } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions } from '../options.js';
import {
  apiToken,
  callApi,
  reportingUnavailable,
  STORE_UNAVAILABLE,
  withStore,
} from './audit-access.js';

export const exportCommand: Command = {
  name: 'export',
  summary:
    'export a shoe (every event and the verification instructions) to a file that `verify` checks offline',
  usage: 'croupier export shoe SHOE_ID --out FILE [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      out: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    });
    const [what, shoeId, ...rest] = positionals;
    if (what !== 'shoe' || shoeId === undefined || rest.length > 0)
      throw new UsageError('give what to export: export shoe SHOE_ID --out FILE');
    if (!shoeIdSchema.safeParse(shoeId).success)
      throw new UsageError(`"${shoeId}" is not a shoe id (<table>.<shoe number>, e.g. live.1)`);
    if (values.out === undefined || values.out === '')
      throw new UsageError('--out FILE is required');
    const out = resolve(values.out);
    return reportingUnavailable(io.stderr, async () => {
      let text: string;
      if (values.url !== undefined) {
        const token = await apiToken(values.token, 'regulator');
        text = (await callApi(values.url, `/v1/audit/shoes/${shoeId}/export`, token)).text;
        parseShoeExport(text); // refuse to write what is not an export
      } else {
        const evidence = await withStore((store) => loadShoeEvidence(store, shoeId));
        if (evidence === null) {
          io.stderr(`no shoe "${shoeId}" in the event store\n`);
          return STORE_UNAVAILABLE;
        }
        text = JSON.stringify(exportShoe(evidence), null, 2);
      }
      await writeFile(out, `${text.trimEnd()}\n`, 'utf8');
      io.stderr(`exported shoe ${shoeId} to ${out}; verify it with: casino verify ${out}\n`);
      return 0;
    });
  },
};
