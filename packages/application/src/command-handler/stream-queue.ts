/**
 * Commands on one stream run one after another within the process: concurrent requests on a
 * hot stream (a player's wallet, a round taking bets) then never lose their work to a version
 * conflict they raised against each other. Across processes the expected version decides.
 *
 * While a stream is busy, what arrives for it waits; then the waiting items are taken in runs,
 * at most `maxBatch` at a time and only as long as `together` says an item joins the first of
 * its run, so a run can be decided and appended as one (group commit, see group-commit.ts).
 * `run` must answer its items itself and never reject.
 */
export class StreamQueue<Item> {
  /** Items waiting per stream; the first run is being run (see #drain). */
  readonly #queues = new Map<string, Item[]>();

  constructor(
    private readonly run: (stream: string, items: readonly Item[]) => Promise<void>,
    private readonly together: (first: Item, next: Item) => boolean,
    private readonly maxBatch: number,
  ) {}

  push(stream: string, item: Item): void {
    const queue = this.#queues.get(stream);
    if (queue !== undefined) {
      queue.push(item);
      return;
    }
    this.#queues.set(stream, [item]);
    void this.#drain(stream);
  }

  async #drain(stream: string): Promise<void> {
    const queue = this.#queues.get(stream)!;
    try {
      while (queue.length > 0) {
        const first = queue[0]!;
        let size = 1;
        while (size < queue.length && size < this.maxBatch && this.together(first, queue[size]!))
          size++;
        await this.run(stream, queue.splice(0, size));
      }
    } finally {
      this.#queues.delete(stream);
    }
  }
}
