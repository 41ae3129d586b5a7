import { ExportFormatError, verifyExport, type CheckpointVerification } from '@croupier/audit';
import { verifyCheckpoint } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import {
  checkpointOption,
  parseOptions,
  publishedOptions,
  readTextFile,
  REPORT_OPTIONS,
} from '../options.js';
import { ProgressBar } from '../progress.js';
import { apiToken, callApi, reportingUnavailable, withStore } from './audit-access.js';
import { checkpointText, shoeText } from './audit-text.js';

export const verifyCommand: Command = {
  name: 'verify',
  summary:
    'verify an exported shoe offline, from the file alone (no database); or, with --checkpoint, the whole store against a checkpoint the operator published (exit 1 if it does not verify)',
  usage:
    'croupier verify FILE [--json] [--commitment HEX] [--digest HEX] | verify --checkpoint FILE [--key-id ID] [--json] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      ...REPORT_OPTIONS,
      commitment: { type: 'string' },
      digest: { type: 'string' },
      checkpoint: { type: 'string' },
      'key-id': { type: 'string' },
    });
    const published = publishedOptions(values);
    const anchor = await checkpointOption(values);
    if (anchor !== null) {
      if (positionals.length > 0 || published !== null)
        throw new UsageError(
          '--checkpoint checks the whole store: give no export file, --commitment or --digest with it',
        );
      return reportingUnavailable(io.stderr, async () => {
        let report: CheckpointVerification;
        if (values.url !== undefined) {
          const token = await apiToken(values.token, 'regulator');
          report = (
            await callApi(values.url, '/v1/audit/checkpoints/verify', token, 'POST', {
              checkpoint: anchor.published,
              ...(anchor.keyId === undefined ? {} : { keyId: anchor.keyId }),
            })
          ).body as CheckpointVerification;
        } else {
          report = await withStore((store) =>
            verifyCheckpoint(store, anchor.published, anchor.keyId),
          );
        }
        io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : checkpointText(report));
        return report.verdict.ok ? 0 : 1;
      });
    }
    if (values.url !== undefined || values.token !== undefined)
      throw new UsageError('an export file is verified offline: --url goes with --checkpoint');
    const [file, ...rest] = positionals;
    if (file === undefined || rest.length > 0) throw new UsageError('give one exported file');
    const text = await readTextFile(file);
    let progress: ProgressBar | null = null;
    try {
      const replay = verifyExport(text, {
        published,
        onProgress: (done, total) => {
          progress ??= new ProgressBar(io, total, 'streams replayed');
          progress.update(done);
        },
      });
      (progress as ProgressBar | null)?.finish();
      io.stdout(values.json ? `${JSON.stringify(replay, null, 2)}\n` : shoeText(replay));
      return replay.verdict.ok ? 0 : 1;
    } catch (error) {
      if (error instanceof ExportFormatError) throw new UsageError(`${file}: ${error.message}`);
      throw error;
    }
  },
};
