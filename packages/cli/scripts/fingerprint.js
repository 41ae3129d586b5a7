// @ts-check
import { stat } from 'node:fs/promises';

/** A file's size and modification time, or null when it is gone: what the bundle was built from. */
export async function fingerprint(/** @type {string} */ file) {
  try {
    const info = await stat(file);
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return null;
  }
}
