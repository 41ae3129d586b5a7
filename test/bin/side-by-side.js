// @ts-check
/**
 * Runs the end-to-end suite's two runs side by side: the one-process run (vitest.config.js) and
 * the distributed run (vitest.distributed.config.js). Both spend most of their time waiting
 * (betting windows, timeouts, other processes), so on two cores together they take little more
 * than the longer of the two. Each line of output is prefixed with its run's name; the summary at
 * the end says how each ended, and the exit code is non-zero when either failed.
 *
 * Usage (what `pnpm test` in test/ runs): node bin/side-by-side.js [vitest arguments...]
 * Arguments after the script's name go to both runs (a file filter, `-t name`).
 */
import { spawn } from 'node:child_process';
import process from 'node:process';

const RUNS = [
  { name: 'one-process', args: ['run'] },
  { name: 'distributed', args: ['run', '-c', 'vitest.distributed.config.js'] },
];

const extra = process.argv.slice(2);
const children = new Set();

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/**
 * Writes a child's stream line by line, each line prefixed, so two runs' lines never mix inside
 * one line.
 * @param {NodeJS.ReadableStream} from
 * @param {NodeJS.WritableStream} to
 * @param {string} prefix
 */
function prefixLines(from, to, prefix) {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (/** @type {string} */ chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) to.write(lines.map((line) => `${prefix}${line}\n`).join(''));
  });
  from.on('end', () => {
    if (partial !== '') to.write(`${prefix}${partial}\n`);
  });
}

/**
 * @param {{ name: string, args: string[] }} run
 * @returns {Promise<{ name: string, code: number | null, signal: string | null, seconds: number }>}
 */
function start(run) {
  const started = Date.now();
  const prefix = `[${run.name}] `;
  // `pnpm run` puts the package's node_modules/.bin on PATH, where vitest is.
  const child = spawn('vitest', [...run.args, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  children.add(child);
  prefixLines(child.stdout, process.stdout, prefix);
  prefixLines(child.stderr, process.stderr, prefix);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`${prefix}could not start vitest: ${error.message}\n`);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ name: run.name, code, signal, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const results = await Promise.all(RUNS.map(start));
for (const { name, code, signal, seconds } of results) {
  const outcome =
    code === 0 ? 'passed' : signal !== null ? `killed by ${signal}` : `failed (exit ${code})`;
  process.stdout.write(`e2e ${name}: ${outcome} in ${seconds.toFixed(0)} s\n`);
}
process.exit(results.every(({ code }) => code === 0) ? 0 : 1);
