import { createEventStore } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { significantEventOf } from '../src/index.js';

const metadata = {
  correlationId: 'c-1',
  causationId: null,
  actor: { id: 'anonymous@198.51.100.7', role: 'system' },
  occurredAt: '2026-03-01T10:01:00.000Z',
  schemaVersion: 1,
};

describe('failed logins among the significant events', () => {
  it('lists the windowed AuthenticationFailuresRecorded and the old AuthenticationFailed alike', async () => {
    const store = await createEventStore({ kind: 'memory' });
    // Written before failed logins were counted per window: events are never rewritten.
    await store.append(
      'security-2026-03-01',
      [
        {
          id: crypto.randomUUID(),
          type: 'AuthenticationFailed',
          data: { reason: 'no token', method: 'GET', path: '/v1/tables', ip: '198.51.100.7' },
          metadata,
        },
        {
          id: crypto.randomUUID(),
          type: 'AuthenticationFailuresRecorded',
          data: {
            client: '198.51.100.7',
            windowStart: '2026-03-01T10:00:00.000Z',
            windowEnd: '2026-03-01T10:01:00.000Z',
            count: 200,
            rateLimited: 180,
            reasons: { invalid: 20, 'rate-limited': 180 },
            first: {
              at: '2026-03-01T10:00:01.000Z',
              reason: 'invalid',
              method: 'GET',
              route: '/v1/tables',
              path: '/v1/tables?token=[redacted]',
            },
            last: {
              at: '2026-03-01T10:00:59.000Z',
              reason: 'rate-limited',
              method: 'GET',
              route: '/v1/tables',
              path: '/v1/tables',
            },
          },
          metadata,
        },
      ],
      { expectedVersion: 'any' },
    );
    const listed = (await store.readAll({ limit: 10 })).map((event) => significantEventOf(event));
    expect(listed.map((event) => event?.category)).toEqual(['failed-login', 'failed-login']);
    expect(listed[0]!.summary).toBe('failed login from 198.51.100.7: no token (GET /v1/tables)');
    expect(listed[1]!.summary).toBe(
      '200 failed logins from 198.51.100.7 between 2026-03-01T10:00:00.000Z and 2026-03-01T10:01:00.000Z (invalid 20, rate-limited 180); first: GET /v1/tables?token=[redacted]',
    );
    await store.close();
  });
});
