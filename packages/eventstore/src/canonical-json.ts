import {
  canonicalJson as encode,
  CanonicalJsonError as NotCanonicalJson,
} from '@croupier/contracts';
import { CanonicalJsonError } from './errors.js';

/**
 * The canonical JSON the hash chain is computed over: `@croupier/contracts`' one definition, with
 * its refusal turned into the store's own `CanonicalJsonError` (an `EventStoreError`) at the edge.
 */
export function canonicalJson(value: unknown): string {
  try {
    return encode(value);
  } catch (error) {
    if (error instanceof NotCanonicalJson) throw new CanonicalJsonError(error.path, error.reason);
    throw error;
  }
}
