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
  /**
   * Messages younger than this are left to the queue, and the cursor stops before them: the
   * queue and the API race, and a message still on its way through Redis is not a gap.
   * Default 60 s.
   */
  readonly graceMs?: number;
  readonly now?: () => Date;
}

export interface ReconcileReport {
  readonly from: string;
  readonly cursor: string;
  /** Messages listed by Croupier after the cursor and older than the grace period. */
  readonly checked: number;
  /** Of those, messages this wallet had not applied: the gaps, now filled. */
  readonly filled: string[];
}

/**
 * Walks Croupier's settlement messages from the stored cursor (GET /v1/settlements?from=) and
 * applies every one the books lack, through the same idempotent path as the queue. The cursor
 * moves past a message only once it is applied; it stops at the first message younger than the
 * grace period, which the next run looks at again.
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileReport> {
  const graceMs = options.graceMs ?? 60_000;
  const settledBefore = (options.now?.() ?? new Date()).getTime() - graceMs;
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
      const message = checkedMessage.message;
      if (Date.parse(message.occurredAt) > settledBefore) {
        // Too fresh to call a gap: the queue may deliver it any moment. Next run.
        await options.books.saveCursor(cursor);
        return { from, cursor, checked, filled };
      }
      checked++;
      if (await options.books.apply(message, 'reconcile')) filled.push(message.messageId);
      cursor = message.position;
    }
    // A page may be empty and still say `more`: keep paging from `next`.
    cursor = page.next;
    await options.books.saveCursor(cursor);
    if (!page.more) return { from, cursor, checked, filled };
  }
}
