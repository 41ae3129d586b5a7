import {
  ProjectionLagError,
  ProjectionStoppedError,
  type ProjectionRunner,
} from '@croupier/application';
import { DomainError } from '@croupier/contracts';

/**
 * Read-your-writes before a GET (docs/adr/0023): waits until the read models have applied what
 * was committed before the request. A model that does not get there in time, or that stopped at
 * an event it cannot apply, answers 503 UNAVAILABLE (retry) instead of a stale read.
 */
export async function syncReadModels(
  readModels: ProjectionRunner,
  names?: readonly string[],
): Promise<void> {
  try {
    await readModels.syncToHead(names);
  } catch (error) {
    if (error instanceof ProjectionLagError || error instanceof ProjectionStoppedError)
      throw new DomainError('UNAVAILABLE', `read model not available: ${error.message}`);
    throw error;
  }
}
