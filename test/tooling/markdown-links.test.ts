import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Folders that are not the repository's own writing. */
const SKIPPED = new Set([
  'node_modules',
  '.git',
  'dist',
  'data',
  'coverage',
  '.turbo',
  'test-results',
]);

function markdownFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The targets of a page's links and images (inline, reference and HTML), outside code. */
function linkTargets(markdown: string): string[] {
  const prose = markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, '');
  const targets: string[] = [];
  for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    targets.push(match[1]!);
  for (const match of prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm))
    targets.push(match[1]!);
  for (const match of prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)\s*=\s*"([^"]+)"/gi))
    targets.push(match[1]!);
  return targets;
}

/**
 * Why a link in `file` leads outside the repository, or null when it stays inside (or is a web
 * address or an anchor): the repository must carry everything its pages refer to, since a clone
 * of it alone is all a reader has.
 */
function outside(file: string, target: string): string | null {
  if (/^(https?:|mailto:|#)/i.test(target)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `${target}: not a file of the repository`;
  const path = decodeURI(target.replace(/[?#].*$/, ''));
  if (path === '') return null;
  const resolved = path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path);
  const inside = relative(ROOT, resolved);
  if (inside.startsWith(`..${sep}`) || inside === '..' || resolve(inside) === inside)
    return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no such file in the repository`;
  return null;
}

describe('markdown links', () => {
  it('finds links, reference links and HTML links, and ignores code', () => {
    expect(
      linkTargets(
        '[a](../shared/spec/rules.md) [b](docs/x.md#y "t")\n[c]: ../c.md\n<a href="d.md">d</a> `[e](e.md)`\n```\n[f](f.md)\n```\n',
      ),
    ).toEqual(['../shared/spec/rules.md', 'docs/x.md#y', '../c.md', 'd.md']);
    const readme = join(ROOT, 'README.md');
    expect(outside(readme, '../shared/spec/rules.md')).toMatch(/outside the repository/);
    expect(outside(readme, 'file:///work/shared/spec/rules.md')).toMatch(/not a file/);
    expect(outside(readme, 'docs/rules.md#000')).toBeNull();
    expect(outside(readme, 'https://www.rfc-editor.org/rfc/rfc9457')).toBeNull();
  });

  it('of every page in the repository stay inside it', () => {
    const files = markdownFiles(ROOT);
    expect(files.map((file) => relative(ROOT, file))).toContain(join('docs', 'rules.md'));
    const problems = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8')).flatMap((target) => {
        const why = outside(file, target);
        return why === null ? [] : [`${relative(ROOT, file)}: ${why}`];
      }),
    );
    expect(problems).toEqual([]);
  });
});
