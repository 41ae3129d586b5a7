import { DomainError } from '@croupier/contracts';

/**
 * The request that takes the next step a refusal names (`details.next`, in the domain's words):
 * HTTP paths belong to the HTTP layer, so the problem's `hint` is added here, not in the message.
 */
const REQUESTS: Readonly<
  Record<string, (details: Readonly<Record<string, unknown>>, tableId: string) => string>
> = {
  'burn-shoe': (details) => `POST /v1/shoes/${String(details.shoeId)}/burn`,
  'close-shoe': (_details, tableId) => `POST /v1/tables/${tableId}/shoes/current/close`,
};

/** Runs a table's step; a refusal that names its next step gets the request for it as a hint. */
export async function withNextStepHint<T>(tableId: string, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    const next = error instanceof DomainError ? error.details.next : undefined;
    const request = typeof next === 'string' ? REQUESTS[next] : undefined;
    if (error instanceof DomainError && request !== undefined) {
      throw new DomainError(error.code, error.message, {
        ...error.details,
        hint: request(error.details, tableId),
      });
    }
    throw error;
  }
}
