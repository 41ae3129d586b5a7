import type { SettlementMessage } from '@croupier/contracts';
import { settlementMessage as message } from '@croupier/testkit';

/** A valid settlement message of no round in the store (a probe for the bus). */
export function settlementMessage(): SettlementMessage {
  return message({
    roundId: 'probe.1.1',
    tableId: 'probe',
    shoeId: 'probe.1',
    playerId: 'probe',
    betType: 'player',
    bankerMode: null,
    stake: 100,
    payout: 0,
    result: 'lose',
    commission: 0,
    commissionMode: null,
    position: '1',
  });
}
