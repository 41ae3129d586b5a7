import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MINOR_UNIT_EXPONENTS } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';

/**
 * The operator console's files, next to this module in `src/console/` (resolved through the
 * package root, so the compiled `dist/` build serves the same files).
 */
const CONSOLE_DIR = fileURLToPath(new URL('../src/console/', import.meta.url));

const FILES = {
  '/console': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/console/console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  '/console/roads.js': { file: 'roads.js', type: 'text/javascript; charset=utf-8' },
  '/console/money.js': { file: 'money.js', type: 'text/javascript; charset=utf-8' },
  '/console/actions.js': { file: 'actions.js', type: 'text/javascript; charset=utf-8' },
  '/console/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
  '/console/floor.js': { file: 'floor.js', type: 'text/javascript; charset=utf-8' },
  '/console/charts.js': { file: 'charts.js', type: 'text/javascript; charset=utf-8' },
  '/console/floor.css': { file: 'floor.css', type: 'text/css; charset=utf-8' },
} as const;

/**
 * Serves the operator console: a static page (no build step) that calls the audit API with the
 * token typed into it. The page is public; every call it makes needs the token.
 */
export function consoleRoutes(app: HttpApp): void {
  for (const [url, { file, type }] of Object.entries(FILES)) {
    let body = readFileSync(`${CONSOLE_DIR}${file}`, 'utf8');
    // The currencies' minor-unit exponents from the one table the server formats by, so the page
    // and the significant-event texts put the point in the same place.
    if (file === 'money.js')
      body += `\nexport const MINOR_UNIT_EXPONENTS = Object.freeze(${JSON.stringify(MINOR_UNIT_EXPONENTS)});\n`;
    app.get(url, { config: { public: true }, schema: { hide: true } }, (_request, reply) =>
      reply
        .header('content-type', type)
        .header('cache-control', 'no-cache')
        .header(
          'content-security-policy',
          "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
        )
        .send(body),
    );
  }
}
