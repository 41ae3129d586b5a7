import { vi } from 'vitest';

/** `vi.waitFor` with room for a loaded CI machine: 20 s unless a test says otherwise. */
export function eventually<T>(
  check: () => T | Promise<T>,
  options: { timeout?: number; interval?: number } = {},
): Promise<T> {
  return vi.waitFor(check, { timeout: 20_000, interval: 50, ...options });
}
