import { execFile } from 'node:child_process';
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const LAUNCHER = fileURLToPath(new URL('../croupier.js', import.meta.url));
const INPUTS = fileURLToPath(new URL('../dist/bundle/inputs.json', import.meta.url));
const SOURCE = fileURLToPath(new URL('../src/commands/roads.ts', import.meta.url));

const croupier = async (...argv: string[]) =>
  promisify(execFile)(process.execPath, [LAUNCHER, ...argv], { timeout: 120_000 });

/**
 * `pnpm casino` runs croupier.js: the command line bundled once into plain JavaScript (no tsx
 * on every call), rebuilt when a file it was built from changes.
 */
describe('the command line launcher', () => {
  it('runs from a bundle it builds on first use and rebuilds when a source changes', async () => {
    const first = await croupier('roads', '--results', 'BPB', '--json');
    expect(JSON.parse(first.stdout)).toHaveProperty('beadPlate');
    const built = JSON.parse(readFileSync(INPUTS, 'utf8')) as {
      entry: string;
      inputs: Record<string, string | null>;
    };
    expect(Object.keys(built.inputs)).toContain(SOURCE);

    const again = await croupier('roads', '--results', 'BPB', '--json');
    expect(again.stderr).not.toMatch(/building/);
    expect(again.stdout).toBe(first.stdout);

    // An edit (here only its time) makes the next call build again, from the sources as they are.
    const { atime, mtime } = statSync(SOURCE);
    utimesSync(SOURCE, atime, new Date(mtime.getTime() + 1000));
    try {
      const rebuilt = await croupier('roads', '--results', 'BPB', '--json');
      expect(rebuilt.stderr).toMatch(/building the command line/);
      expect(JSON.parse(readFileSync(INPUTS, 'utf8'))).not.toEqual(built);
    } finally {
      utimesSync(SOURCE, atime, mtime);
    }
  });
});
