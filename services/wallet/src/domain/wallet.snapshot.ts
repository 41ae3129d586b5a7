import type { AggregateSnapshots } from '@croupier/application';
import { z } from 'zod';
import type { WalletState } from './wallet.decider.js';

/** The wallet state as stored in a snapshot: its maps as arrays of entries, in insertion order. */
const encodedWalletSchema = z.object({
  exists: z.boolean(),
  playerId: z.string(),
  currency: z.string().nullable(),
  balance: z.number().int(),
  openStakes: z.array(
    z.tuple([z.string(), z.object({ roundId: z.string(), amount: z.number().int() })]),
  ),
  refundedStakes: z.array(z.string()),
  references: z.array(z.tuple([z.string(), z.number().int()])),
  commissionOwed: z.array(z.tuple([z.string(), z.number().int()])),
});

/**
 * How a wallet's state is snapshotted (docs/adr/0025). Raise `version` with any change to
 * `WalletState` or to what `evolveWallet` makes of an event: snapshots of another version are
 * then read past (the stream is folded whole), never decoded into the new shape.
 */
export const walletSnapshots: AggregateSnapshots<WalletState> = {
  // 2: commission owed is keyed per table, shift and seat (002), no longer per table and shift.
  // 3: the stakes refunded (refundedStakes), which no adjustment moves (ADR 0034).
  version: 3,
  encode: (state) => ({
    exists: state.exists,
    playerId: state.playerId,
    currency: state.currency,
    balance: state.balance,
    openStakes: [...state.openStakes],
    refundedStakes: [...state.refundedStakes],
    references: [...state.references],
    commissionOwed: [...state.commissionOwed],
  }),
  decode: (json) => {
    const encoded = encodedWalletSchema.parse(json);
    return {
      exists: encoded.exists,
      playerId: encoded.playerId,
      currency: encoded.currency,
      balance: encoded.balance,
      openStakes: new Map(encoded.openStakes),
      refundedStakes: new Set(encoded.refundedStakes),
      references: new Map(encoded.references),
      commissionOwed: new Map(encoded.commissionOwed),
    };
  },
};
