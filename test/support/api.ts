import type { Role } from '@croupier/contracts';
import type { HttpApp, TokenAuthority } from '@croupier/http';

export interface Response<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Record<string, string | string[] | number | undefined>;
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

/** Sends one request: to an in-process app (fastify inject) or over HTTP to running services. */
export type Transport = (
  method: Method,
  url: string,
  body: unknown,
  headers: Record<string, string>,
) => Promise<{ status: number; text: string; headers: Response['headers'] }>;

/** In-process: fastify's inject, no socket. */
export function injectTransport(app: () => HttpApp): Transport {
  return async (method, url, body, headers) => {
    const response = await app().inject({
      method,
      url,
      ...(body === undefined ? {} : { payload: body as object }),
      headers,
    });
    return { status: response.statusCode, text: response.body, headers: response.headers };
  };
}

/**
 * Over HTTP to the distributed deployment: each path goes to the service that serves it, as a
 * load balancer in front of the services would route it.
 */
export function httpTransport(route: (path: string) => string): Transport {
  return async (method, url, body, headers) => {
    const response = await fetch(`${route(url)}${url}`, {
      method,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      signal: AbortSignal.timeout(30_000),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      text: await response.text(),
      headers: Object.fromEntries(response.headers),
    };
  };
}

/** Calls the API as a given role and subject. */
export class ApiClient {
  private readonly tokens = new Map<string, string>();

  constructor(
    private readonly transport: Transport,
    private readonly authority: TokenAuthority,
  ) {}

  async token(role: Role, sub: string): Promise<string> {
    const key = `${role}:${sub}`;
    let token = this.tokens.get(key);
    if (token === undefined) {
      token = await this.authority.issue({ id: sub, role });
      this.tokens.set(key, token);
    }
    return token;
  }

  as(role: Role, sub = `${role}-1`): Caller {
    return new Caller(this, role, sub);
  }

  /** A request with an arbitrary Authorization header (or none). */
  async raw<T = unknown>(
    method: Method,
    url: string,
    body?: unknown,
    authorization?: string,
  ): Promise<Response<T>> {
    const response = await this.transport(
      method,
      url,
      body,
      authorization === undefined ? {} : { authorization },
    );
    const { text } = response;
    return {
      status: response.status,
      body: (text.length > 0 && /json/.test(String(response.headers['content-type']))
        ? JSON.parse(text)
        : text) as T,
      headers: response.headers,
    };
  }
}

export class Caller {
  constructor(
    private readonly client: ApiClient,
    readonly role: Role,
    readonly sub: string,
  ) {}

  async request<T = unknown>(method: Method, url: string, body?: unknown): Promise<Response<T>> {
    return this.client.raw<T>(
      method,
      url,
      body,
      `Bearer ${await this.client.token(this.role, this.sub)}`,
    );
  }

  get<T = unknown>(url: string) {
    return this.request<T>('GET', url);
  }

  post<T = unknown>(url: string, body: unknown = {}) {
    return this.request<T>('POST', url, body);
  }

  delete<T = unknown>(url: string) {
    return this.request<T>('DELETE', url);
  }
}
