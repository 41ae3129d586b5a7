import { subscribeParking, type Parking } from '@croupier/application';
import { streams } from '@croupier/contracts';
import type { EventStore, Subscription } from '@croupier/eventstore';
import type { SeamlessWallet } from './seamless-wallet.js';

/** The settlement records seamless mode turns into calls to the operator's wallet. */
export const OPERATOR_WALLET_FEED = {
  name: 'operator-wallet-feed',
  filter: {
    streamPrefix: streams.round(''),
    eventTypes: ['RoundSettled', 'BetsRefunded', 'RoundResettled'],
  },
} as const;

/**
 * Seamless mode's feed: a checkpointed subscription to the rounds' settlement records, straight
 * from the log (not the settlement bus, whose messages are for downstream systems), each turned
 * into the calls it owes the operator's wallet. Its checkpoint moves once the calls are recorded;
 * the outbox delivers them. With `parking`, a record that cannot be applied (a fun win its fun
 * wallet refuses, or one failing again and again) is parked as `operator-wallet-feed` (ADR 0035):
 * the records after it, other players' payouts, go on.
 */
export function startOperatorWalletFeed(
  store: EventStore,
  wallet: SeamlessWallet,
  onError: (error: unknown) => void,
  parking?: Parking,
): Subscription {
  return subscribeParking(store, parking, 'operator-wallet-feed', {
    name: OPERATOR_WALLET_FEED.name,
    from: 'start',
    filter: OPERATOR_WALLET_FEED.filter,
    checkpoints: 'per-page',
    onError,
    handler: (event) => wallet.applySettlementRecord(event),
  });
}
