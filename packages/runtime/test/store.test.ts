import { describe, expect, it } from 'vitest';
import { connectionApplicationName } from '../src/index.js';

describe('the PostgreSQL application_name of a process', () => {
  it('is the deployment prefix, a dash and the process', () => {
    expect(connectionApplicationName({ DATABASE_APPLICATION_NAME: 'chaos_1a2b' }, 'round')).toBe(
      'chaos_1a2b-round',
    );
  });

  it('defaults the prefix to croupier', () => {
    expect(connectionApplicationName({}, 'settlement')).toBe('croupier-settlement');
  });
});
