import { describe, expect, it } from 'vitest';
import { normalizeFilter } from '../validation.js';
import { UNCERTAIN_WAKE_MS, WakeFilter } from './sql-subscription.js';

const settlement = normalizeFilter({ streamPrefix: 'round-', eventTypes: ['RoundCompleted'] });
const completed = (position: bigint) => [
  { stream: 'round-1', types: ['CardDealt', 'RoundCompleted'], position },
];
const debit = (position: bigint) => [{ stream: 'wallet-a', types: ['StakeDebited'], position }];

describe('which in-process appends wake a subscriber', () => {
  it('wakes on every append until the subscriber has read once, and on one that names nothing', () => {
    const wake = new WakeFilter();
    expect(wake.wakes(debit(5n))).toBe(true);
    wake.read(settlement, 5n);
    expect(wake.wakes(undefined)).toBe(true);
  });

  it('wakes on an event its filter takes and not on one it skips', () => {
    const wake = new WakeFilter();
    wake.read(settlement, 10n);
    expect(wake.wakes(debit(11n))).toBe(false);
    expect(wake.wakes([{ stream: 'round-2', types: ['BetPlaced'], position: 12n }])).toBe(false);
    expect(wake.wakes(completed(13n))).toBe(true);
  });

  it('wakes on skipped appends while a wanted event is not yet visible, and no longer once a read saw it', () => {
    const wake = new WakeFilter();
    wake.read(settlement, 10n);
    expect(wake.wakes(completed(20n))).toBe(true);
    // Its read came back below it: an older transaction still held it back.
    wake.read(settlement, 15n);
    expect(wake.wakes(debit(18n))).toBe(true);
    wake.read(settlement, 20n);
    expect(wake.wakes(debit(25n))).toBe(false);
  });

  it('keeps the newest wanted position and the newest head, whatever order they come in', () => {
    const wake = new WakeFilter();
    wake.read(settlement, 10n);
    wake.wakes(completed(30n));
    wake.wakes(completed(20n));
    wake.read(settlement, 25n);
    expect(wake.wakes(debit(31n))).toBe(true);
    wake.read(settlement, 40n);
    wake.read(settlement, 12n);
    expect(wake.wakes(debit(41n))).toBe(false);
  });
});

describe('whether a subscriber waits for an event it has not read (its short poll, ADR 0045)', () => {
  it('waits for nothing until told of a commit, and for a commit until a read reaches it', () => {
    const wake = new WakeFilter();
    expect(wake.awaiting()).toBe(false);
    wake.read(settlement, 10n);
    wake.wakes(completed(20n));
    expect(wake.awaiting()).toBe(true);
    // Held back by an older transaction: its read stops below it.
    wake.read(settlement, 15n);
    expect(wake.awaiting()).toBe(true);
    wake.read(settlement, 20n);
    expect(wake.awaiting()).toBe(false);
  });

  it('does not wait for an in-process append its filter skips', () => {
    const wake = new WakeFilter();
    wake.read(settlement, 10n);
    wake.wakes(debit(11n));
    expect(wake.awaiting()).toBe(false);
  });

  it("waits for the position another process's NOTIFY names, whatever its stream", () => {
    const wake = new WakeFilter();
    wake.read(settlement, 10n);
    wake.heard(30n);
    expect(wake.awaiting()).toBe(true);
    wake.read(settlement, 29n);
    expect(wake.awaiting()).toBe(true);
    wake.read(settlement, 30n);
    expect(wake.awaiting()).toBe(false);
  });

  it('waits a while after a NOTIFY that names no position, then no longer', () => {
    let now = 1_000;
    const wake = new WakeFilter(() => now);
    wake.read(settlement, 10n);
    wake.heard(undefined);
    wake.read(settlement, 10n);
    expect(wake.awaiting()).toBe(true);
    now += UNCERTAIN_WAKE_MS - 1;
    expect(wake.awaiting()).toBe(true);
    now += 1;
    expect(wake.awaiting()).toBe(false);
  });
});
