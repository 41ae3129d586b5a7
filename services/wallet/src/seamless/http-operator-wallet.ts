import { createHmac } from 'node:crypto';
import type {
  CallBudget,
  OperatorCallStatus,
  OperatorCreditCall,
  OperatorDebitCall,
  OperatorRollbackCall,
  OperatorWalletAnswer,
  OperatorWalletPort,
} from '@croupier/contracts';
import { backoffs, type Backoff } from '@croupier/eventstore';

/** The routes of the operator wallet API (docs/wallet-api.openapi.json). */
export const OPERATOR_WALLET_ROUTES = {
  debit: '/wallet/v1/debit',
  credit: '/wallet/v1/credit',
  rollback: '/wallet/v1/rollback',
  status: '/wallet/v1/status',
} as const;

export const TIMESTAMP_HEADER = 'x-croupier-timestamp';
export const SIGNATURE_HEADER = 'x-croupier-signature';

/** `sha256=` and the hex HMAC-SHA256 of `timestamp.rawBody` under the shared secret. */
export function signRequest(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/**
 * No answer came (refused connection, timeout, a 5xx or 429, a 2xx whose body is not the API's):
 * the call may or may not have been applied. Only a status query by its key can tell.
 */
export class OperatorWalletUnreachable extends Error {
  readonly code = 'OPERATOR_WALLET_UNREACHABLE';
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(
      `the operator's wallet did not answer ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'OperatorWalletUnreachable';
  }
}

/**
 * The wallet answered a 4xx that is not a refusal (a 401 for the signature, a 400 for the body,
 * a 404 for the route, a 409 or 422 without the API's `Refused` body): it did not take the
 * request as a call, so the answer says nothing of the money. Not retried (the same request gets
 * the same answer); a debit is still resolved by its status, in case the wallet applied it anyway.
 */
export class OperatorWalletRejected extends Error {
  readonly code = 'OPERATOR_WALLET_REJECTED';
  constructor(
    readonly path: string,
    readonly status: number,
    body: unknown,
  ) {
    super(
      `the operator's wallet rejected ${path} with ${status} ${JSON.stringify(body).slice(0, 200)}`,
    );
    this.name = 'OperatorWalletRejected';
  }
}

/**
 * The shortest attempt a budget leaves a call: a wallet on the same network answers within it,
 * and a call asked for at its budget's very end is still made once, not given up unsent.
 */
const MIN_ATTEMPT_MS = 100;

/** A refusal's code as the API publishes it (`Refused.code`): it is recorded and shown. */
const REFUSAL_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export interface HttpOperatorWalletOptions {
  /** Base URL of the operator's wallet (OPERATOR_WALLET_URL). */
  readonly url: string;
  /** Shared secret of the request signatures (OPERATOR_WALLET_SECRET). */
  readonly secret: string;
  /** How long one attempt may take before it is abandoned (OPERATOR_WALLET_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Attempts after the first, under the same key (OPERATOR_WALLET_RETRIES). */
  readonly retries: number;
  /** Wait before retry n. Default exponential from 100 ms, capped at 1 s. */
  readonly backoff?: Backoff;
  readonly now?: () => number;
}

/**
 * The operator's wallet over HTTP, every answer sorted into one class of the contract
 * (docs/wallet-integration.md#every-answer-and-what-croupier-does): `applied` (200 with the
 * `Applied` body), `refused` (409 or 422 with the `Refused` body and a code of the published
 * shape), rejected (any other 4xx: `OperatorWalletRejected`, at once), or no answer (5xx, 429,
 * a timeout, no connection, a 2xx that is not `Applied`: retried under the same key within the
 * budget, then `OperatorWalletUnreachable`). Each request is JSON, signed over its timestamp and
 * raw body.
 */
export class HttpOperatorWallet implements OperatorWalletPort {
  private readonly backoff: Backoff;
  private readonly now: () => number;

  constructor(private readonly options: HttpOperatorWalletOptions) {
    this.backoff = options.backoff ?? backoffs.exponential({ baseMs: 100, capMs: 1_000 });
    this.now = options.now ?? Date.now;
  }

  debit(call: OperatorDebitCall, budget?: CallBudget): Promise<OperatorWalletAnswer> {
    return this.exchange(OPERATOR_WALLET_ROUTES.debit, call, movementAnswer, budget);
  }

  credit(call: OperatorCreditCall): Promise<OperatorWalletAnswer> {
    return this.exchange(OPERATOR_WALLET_ROUTES.credit, call, movementAnswer);
  }

  rollback(call: OperatorRollbackCall): Promise<OperatorWalletAnswer> {
    return this.exchange(OPERATOR_WALLET_ROUTES.rollback, call, movementAnswer);
  }

  status(key: string, budget?: CallBudget): Promise<OperatorCallStatus> {
    return this.exchange(OPERATOR_WALLET_ROUTES.status, { key }, statusAnswer, budget);
  }

  /**
   * One call: signed, each attempt under the timeout, tried again under the same key while no
   * answer comes. Within `budget`, if given: no retry that cannot start before its end with
   * `MIN_ATTEMPT_MS` left, and no attempt that outlasts it (but the first gets that much).
   */
  private async exchange<T>(
    path: string,
    payload: object,
    read: (status: number, body: unknown) => T | undefined,
    budget?: CallBudget,
  ): Promise<T> {
    const rawBody = JSON.stringify(payload);
    const url = new URL(path, this.options.url);
    let lastError: unknown = null;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      if (attempt > 0) {
        const wait = this.backoff(attempt);
        if (budget !== undefined && Date.now() + wait + MIN_ATTEMPT_MS > budget.until) break;
        await sleep(wait);
      }
      // Whole milliseconds: AbortSignal.timeout refuses a fraction.
      const timeoutMs =
        budget === undefined
          ? this.options.timeoutMs
          : Math.min(
              this.options.timeoutMs,
              Math.max(MIN_ATTEMPT_MS, Math.floor(budget.until - Date.now())),
            );
      // Signed per attempt: a retry carries a fresh timestamp, the same key and body.
      const timestamp = String(this.now());
      let status: number;
      let body: unknown;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signRequest(this.options.secret, timestamp, rawBody),
          },
          body: rawBody,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        body = parseJson(await response.text());
      } catch (error) {
        lastError = error;
        continue;
      }
      const answer = read(status, body);
      if (answer !== undefined) return answer;
      // A 4xx the API does not define for a call: the wallet did not take it; the same request
      // would get the same answer.
      if (status >= 400 && status < 500 && status !== 429)
        throw new OperatorWalletRejected(path, status, body);
      // A 5xx, a 429, a 2xx that is not the API's: no answer about the call. Try again.
      lastError = new Error(`answered ${status} ${JSON.stringify(body).slice(0, 200)}`);
    }
    throw new OperatorWalletUnreachable(path, lastError);
  }
}

/** A debit's, credit's or rollback's answer, if it is one the API defines. */
function movementAnswer(status: number, body: unknown): OperatorWalletAnswer | undefined {
  const answer = body as Partial<{
    status: string;
    transactionId: string;
    balance: number;
    code: string;
    detail: string;
  }>;
  if (
    status === 200 &&
    answer.status === 'applied' &&
    typeof answer.transactionId === 'string' &&
    Number.isSafeInteger(answer.balance)
  )
    return {
      outcome: 'applied',
      transactionId: answer.transactionId,
      balance: answer.balance as number,
    };
  if (
    (status === 409 || status === 422) &&
    answer.status === 'refused' &&
    typeof answer.code === 'string' &&
    REFUSAL_CODE.test(answer.code)
  )
    return {
      outcome: 'refused',
      code: answer.code,
      detail: typeof answer.detail === 'string' ? answer.detail : '',
    };
  return undefined;
}

/** A status query's answer, if it is one the API defines. */
function statusAnswer(status: number, body: unknown): OperatorCallStatus | undefined {
  if (status !== 200) return undefined;
  const answer = body as Partial<{ state: string; transactionId: string; code: string }>;
  if (answer.state === 'unknown') return { state: 'unknown' };
  if (
    answer.state === 'refused' &&
    typeof answer.code === 'string' &&
    REFUSAL_CODE.test(answer.code)
  )
    return { state: 'refused', code: answer.code };
  if (
    (answer.state === 'applied' || answer.state === 'rolled-back') &&
    typeof answer.transactionId === 'string'
  )
    return { state: answer.state, transactionId: answer.transactionId };
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
}
