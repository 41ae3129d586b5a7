import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * Tests that run a process of the workspace (a service, the gateway, a fixture) start it from
 * JavaScript bundled once per test process, not through tsx: the tsx loader resolves and compiles
 * every module of the process at each start, about 3 s of CPU for a service against about 1.2 s
 * for the bundle (the distributed e2e run and the chaos test start dozens of them). Production
 * runs compiled JavaScript too (infra/docker/Dockerfile); `pnpm start` and the CLI's own process
 * tests still go through tsx, as the README runs them.
 *
 * Only the workspace's TypeScript is bundled. Every package from node_modules stays a separate
 * module, imported by its resolved absolute path (so the bundle runs from a temporary directory
 * and pnpm's strict layout still finds each package the importing package declared), and
 * `import.meta.url` keeps naming the original source file, for code that reads files beside it.
 */

const bundles = new Map<string, Promise<string>>();
let outputDir: string | null = null;

/**
 * The arguments for `node` that run the TypeScript entry point `entry` (an absolute path), e.g.
 * `spawn(process.execPath, await nodeEntryArgs(main), ...)`. The first call per entry bundles it
 * (well under a second); later calls in the same test process reuse the bundle.
 */
export async function nodeEntryArgs(entry: string): Promise<string[]> {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    bundle = bundleEntry(entry);
    bundles.set(entry, bundle);
    // A failed bundle is not kept: the next call says what is wrong again.
    bundle.catch(() => bundles.delete(entry));
  }
  return ['--enable-source-maps', await bundle];
}

async function bundleEntry(entry: string): Promise<string> {
  if (outputDir === null) {
    const dir = mkdtempSync(join(tmpdir(), 'croupier-entry-'));
    outputDir = dir;
    process.once('exit', () => {
      rmSync(dir, { recursive: true, force: true });
    });
  }
  // services/round/src/main.ts -> round-main.mjs: one file per entry, named for the logs.
  const outfile = join(
    outputDir,
    `${basename(dirname(dirname(entry)))}-${basename(entry).replace(/\.ts$/, '')}-${bundles.size}.mjs`,
  );
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The workspace packages' TypeScript sources, as the tests import them.
    conditions: ['@croupier/source'],
    sourcemap: true,
    logLevel: 'silent',
    plugins: [externalPackages, sourceFileUrls],
  });
  return outfile;
}

/** Every package outside the workspace stays external, imported by its absolute path. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@croupier/') || args.path.startsWith('node:')) return undefined;
      if ((args.pluginData as { inner?: boolean } | undefined)?.inner === true) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { inner: true },
      });
      if (found.errors.length > 0) return { errors: found.errors };
      // Built-in modules (`fs`, `crypto`) come back external already.
      if (found.external) return { path: args.path, external: true };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** `import.meta.url` (and dirname, filename) of a workspace module name its source file. */
const sourceFileUrls: Plugin = {
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
