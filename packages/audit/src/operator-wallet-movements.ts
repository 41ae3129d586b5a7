import { operatorWalletEventSchema } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { provenanceOf } from './parse.js';
import type { WalletMovement } from './round-model.js';

/**
 * A round's calls to the operator's wallet (seamless mode, ADR 0026) as its audit lists wallet
 * movements: each request, answer and delivery in log order, with the key it was made under in
 * `detail`. A delivery names only its key: its bet and amount are its request's. Records that do
 * not match their schema are left out here (the `event-schema` check names them).
 */
export function operatorWalletMovements(events: readonly RecordedEvent[]): WalletMovement[] {
  const requests = new Map<string, { betId: string; amount: number }>();
  const movements: WalletMovement[] = [];
  const ordered = [...events].sort((a, b) =>
    a.position < b.position ? -1 : a.position > b.position ? 1 : 0,
  );
  for (const recorded of ordered) {
    const parsed = operatorWalletEventSchema.safeParse({
      type: recorded.type,
      data: recorded.data,
    });
    if (!parsed.success) continue;
    const record = parsed.data;
    const movement = (betId: string, amount: number, detail: string) =>
      movements.push({
        stream: recorded.stream,
        revision: String(recorded.revision),
        type: record.type,
        playerId: record.data.playerId,
        betId,
        amount,
        detail,
        occurredAt: provenanceOf(recorded).occurredAt,
      });
    switch (record.type) {
      case 'OperatorDebitRequested':
      case 'OperatorCreditRequested':
      case 'OperatorRollbackRequested': {
        const { betId, amount, key } = record.data;
        requests.set(key, { betId, amount });
        const what =
          record.type === 'OperatorDebitRequested'
            ? `debit, attempt ${record.data.attempt}`
            : record.type === 'OperatorCreditRequested'
              ? `credit (${record.data.kind})`
              : `rollback (${record.data.reason}) of debit ${record.data.debitKey}`;
        movement(betId, amount, `${what}, key ${key}`);
        break;
      }
      case 'OperatorDebitConfirmed':
        movement(
          record.data.betId,
          record.data.amount,
          `debit confirmed by its ${record.data.via}, transaction ${record.data.transactionId}, key ${record.data.key}`,
        );
        break;
      case 'OperatorDebitFailed':
        movement(
          record.data.betId,
          record.data.amount,
          `debit ${record.data.outcome} (${record.data.code}), key ${record.data.key}`,
        );
        break;
      case 'OperatorCallDelivered': {
        const request = requests.get(record.data.key);
        if (request === undefined) break;
        movement(
          request.betId,
          request.amount,
          `${record.data.call} confirmed, transaction ${record.data.transactionId}, key ${record.data.key}`,
        );
        break;
      }
    }
  }
  return movements;
}
