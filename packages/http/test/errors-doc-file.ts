import { fileURLToPath } from 'node:url';
import { ERROR_DESCRIPTIONS, ERROR_STATUS, type ErrorCode } from '@croupier/contracts';
import { format, resolveConfig } from 'prettier';
import { problemTitleOf, problemTypeOf, type Problem } from '../src/index.js';

/** Where the catalogue of error codes is published. */
export const ERRORS_DOC_FILE = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url));

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A body as the API answers it, for the example at the top of the page. */
function exampleProblem(): Problem {
  const code: ErrorCode = 'BET_ABOVE_MAX';
  const detail = ERROR_DESCRIPTIONS[code].example;
  return {
    type: problemTypeOf(code),
    title: problemTitleOf(code),
    status: ERROR_STATUS[code],
    code,
    detail,
    instance: '/v1/rounds/baccarat-1.3.12/bets',
    correlationId: '2b0d7f4e-51a8-4a7c-9a43-8f1e6c0d9b25',
    errors: [{ field: 'amount', message: detail }],
  };
}

/**
 * docs/errors.md as generated from the catalogue (ERROR_STATUS and ERROR_DESCRIPTIONS in
 * @croupier/contracts), formatted as the repository's prettier writes it.
 */
export async function errorsDocText(): Promise<string> {
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];
  const rows = codes.map((code) => {
    const { meaning, example } = ERROR_DESCRIPTIONS[code];
    return `| \`${code}\` | ${ERROR_STATUS[code]} | ${cell(problemTitleOf(code))} | ${cell(meaning)} | \`${cell(example)}\` |`;
  });
  const markdown = `# Error codes

<!-- Generated from ERROR_STATUS and ERROR_DESCRIPTIONS (packages/contracts/src/errors.ts,
error-catalog.ts) by \`npx -y pnpm@12.4.2 --filter @croupier/http run errors-doc\`. Do not edit:
a test fails when this file and the catalogue differ. -->

Every refusal and failure of the HTTP API answers \`application/problem+json\`
([RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)) with a stable \`code\`. Clients decide on
\`code\` (and the status); \`title\` is the same for every occurrence of a code, \`detail\` says
what was wrong this time and its wording may change. A refused command changes nothing.

| Field | Meaning |
| --- | --- |
| \`type\` | \`https://croupier.dev/problems/\` and the code in kebab case |
| \`title\` | the code's summary (the table below) |
| \`status\` | the HTTP status, the same as the answer's |
| \`code\` | one of the codes below |
| \`detail\` | what was wrong with this request |
| \`instance\` | the path and query of the request, credentials in the query redacted; empty for 408 and 431 |
| \`correlationId\` | the request's \`x-correlation-id\` (given, or made up); quote it when reporting a problem |
| \`errors\` | only when the problem is about fields: \`[{ "field", "message" }]\`, e.g. \`body.bets.0.amount\` |
| \`hint\` | only when a refusal names the step that would help next: the request for it, e.g. \`POST /v1/shoes/baccarat-1.3/burn\` |
| \`shoeId\` | only when a refusal is about a shoe: opening the first round of a new scanner shoe answers \`422 INVALID_DEAL\` yet has created the shoe, named here, to burn next (with \`hint\`); \`SHOE_NOT_FINISHED\` names the shoe still in play |

A bet over the table maximum:

\`\`\`json
${JSON.stringify(exampleProblem(), null, 2)}
\`\`\`

Which codes an operation can answer, and which roles it admits, is in the OpenAPI document
(\`/docs\`, \`/docs/json\`): each operation lists its problem responses by status with their codes,
its roles in \`x-roles\` and its description, and its bearer-token requirement in \`security\`.
[security.md](security.md) explains roles, tokens and limits.

## Codes

| Code | Status | Title | Meaning | Example \`detail\` |
| --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
  const options = (await resolveConfig(ERRORS_DOC_FILE)) ?? {};
  return format(markdown, { ...options, parser: 'markdown' });
}
