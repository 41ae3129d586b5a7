// @ts-check
/**
 * Bundles the croupier CLI into plain JavaScript (dist/bundle/<build>/croupier.mjs and a chunk
 * per command), so a command starts with plain node instead of compiling every workspace module
 * through tsx on each call (`casino token` is scripted by operators). Only the workspace's TypeScript is bundled: every
 * package from node_modules stays a separate module, imported by its resolved absolute path (so
 * pnpm's strict layout finds each package the importing package declared), and
 * `import.meta.url` keeps naming the original source file, for code that reads files beside it.
 * The same approach as the test processes' bundles (packages/testkit/src/node-entry.ts).
 *
 * Beside the bundle, `inputs.json` lists every source file it was built from with its size and
 * modification time, and the install it was linked against: croupier.js rebuilds when any of
 * them changed. Run by croupier.js on first use, by `pnpm build`, or alone:
 * `node packages/cli/scripts/bundle.js`.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { build } from 'esbuild';
import { fingerprint } from './fingerprint.js';

const CLI_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = resolve(CLI_DIR, '..', '..');
export const BUNDLE_DIR = join(CLI_DIR, 'dist', 'bundle');
export const INPUTS_FILE = join(BUNDLE_DIR, 'inputs.json');
/** Files that change when dependencies are installed anew: the bundle's imports name paths there. */
export const INSTALL_FILES = [
  join(ROOT, 'pnpm-lock.yaml'),
  join(ROOT, 'node_modules', '.modules.yaml'),
];

/** Every package outside the workspace stays external, imported by its absolute path. */
/** @type {import('esbuild').Plugin} */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('node:')) return undefined;
      // A command's chunk loads only the workspace modules whose exports it uses: a package's
      // index (a barrel) does not drag every module behind it, and their packages, into `token`.
      if (args.path.startsWith('@croupier/')) {
        if (args.pluginData?.inner === true) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { inner: true },
        });
        return found.errors.length > 0
          ? { errors: found.errors }
          : { path: found.path, sideEffects: false };
      }
      if (args.pluginData?.inner === true) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { inner: true },
      });
      if (found.errors.length > 0) return { errors: found.errors };
      if (found.external) return { path: args.path, external: true };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** `import.meta.url` (and dirname, filename) of a workspace module name its source file. */
/** @type {import('esbuild').Plugin} */
const sourceFileUrls = {
  name: 'source-file-urls',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Builds the bundle into a directory of its own (the entry and one chunk per command, so a command
 * loads only what it needs), then points inputs.json at it, with every file it was built from.
 * Returns the entry's path. Builds older than an hour are removed: a process still running from
 * one may yet load a chunk of it.
 */
export async function bundleCli() {
  const buildId = `${Date.now().toString(36)}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const outdir = join(BUNDLE_DIR, buildId);
  const result = await build({
    entryPoints: { croupier: join(CLI_DIR, 'src', 'main.ts') },
    absWorkingDir: ROOT,
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@croupier/source'],
    sourcemap: 'inline',
    metafile: true,
    logLevel: 'silent',
    plugins: [externalPackages, sourceFileUrls],
  });
  /** @type {Record<string, string | null>} */
  const inputs = {};
  for (const input of [
    ...Object.keys(result.metafile.inputs).map((file) => resolve(ROOT, file)),
    ...INSTALL_FILES,
    // A change to how the bundle is made makes another.
    fileURLToPath(import.meta.url),
  ])
    inputs[input] = await fingerprint(input);
  const entry = join(outdir, 'croupier.mjs');
  // Two first calls at once each build their own directory; the last to rename wins.
  const partial = `${INPUTS_FILE}.${buildId}`;
  await writeFile(partial, JSON.stringify({ entry: buildId + '/croupier.mjs', inputs }));
  await rename(partial, INPUTS_FILE);
  const hourAgo = Date.now() - 3_600_000;
  for (const name of await readdir(BUNDLE_DIR)) {
    const path = join(BUNDLE_DIR, name);
    if (name === buildId || !(await stat(path)).isDirectory()) continue;
    if ((await stat(path)).mtimeMs < hourAgo) await rm(path, { recursive: true, force: true });
  }
  return entry;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await bundleCli();
  process.stderr.write(`croupier: bundled ${file}\n`);
}
