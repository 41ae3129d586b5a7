import { createHmac } from 'node:crypto';
import type {
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
 * No answer came (refused connection, timeout, a 5xx, a body that is not the API's): the call
 * may or may not have been applied. Only a status query by its key can tell.
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
 * The operator's wallet over HTTP. Each request is JSON, signed over its timestamp and raw body;
 * an attempt that fails without an answer is retried under the same key (the wallet applies a
 * key once), with the bounded budget the composition root gives it; after the last the call
 * rejects with `OperatorWalletUnreachable`. A 4xx answer is an answer: the call was refused.
 */
export class HttpOperatorWallet implements OperatorWalletPort {
  private readonly backoff: Backoff;
  private readonly now: () => number;

  constructor(private readonly options: HttpOperatorWalletOptions) {
    this.backoff = options.backoff ?? backoffs.exponential({ baseMs: 100, capMs: 1_000 });
    this.now = options.now ?? Date.now;
  }

  debit(call: OperatorDebitCall): Promise<OperatorWalletAnswer> {
    return this.movement(OPERATOR_WALLET_ROUTES.debit, call);
  }

  credit(call: OperatorCreditCall): Promise<OperatorWalletAnswer> {
    return this.movement(OPERATOR_WALLET_ROUTES.credit, call);
  }

  rollback(call: OperatorRollbackCall): Promise<OperatorWalletAnswer> {
    return this.movement(OPERATOR_WALLET_ROUTES.rollback, call);
  }

  async status(key: string): Promise<OperatorCallStatus> {
    const { status, body } = await this.post(OPERATOR_WALLET_ROUTES.status, { key });
    const answer = body as Partial<{ state: string; transactionId: string; code: string }>;
    if (status === 200 && answer.state === 'unknown') return { state: 'unknown' };
    if (status === 200 && answer.state === 'refused' && typeof answer.code === 'string')
      return { state: 'refused', code: answer.code };
    if (
      status === 200 &&
      (answer.state === 'applied' || answer.state === 'rolled-back') &&
      typeof answer.transactionId === 'string'
    )
      return { state: answer.state, transactionId: answer.transactionId };
    throw new OperatorWalletUnreachable(
      OPERATOR_WALLET_ROUTES.status,
      new Error(`answered ${status} ${JSON.stringify(body)}`),
    );
  }

  private async movement(path: string, call: object): Promise<OperatorWalletAnswer> {
    const { status, body } = await this.post(path, call);
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
      typeof answer.balance === 'number'
    )
      return { outcome: 'applied', transactionId: answer.transactionId, balance: answer.balance };
    if (status >= 400 && status < 500 && typeof answer.code === 'string')
      return { outcome: 'refused', code: answer.code, detail: answer.detail ?? '' };
    throw new OperatorWalletUnreachable(
      path,
      new Error(`answered ${status} ${JSON.stringify(body)}`),
    );
  }

  /** One call: signed, each attempt under the timeout, retried while no answer comes. */
  private async post(path: string, payload: object): Promise<{ status: number; body: unknown }> {
    const rawBody = JSON.stringify(payload);
    const url = new URL(path, this.options.url);
    let lastError: unknown = null;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      if (attempt > 0) await sleep(this.backoff(attempt));
      // Signed per attempt: a retry carries a fresh timestamp, the same key and body.
      const timestamp = String(this.now());
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signRequest(this.options.secret, timestamp, rawBody),
          },
          body: rawBody,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        const text = await response.text();
        // A 5xx or 429 is no answer about the call: it may have been applied, try again.
        if (response.status >= 500 || response.status === 429) {
          lastError = new Error(`answered ${response.status} ${text.slice(0, 200)}`);
          continue;
        }
        return { status: response.status, body: parseJson(text) };
      } catch (error) {
        lastError = error;
      }
    }
    throw new OperatorWalletUnreachable(path, lastError);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
}
