import {
  MessageRefusedError,
  systemContext,
  type DocumentSet,
  type DurableProjection,
  type Parking,
} from '@croupier/application';
import {
  eventTypesOf,
  operatorWalletEventSchema,
  type OperatorWalletEvent,
  type OperatorWalletPort,
} from '@croupier/contracts';
import { WakeSignal, type ProjectionStorage, type RecordedEvent } from '@croupier/eventstore';
import { OperatorWalletRejected } from './http-operator-wallet.js';
import type { SeamlessWallet } from './seamless-wallet.js';

/** A call the operator's wallet has not confirmed yet. */
export type PendingCall =
  | (Extract<OperatorWalletEvent, { type: 'OperatorCreditRequested' }>['data'] & {
      readonly call: 'credit';
    })
  | (Extract<OperatorWalletEvent, { type: 'OperatorRollbackRequested' }>['data'] & {
      readonly call: 'rollback';
    })
  | (Extract<OperatorWalletEvent, { type: 'OperatorDebitRequested' }>['data'] & {
      readonly call: 'debit';
      /** When the store recorded the request (ms since the epoch). */
      readonly requestedAt: number;
    });

const OPERATOR_EVENT_TYPES = new Set<string>(eventTypesOf(operatorWalletEventSchema));

/**
 * The calls to the operator's wallet still owed, by key, in the order they were recorded: every
 * credit and rollback requested and not yet confirmed by the wallet, and every debit asked for
 * and neither confirmed nor failed (its request died with its process). A durable read model
 * (ADR 0023), so the outbox starts from it after a restart.
 */
export class PendingOperatorCalls implements DurableProjection<PendingCall> {
  readonly name = 'operator-wallet-calls';
  readonly handles = eventTypesOf(operatorWalletEventSchema);

  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!OPERATOR_EVENT_TYPES.has(event.type)) return [];
    return [(event.data as { key: string }).key];
  }

  apply(event: RecordedEvent, docs: DocumentSet<PendingCall>): void {
    if (!OPERATOR_EVENT_TYPES.has(event.type)) return;
    const parsed = operatorWalletEventSchema.parse({ type: event.type, data: event.data });
    const sort = { sort: event.position };
    switch (parsed.type) {
      case 'OperatorCreditRequested':
        docs.put(parsed.data.key, { ...parsed.data, call: 'credit' }, sort);
        return;
      case 'OperatorRollbackRequested':
        docs.put(parsed.data.key, { ...parsed.data, call: 'rollback' }, sort);
        return;
      case 'OperatorDebitRequested':
        docs.put(
          parsed.data.key,
          { ...parsed.data, call: 'debit', requestedAt: event.recordedAt.getTime() },
          sort,
        );
        return;
      default:
        docs.delete(parsed.data.key);
    }
  }

  async all(): Promise<PendingCall[]> {
    return (await this.storage.list(this.name)).map((row) => row.doc as PendingCall);
  }
}

export interface OperatorWalletOutboxOptions {
  /** How often the owed calls are tried again while the wallet is away. Default 1 s. */
  readonly intervalMs?: number;
  /**
   * How many players' calls are sent at once (OPERATOR_WALLET_OUTBOX_CONCURRENCY). Each player's
   * go one at a time, in the order they were recorded. Default 8.
   */
  readonly concurrency?: number;
  /**
   * A debit still unresolved this long after it was asked for lost its request (a crash): the
   * outbox resolves it by its status. Longer than a request's own retries. Default 60 s.
   */
  readonly orphanedDebitAfterMs?: number;
  /** Catches the calls model up to the log before each pass. */
  readonly sync: () => Promise<void>;
  readonly onError: (error: unknown, call: PendingCall | null) => void;
  readonly clock?: () => number;
  /**
   * Where a call the operator's wallet refuses is parked (`operator-wallet-outbox`, ADR 0035),
   * until an operator asks for its retry. Without it a refused call is tried at every pass.
   */
  readonly parking?: Parking;
}

/**
 * Delivers what Croupier owes the operator's wallet: each credit and rollback recorded as
 * requested is sent under its key until the wallet confirms it (`OperatorCallDelivered`), so a
 * wallet that was away gets every call once it is back, and each once by its key. Debits whose
 * request died are resolved by their status. One process of a deployment runs it (SeamlessMode
 * starts it where the feed holds its lease): two would each send a refused call before either saw
 * the other's park. A call the wallet refuses is not sent again under its key at every pass: it is
 * parked, and sent again once an operator asks for it (`retryParked`).
 */
export class OperatorWalletOutbox {
  private readonly signal = new WakeSignal();
  private running: Promise<void> | null = null;
  private stopped = false;
  /** The keys parked (by this process, or found parked in the log): the passes skip them. */
  private readonly parked = new Set<string>();
  /**
   * The owed keys whose park this process has read from the log: once per key, so a call parked
   * before a restart, or by the process that ran the outbox before this one took over, is not
   * sent again either.
   */
  private readonly checked = new Set<string>();

  constructor(
    private readonly calls: PendingOperatorCalls,
    private readonly wallet: SeamlessWallet,
    private readonly operator: OperatorWalletPort,
    private readonly options: OperatorWalletOutboxOptions,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** A call was just requested: try it now rather than at the next interval. */
  wake(): void {
    this.signal.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal.wake();
    await this.running;
  }

  /**
   * One pass over every owed call; the number confirmed. Players are served side by side, up to
   * `concurrency` at once, so a slow answer holds only its own player's calls; each player's
   * calls go one after another in the order they were recorded, and one not answered holds the
   * player's later ones until the next pass. Once a call finds the wallet away, no call starts
   * in this pass.
   */
  async deliver(): Promise<number> {
    await this.options.sync();
    const context = systemContext('operator-wallet-outbox');
    const calls = await this.calls.all();
    // A parked call confirmed meanwhile (retried by another process) is owed no more.
    if (this.checked.size > 0 || this.parked.size > 0) {
      const owed = new Set(calls.map((call) => call.key));
      for (const key of this.checked) if (!owed.has(key)) this.checked.delete(key);
      for (const key of this.parked) if (!owed.has(key)) this.parked.delete(key);
    }
    const lanes = new Map<string, PendingCall[]>();
    for (const call of calls) {
      const lane = lanes.get(call.playerId);
      if (lane === undefined) lanes.set(call.playerId, [call]);
      else lane.push(call);
    }
    const waiting = [...lanes.values()];
    let delivered = 0;
    let away = false;
    const serve = async (): Promise<void> => {
      for (let lane = waiting.shift(); lane !== undefined && !away; lane = waiting.shift()) {
        for (const call of lane) {
          if (away) return;
          const outcome = await this.deliverOne(call, context);
          if (outcome === 'delivered') delivered++;
          else if (outcome === 'away') away = true;
          // Not taken (a 4xx that is not a refusal): the player's later calls wait behind it.
          if (outcome === 'away' || outcome === 'held') break;
        }
      }
    };
    const workers = Math.min(this.options.concurrency ?? 8, waiting.length);
    await Promise.all(Array.from({ length: workers }, serve));
    return delivered;
  }

  /**
   * Sends one owed call: `delivered` once the wallet confirmed it (or a debit was resolved),
   * `skipped` if it is set aside (parked, or a debit not yet due), `held` if the wallet did not
   * take it, `away` if no answer came.
   */
  private async deliverOne(
    call: PendingCall,
    context: ReturnType<typeof systemContext>,
  ): Promise<'delivered' | 'skipped' | 'held' | 'away'> {
    const clock = this.options.clock ?? Date.now;
    try {
      if (call.call === 'debit') {
        if (clock() - call.requestedAt < (this.options.orphanedDebitAfterMs ?? 60_000))
          return 'skipped';
        await this.wallet.resolveDebit(
          call.playerId,
          call.betId,
          { ...call, status: 'requested', closedBy: null, failure: null },
          context,
        );
        return 'delivered';
      }
      if (await this.isParked(call.key)) return 'skipped';
      const answer = await this.send(call);
      if (answer.outcome === 'refused') {
        const refusal = new MessageRefusedError(
          answer.code,
          `the operator's wallet refused ${call.call} ${call.key}: ${answer.code} ${answer.detail}`,
        );
        const parking = this.options.parking;
        if (parking === undefined) {
          // Kept and tried again: a refused credit is money the player is owed, for an
          // operator to look at (the call's key names it in the wallet's records).
          this.options.onError(refusal, call);
          return 'skipped';
        }
        // Not sent again under its key at every pass: parked, for an operator to fix what
        // the wallet refused and ask for a retry.
        await parking.park(
          {
            consumer: 'operator-wallet-outbox',
            messageId: call.key,
            playerId: call.playerId,
            message: { ...call },
            code: refusal.code,
            detail: refusal.message,
            attempts: 1,
          },
          context,
        );
        this.parked.add(call.key);
        return 'skipped';
      }
      await this.wallet.markDelivered(
        call.playerId,
        call.key,
        call.call,
        answer.transactionId,
        context,
      );
      return 'delivered';
    } catch (error) {
      this.options.onError(error, call);
      // A 4xx that is not a refusal (signature, body, route): the wallet did not take this call,
      // which is kept and sent again at the next pass; other players' calls go on meanwhile.
      if (error instanceof OperatorWalletRejected) return 'held';
      // The wallet is away: the rest waits for the next pass.
      return 'away';
    }
  }

  /**
   * A parked call an operator asked to retry: sent once more under its key. Confirmed, it is
   * delivered; refused again, the refusal is thrown (and the call parked again by the retry).
   */
  async retryParked(message: Record<string, unknown>): Promise<void> {
    const key = message['key'];
    await this.options.sync();
    const call = (await this.calls.all()).find(
      (pending) => pending.key === key && pending.call !== 'debit',
    );
    // Confirmed meanwhile (the wallet answered a late request): nothing is owed any more.
    if (call === undefined || call.call === 'debit') return;
    const answer = await this.send(call);
    if (answer.outcome === 'refused')
      throw new MessageRefusedError(
        answer.code,
        `the operator's wallet refused ${call.call} ${call.key} again: ${answer.code} ${answer.detail}`,
      );
    this.parked.delete(call.key);
    await this.wallet.markDelivered(
      call.playerId,
      call.key,
      call.call,
      answer.transactionId,
      systemContext('operator-wallet-outbox'),
    );
  }

  /** Parked and not yet resolved: read from the log the first time the key is met. */
  private async isParked(key: string): Promise<boolean> {
    const parking = this.options.parking;
    if (parking !== undefined && !this.checked.has(key)) {
      const { status } = await parking.state('operator-wallet-outbox', key);
      // Retrying: the retry subscription sends it, not the passes.
      if (status === 'parked' || status === 'retrying') this.parked.add(key);
      this.checked.add(key);
    }
    return this.parked.has(key);
  }

  private send(call: Exclude<PendingCall, { call: 'debit' }>) {
    return call.call === 'credit'
      ? this.operator.credit({
          key: call.key,
          playerId: call.playerId,
          roundId: call.roundId,
          betId: call.betId,
          amount: call.amount,
          currency: call.currency,
          kind: call.kind,
        })
      : this.operator.rollback({
          key: call.key,
          debitKey: call.debitKey,
          playerId: call.playerId,
          roundId: call.roundId,
          betId: call.betId,
          amount: call.amount,
          currency: call.currency,
        });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.deliver();
      } catch (error) {
        this.options.onError(error, null);
      }
      await this.signal.wait(this.options.intervalMs ?? 1_000);
    }
  }
}
