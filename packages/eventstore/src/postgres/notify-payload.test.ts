import { describe, expect, it } from 'vitest';
import { notifyPayload, parseNotifyPayload } from './postgres-driver.js';

describe("a NOTIFY's payload", () => {
  it('names the sending driver and the newest position it committed, 128 bits whole', () => {
    const position = (2n ** 64n + 7n) * 3n;
    expect(parseNotifyPayload(notifyPayload('driver-a', position))).toEqual({
      origin: 'driver-a',
      position,
    });
  });

  it("of an older sender (its driver's id alone) names no position", () => {
    expect(parseNotifyPayload('driver-a')).toEqual({ origin: 'driver-a' });
    expect(parseNotifyPayload(undefined)).toEqual({ origin: '' });
    expect(parseNotifyPayload('driver-a not-a-number')).toEqual({ origin: 'driver-a' });
  });
});
