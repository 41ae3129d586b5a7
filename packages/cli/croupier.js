#!/usr/bin/env node
// @ts-check
/**
 * The croupier command line, started fast: runs the CLI bundled into one JavaScript file
 * (scripts/bundle.js) with plain node, building it first when it is missing or any file it was
 * built from changed (a fresh clone, a pull, an edit, a new install). A build takes a second or
 * two and says so on stderr; every later call only compares file sizes and times.
 */
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const bundleDir = new URL('./dist/bundle/', import.meta.url);

/** The bundle's entry if it was built from the files as they are now, else null. */
async function freshEntry() {
  /** @type {{ entry: string, inputs: Record<string, string | null> }} */
  let built;
  try {
    built = JSON.parse(await readFile(new URL('inputs.json', bundleDir), 'utf8'));
  } catch {
    return null;
  }
  const { fingerprint } = await import('./scripts/fingerprint.js');
  const files = Object.entries(built.inputs);
  const now = await Promise.all(files.map(([file]) => fingerprint(file)));
  const fresh = files.every(([, was], index) => was !== null && now[index] === was);
  const entry = new URL(built.entry, bundleDir);
  return fresh && (await fingerprint(fileURLToPath(entry))) !== null ? entry.href : null;
}

let entry = await freshEntry();
if (entry === null) {
  process.stderr.write('croupier: building the command line (once per change)...\n');
  const { bundleCli } = await import('./scripts/bundle.js');
  entry = pathToFileURL(await bundleCli()).href;
}
await import(entry);
