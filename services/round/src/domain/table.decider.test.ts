import { presetConfig } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import { tableDecider } from './table.decider.js';

const spec = deciderSpecification(tableDecider);
const SHIFT = '00000000-0000-4000-8000-0000000000d1';
const open = (currency: string, session?: { fun?: true }) =>
  ({
    type: 'OpenTable',
    tableId: 's-1',
    config: presetConfig('touch', { currency }),
    dealing: { mode: 'manual', bettingWindowMs: 0 },
    shiftId: SHIFT,
    ...(session === undefined
      ? {}
      : { session: { ownerId: 'fay', idleTimeoutMs: 60_000, ...session } }),
  }) as const;

describe('table decider: play money (ADR 0030)', () => {
  it('a fun session plays FUN and records that it is fun', () => {
    spec
      .given([])
      .when(open('FUN', { fun: true }))
      .then([
        {
          type: 'TableOpened',
          data: {
            tableId: 's-1',
            config: presetConfig('touch', { currency: 'FUN' }),
            dealing: { mode: 'manual', bettingWindowMs: 0 },
            shiftId: SHIFT,
            session: { ownerId: 'fay', idleTimeoutMs: 60_000, fun: true },
          },
        },
      ]);
  });

  it('a shared table or a real session never plays FUN, and a fun session never real money', () => {
    spec.given([]).when(open('FUN')).thenThrows({ code: 'INVALID_TABLE_CONFIG' });
    spec.given([]).when(open('FUN', {})).thenThrows({ code: 'INVALID_TABLE_CONFIG' });
    spec
      .given([])
      .when(open('EUR', { fun: true }))
      .thenThrows({ code: 'INVALID_TABLE_CONFIG' });
  });
});
