import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * Tests that run a process of the workspace (a service, the gateway, a fixture) start it from
 * JavaScript bundled once per test process, not through tsx: the tsx loader resolves and compiles
 * every module of the process at each start, about 3 s of CPU for a service against about 1.2 s
 * for the bundle (the distributed e2e run and the chaos test start dozens of them). Production
 * runs compiled JavaScript too (infra/docker/Dockerfile); `pnpm start` still goes through tsx, as
 * the README runs it, and `pnpm casino` runs the CLI's own bundle (packages/cli/scripts/bundle.js).
 *
 * Only the workspace's TypeScript is bundled. Every package from node_modules stays a separate
 * module, imported by its resolved absolute path (so the bundle runs from a temporary directory
 * and pnpm's strict layout still finds each package the importing package declared), and
 * `import.meta.url` keeps naming the original source file, for code that reads files beside it.
 */

const bundles = new Map<string, Promise<string>>();

/** Where bundles are kept: one file per entry and content, which later runs reuse. */
const OUTPUT_DIR = join(tmpdir(), 'croupier-entry');

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
  const result = await build({
    entryPoints: [entry],
    outfile: join(OUTPUT_DIR, 'bundle.mjs'),
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The workspace packages' TypeScript sources, as the tests import them.
    conditions: ['@croupier/source'],
    // Inline: one self-contained file, named for its content.
    sourcemap: 'inline',
    logLevel: 'silent',
    plugins: [externalPackages, sourceFileUrls],
  });
  const code = result.outputFiles[0]!.contents;
  // services/round/src/main.ts -> round-main-<hash>.mjs, named for the logs and stack traces.
  const name = `${basename(dirname(dirname(entry)))}-${basename(entry).replace(/\.ts$/, '')}`;
  const file = join(
    OUTPUT_DIR,
    `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`,
  );
  if (!existsSync(file)) {
    await mkdir(OUTPUT_DIR, { recursive: true });
    // Another test process may write the same file at once: each writes its own, then renames.
    const partial = `${file}.${process.pid}.${randomUUID()}`;
    await writeFile(partial, code);
    await rename(partial, file);
  }
  return file;
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
