import {
  eventTypesOf,
  notaryEventSchema,
  operatorWalletEventSchema,
  parkedMessageEventSchema,
  roundEventSchema,
  securityEventSchema,
  shoeEventSchema,
  tableEventSchema,
  walletEventSchema,
} from '@croupier/contracts';
import { parkingAggregate } from '@croupier/application';
import { roundAggregate, tableAggregate } from '@croupier/round';
import { settlementAggregate } from '@croupier/settlement';
import { shoeAggregate } from '@croupier/shoe';
import { operatorWalletAggregate, walletAggregate } from '@croupier/wallet';
import { describe, expect, it } from 'vitest';
import { notaryAggregate } from '../src/index.js';

/** The event types of each kind of stream a decider writes (a type is named within its stream). */
const streamKinds = {
  table: eventTypesOf(tableEventSchema),
  shoe: eventTypesOf(shoeEventSchema),
  round: eventTypesOf(roundEventSchema),
  wallet: eventTypesOf(walletEventSchema),
  notary: eventTypesOf(notaryEventSchema),
  operatorWallet: eventTypesOf(operatorWalletEventSchema),
  parked: eventTypesOf(parkedMessageEventSchema),
} as const;

/** Every aggregate that decides, with the kind of stream it writes to. */
const writers = [
  { aggregate: tableAggregate, stream: 'table' },
  { aggregate: shoeAggregate, stream: 'shoe' },
  { aggregate: roundAggregate, stream: 'round' },
  { aggregate: settlementAggregate, stream: 'round' },
  { aggregate: walletAggregate, stream: 'wallet' },
  { aggregate: notaryAggregate, stream: 'notary' },
  { aggregate: operatorWalletAggregate, stream: 'operatorWallet' },
  { aggregate: parkingAggregate, stream: 'parked' },
] as const;

describe('one writer per event type (ADR 0014)', () => {
  it('every event type of every stream has exactly one deciding writer', () => {
    const writersOf = new Map<string, string[]>();
    for (const { aggregate, stream } of writers) {
      for (const type of aggregate.writes) {
        const key = `${stream}/${type}`;
        writersOf.set(key, [...(writersOf.get(key) ?? []), aggregate.name]);
      }
    }
    const missingOrShared = Object.entries(streamKinds).flatMap(([stream, types]) =>
      types
        .map((type) => `${stream}/${type}`)
        .filter((key) => writersOf.get(key)?.length !== 1)
        .map((key) => `${key}: ${(writersOf.get(key) ?? ['no writer']).join(', ')}`),
    );
    expect(missingOrShared).toEqual([]);
    // Security events are written by the security log, not by a decider.
    const decided = new Set(writers.flatMap(({ aggregate }) => aggregate.writes as string[]));
    expect(eventTypesOf(securityEventSchema).filter((type) => decided.has(type))).toEqual([]);
  });

  it('each aggregate writes only events of the stream it writes to', () => {
    for (const { aggregate, stream } of writers) {
      const types: readonly string[] = streamKinds[stream];
      expect(
        aggregate.writes.filter((type) => !types.includes(type)),
        aggregate.name,
      ).toEqual([]);
    }
  });

  it('the round stream has two writers, the game and its money, and no event type in common', () => {
    const game = new Set<string>(roundAggregate.writes);
    expect(settlementAggregate.writes.filter((type) => game.has(type))).toEqual([]);
    expect(settlementAggregate.writes).toEqual(['RoundSettled', 'BetsRefunded', 'RoundResettled']);
  });
});
