import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FINDING_CODES, CHECK_IDS } from '@croupier/audit';
import { describe, expect, it } from 'vitest';

/**
 * docs/audit.md's table of attacks says what names each one; the tamper tests prove it. This
 * keeps the two together: every `check/CODE` the table names is asserted, as such, by one of the
 * tamper tests, and every code it names is one the auditor has; a row the tests stopped proving,
 * or a test the table does not show, fails here.
 */
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
const AUDIT_DOC = read('../../../docs/audit.md');
const TAMPER_TESTS = [
  './audit-attacks.int.test.ts',
  './audit-disputes.int.test.ts',
  './audit.int.test.ts',
  './audit.test.ts',
].map(read);

/** The rows of the attack table: attack and what names it. */
function attackRows(): { attack: string; namedBy: string }[] {
  const start = AUDIT_DOC.indexOf('## Attacks on the audit trail');
  const end = AUDIT_DOC.indexOf('What no check can detect', start);
  return AUDIT_DOC.slice(start, end)
    .split('\n')
    .filter(
      (line) => line.startsWith('|') && !line.startsWith('| ---') && !line.startsWith('| attack '),
    )
    .map((line) => {
      const [attack = '', namedBy = ''] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { attack, namedBy };
    });
}

const qualified = (text: string) => [...text.matchAll(/`([a-z-]+)\/([A-Z_]+)`/g)];

describe('docs/audit.md, the attacks and what names them', () => {
  it('has a row per attack, each naming at least one finding code the auditor has', () => {
    const rows = attackRows();
    expect(rows.length).toBeGreaterThan(20);
    for (const { attack, namedBy } of rows) {
      const codes = [...namedBy.matchAll(/([A-Z][A-Z_]{4,})/g)].map((m) => m[1]!);
      expect(codes.length, attack).toBeGreaterThan(0);
      for (const code of codes) expect(FINDING_CODES, `${attack}: ${code}`).toContain(code);
      for (const [, check] of qualified(namedBy)) expect(CHECK_IDS, attack).toContain(check);
    }
  });

  it('every check/CODE a row names is asserted by a tamper test', () => {
    const unproved = attackRows().flatMap(({ attack, namedBy }) =>
      qualified(namedBy)
        .map(([, check, code]) => `${check!}/${code!}`)
        .filter((finding) => !TAMPER_TESTS.some((source) => source.includes(finding)))
        .map((finding) => `${attack}: ${finding}`),
    );
    expect(unproved).toEqual([]);
  });
});
