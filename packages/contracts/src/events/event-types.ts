import { eventTypesOf } from './common.js';
import { notaryEventSchema } from './notary.js';
import { operatorWalletEventSchema } from './operator-wallet.js';
import { parkedMessageEventSchema } from './parking.js';
import { roundEventSchema } from './round.js';
import { securityEventSchema } from './security.js';
import { shoeEventSchema } from './shoe.js';
import { tableEventSchema } from './table.js';
import { walletEventSchema } from './wallet.js';

/**
 * Every event type the log holds, of every kind of stream. A type is named within its stream
 * (`CardCorrected` is a shoe's and a round's), so a reader that needs one kind also checks the
 * stream. What a read model declares it handles is checked against this union.
 */
export const EVENT_TYPES = [
  ...new Set([
    ...eventTypesOf(tableEventSchema),
    ...eventTypesOf(shoeEventSchema),
    ...eventTypesOf(roundEventSchema),
    ...eventTypesOf(walletEventSchema),
    ...eventTypesOf(securityEventSchema),
    ...eventTypesOf(notaryEventSchema),
    ...eventTypesOf(operatorWalletEventSchema),
    ...eventTypesOf(parkedMessageEventSchema),
  ]),
];

export type EventType = (typeof EVENT_TYPES)[number];
