import { createPrivateKey, createPublicKey, hkdfSync, sign, type KeyObject } from 'node:crypto';
import { changedRootOf, checkpointHeadOf, GENESIS_HEAD, keyIdOf } from '@croupier/audit';
import {
  type Aggregate,
  type CommandContext,
  type CommandHandler,
  systemContext,
} from '@croupier/application';
import {
  DomainError,
  notaryEventSchema,
  NOTARY_STREAM,
  type Checkpoint,
  type NotaryEvent,
  type StreamHead,
} from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';

/** PKCS #8 DER prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Signs checkpoint heads with an Ed25519 key derived from a secret. */
export class CheckpointSigner {
  readonly keyId: string;
  readonly publicKey: string;
  readonly #key: KeyObject;

  private constructor(seed: Buffer) {
    this.#key = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const raw = createPublicKey(this.#key).export({ format: 'der', type: 'spki' }).subarray(-32);
    this.publicKey = raw.toString('base64');
    this.keyId = keyIdOf(raw);
  }

  /**
   * The key of a secret (CHECKPOINT_SIGNING_KEY, or else SHOE_SEED_KEY): HKDF-SHA256 with a label
   * of its own, so the key that signs checkpoints reveals nothing of the secret's other uses.
   */
  static fromSecret(secret: string): CheckpointSigner {
    const seed = Buffer.from(hkdfSync('sha256', secret, 'croupier', 'checkpoint-signing/v1', 32));
    return new CheckpointSigner(seed);
  }

  sign(head: string): string {
    return sign(null, Buffer.from(head, 'hex'), this.#key).toString('base64');
  }
}

interface NotaryState {
  readonly sequence: number;
  readonly head: string;
  /** The last position covered, or null before the first checkpoint. */
  readonly position: bigint | null;
}

export interface RecordCheckpoint {
  readonly type: 'RecordCheckpoint';
  /** The position the heads were read after (the state's), so a stale reading is refused. */
  readonly after: bigint | null;
  readonly checkpoint: Checkpoint;
}

/**
 * The notary's stream takes checkpoints one after another: each numbered next, linked to the last
 * head, covering positions after the last one. It writes nothing else (ADR 0014, ADR 0024).
 */
export const notaryAggregate: Aggregate<RecordCheckpoint, NotaryEvent, NotaryState> = {
  name: 'notary',
  writes: ['StreamHeadsCheckpointed'],
  parse: (event) => notaryEventSchema.parse({ type: event.type, data: event.data }),
  decider: {
    initialState: () => ({ sequence: 0, head: GENESIS_HEAD, position: null }),
    evolve: (_state, event) => ({
      sequence: event.data.sequence,
      head: event.data.head,
      position: BigInt(event.data.position),
    }),
    decide(command, state) {
      const { checkpoint } = command;
      if (command.after !== state.position || checkpoint.sequence !== state.sequence + 1) {
        throw new DomainError(
          'CONCURRENCY_CONFLICT',
          `checkpoint ${checkpoint.sequence} was prepared after position ${String(command.after)}; the notary is at checkpoint ${state.sequence}, position ${String(state.position)}`,
        );
      }
      if (checkpoint.previous !== state.head)
        throw new DomainError('VALIDATION_ERROR', 'a checkpoint links to the previous head');
      return [{ type: 'StreamHeadsCheckpointed', data: checkpoint }];
    },
  },
};

export interface NotaryOptions {
  /** How often a checkpoint is recorded (when anything moved). 0: only when asked. */
  readonly intervalMs: number;
  /** The most heads one checkpoint lists; a longer backlog takes several. Default 10,000. */
  readonly maxHeads?: number;
  readonly onError?: (error: unknown) => void;
  readonly now?: () => Date;
}

const PAGE = 1000;

/**
 * Anchors the whole log at a fixed interval: reads the events since the last checkpoint, and
 * records the heads of the streams they moved in a signed `StreamHeadsCheckpointed` that chains to
 * the previous one. Any process may run it: the notary stream's expected version lets one of two
 * that race record the checkpoint, and the other finds it already done.
 */
export class Notary {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly commands: CommandHandler,
    private readonly signer: CheckpointSigner,
    private readonly options: NotaryOptions,
  ) {}

  start(): void {
    if (this.options.intervalMs <= 0 || this.#timer !== null) return;
    this.#timer = setInterval(() => {
      void this.checkpoint().catch((error: unknown) => this.options.onError?.(error));
    }, this.options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running.catch(() => undefined);
  }

  /**
   * Records checkpoints until every event committed now is covered; returns the last one
   * recorded, or null when nothing moved since the last checkpoint.
   */
  checkpoint(): Promise<Checkpoint | null> {
    const run = this.#running.catch(() => undefined).then(() => this.#catchUp());
    this.#running = run;
    return run;
  }

  async #catchUp(): Promise<Checkpoint | null> {
    let last: Checkpoint | null = null;
    for (let conflicts = 0; ;) {
      try {
        const recorded = await this.#recordOne();
        if (recorded === null) return last;
        last = recorded;
      } catch (error) {
        // Another process recorded the checkpoint first: start again from its position.
        if (!(error instanceof DomainError && error.code === 'CONCURRENCY_CONFLICT')) throw error;
        if (++conflicts > 5) throw error;
      }
    }
  }

  async #recordOne(): Promise<Checkpoint | null> {
    const { state } = await this.commands.load(notaryAggregate, NOTARY_STREAM);
    const { heads, position } = await this.#headsAfter(state.position);
    if (heads.length === 0 || position === null) return null;
    const changedRoot = changedRootOf(heads);
    const unsigned = {
      sequence: state.sequence + 1,
      position: String(position),
      at: (this.options.now?.() ?? new Date()).toISOString(),
      count: heads.length,
      changedRoot,
      previous: state.head,
    };
    const head = checkpointHeadOf(unsigned);
    const checkpoint: Checkpoint = {
      ...unsigned,
      changed: heads,
      head,
      signer: { keyId: this.signer.keyId, publicKey: this.signer.publicKey },
      signature: this.signer.sign(head),
    };
    await this.commands.handle(
      notaryAggregate,
      NOTARY_STREAM,
      { type: 'RecordCheckpoint', after: state.position, checkpoint },
      notaryContext(),
    );
    return checkpoint;
  }

  /** The heads of the streams that moved after `after`, and the last position read. */
  async #headsAfter(
    after: bigint | null,
  ): Promise<{ heads: StreamHead[]; position: bigint | null }> {
    const maxHeads = this.options.maxHeads ?? 10_000;
    const heads = new Map<string, StreamHead>();
    let position = after;
    for (;;) {
      const page = await this.store.readAll({
        ...(position === null ? {} : { after: position }),
        limit: PAGE,
      });
      for (const event of page) {
        // Full: the rest waits for the next checkpoint, which starts at this event.
        if (heads.size >= maxHeads && !heads.has(event.stream)) return this.#found(heads, position);
        position = event.position;
        if (event.stream === NOTARY_STREAM) continue;
        const hash = event.metadata['hash'];
        if (typeof hash !== 'string') continue;
        heads.set(event.stream, {
          stream: event.stream,
          revision: String(event.revision),
          hash,
        });
      }
      if (page.length < PAGE) return this.#found(heads, position);
    }
  }

  #found(
    heads: ReadonlyMap<string, StreamHead>,
    position: bigint | null,
  ): { heads: StreamHead[]; position: bigint | null } {
    // Nothing but the notary's own checkpoints moved: there is nothing to anchor.
    return { heads: [...heads.values()], position: heads.size === 0 ? null : position };
  }
}

function notaryContext(): CommandContext {
  return systemContext('notary');
}
