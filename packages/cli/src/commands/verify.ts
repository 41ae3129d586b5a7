import { readFile } from 'node:fs/promises';
import { ExportFormatError, verifyExport } from '@croupier/audit';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions, publishedOptions } from '../options.js';
import { ProgressBar } from '../progress.js';
import { shoeText } from './audit-text.js';

export const verifyCommand: Command = {
  name: 'verify',
  summary:
    'verify an exported shoe offline, from the file alone: no database (exit 1 if it does not verify)',
  usage: 'croupier verify FILE [--json] [--commitment HEX] [--digest HEX]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      json: { type: 'boolean', default: false },
      commitment: { type: 'string' },
      digest: { type: 'string' },
    });
    const published = publishedOptions(values);
    const [file, ...rest] = positionals;
    if (file === undefined || rest.length > 0) throw new UsageError('give one exported file');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
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
