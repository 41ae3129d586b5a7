import type { Role } from '@croupier/contracts';
import type { HttpApp, TokenAuthority } from '@croupier/http';

export interface Response<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Record<string, string | string[] | number | undefined>;
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

/** Calls the API in-process (fastify inject) as a given role and subject. */
export class ApiClient {
  private readonly tokens = new Map<string, string>();

  constructor(
    private readonly app: () => HttpApp,
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
    const response = await this.app().inject({
      method,
      url,
      ...(body === undefined ? {} : { payload: body as object }),
      headers: authorization === undefined ? {} : { authorization },
    });
    const text = response.body;
    return {
      status: response.statusCode,
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
