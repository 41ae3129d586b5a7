import { readFileSync } from 'node:fs';
import { ERROR_DESCRIPTIONS, ERROR_STATUS } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
import { ERRORS_DOC_FILE, errorsDocText } from './errors-doc-file.js';

describe('docs/errors.md, the catalogue of error codes', () => {
  it('is what the catalogue generates (run the errors-doc script after changing a code)', async () => {
    expect(readFileSync(ERRORS_DOC_FILE, 'utf8')).toBe(await errorsDocText());
  });

  it('lists every code with its status, and describes no code that does not exist', async () => {
    const text = await errorsDocText();
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(text).toMatch(new RegExp(`^\\| \`${code}\` +\\| ${status} +\\|`, 'm'));
    }
    expect(Object.keys(ERROR_DESCRIPTIONS).sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    for (const { meaning, example } of Object.values(ERROR_DESCRIPTIONS)) {
      expect(meaning.trim()).not.toBe('');
      expect(example.trim()).not.toBe('');
    }
  });
});
