import { describe, expect, it } from 'vitest';
import { normalizeFilter } from '../validation.js';
import { WakeFilter } from './sql-subscription.js';

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
