import type { Books } from './books.js';
import type { MessageValidator } from './message.js';

export interface ReconcileOptions {
  /** Croupier's API, e.g. http://127.0.0.1:8080 */
  readonly apiUrl: string;
  /** A bearer token with the operator or regulator role. */
  readonly token: string;
  readonly books: Books;
  readonly validate: MessageValidator;
  /** Messages per page (1-1000). */
  readonly limit?: number;
}

export interface ReconcileReport {
  readonly from: string;
  readonly cursor: string;
  /** Messages listed by Croupier after the cursor. */
  readonly checked: number;
  /** Of those, messages this wallet had not applied: the gaps, now filled. */
  readonly filled: string[];
}

/**
 * Walks Croupier's settlement messages from the stored cursor (GET /v1/settlements?from=) and
 * applies every one the books lack, through the same idempotent path as the queue. Then the
 * cursor moves: every message up to it is applied.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const from = await options.books.cursor();
  let cursor = from;
  let checked = 0;
  const filled: string[] = [];
  for (;;) {
    const url = new URL('/v1/settlements', options.apiUrl);
    url.searchParams.set('from', cursor);
    url.searchParams.set('limit', String(options.limit ?? 500));
    const response = await fetch(url, { headers: { authorization: `Bearer ${options.token}` } });
    if (!response.ok)
      throw new Error(`GET ${url.pathname} answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { next: string; more: boolean; messages: unknown[] };
    for (const data of page.messages) {
      const checkedMessage = options.validate(data);
      if (!checkedMessage.ok)
        throw new Error(`Croupier listed an invalid message: ${checkedMessage.problem}`);
      checked++;
      if (await options.books.apply(checkedMessage.message, 'reconcile'))
        filled.push(checkedMessage.message.messageId);
    }
    cursor = page.next;
    await options.books.saveCursor(cursor);
    if (!page.more) return { from, cursor, checked, filled };
  }
}
