import { randomUUID } from 'node:crypto';
import type { Role } from '@croupier/contracts';
import { TokenAuthority } from '@croupier/http';

/** Calls a running service over HTTP as a role, with a timeout. */
export class Remote {
  private readonly tokens = new Map<string, Promise<string>>();
  private readonly authority: TokenAuthority;

  constructor(secret: string) {
    this.authority = new TokenAuthority(secret);
  }

  private token(role: Role, sub: string): Promise<string> {
    const key = `${role}:${sub}`;
    let token = this.tokens.get(key);
    if (token === undefined) {
      token = this.authority.issue({ id: sub, role });
      this.tokens.set(key, token);
    }
    return token;
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
  async call<T = Record<string, unknown>>(
    base: string,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    as: { role: Role; sub: string },
    body?: unknown,
    timeoutMs = 10_000,
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await this.token(as.role, as.sub)}`,
        'x-correlation-id': randomUUID(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      signal: AbortSignal.timeout(timeoutMs),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as T,
      headers: response.headers,
    };
  }
}
