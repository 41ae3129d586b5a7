import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { DomainError, ROLES, type Actor, type Role } from '@croupier/contracts';

/** Who made a request, from a verified token. */
export interface Principal {
  readonly id: string;
  readonly role: Role;
  /**
   * When the token it was read from expires (its `exp`, epoch seconds): set on every verified
   * token. A response that outlives its request (a live feed) ends here.
   */
  readonly expiresAt?: number;
}

const ISSUER = 'croupier';
const AUDIENCE = 'croupier-api';

/** A token's `sub`: the player's wallet id or the staff member's id, storable as it is. */
const SUBJECT = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** How long tokens may live, and how far a signer's clock may run ahead of ours. */
export interface TokenPolicy {
  /** The longest lifetime (`exp` - `iat`) of a person's token, seconds. Default 24 h. */
  readonly maxLifetimeSeconds?: number;
  /** The longest lifetime of a service token (role `system`), seconds. Default 1 h. */
  readonly serviceMaxLifetimeSeconds?: number;
  /** How far in the future `iat` may be, for clocks that disagree, seconds. Default 60. */
  readonly clockSkewSeconds?: number;
}

export const DEFAULT_TOKEN_POLICY: Required<TokenPolicy> = {
  maxLifetimeSeconds: 24 * 3_600,
  serviceMaxLifetimeSeconds: 3_600,
  clockSkewSeconds: 60,
};

/** Verified tokens kept in memory per authority (see TokenAuthority.verified). */
const VERIFIED_TOKENS_KEPT = 10_000;

/** A person's token lives 12 h unless asked otherwise (a shift), within the policy's bound. */
const DEFAULT_LIFETIME_SECONDS = 12 * 3_600;

const DURATION = /^(\d+)([smhd])$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** `30m`, `12h`, `7d` in seconds; null for anything else. */
export function durationSeconds(text: string): number | null {
  const match = DURATION.exec(text);
  if (match === null) return null;
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

export class TokenAuthority {
  private readonly key: Uint8Array;
  /** The bounds this authority issues within and verifies against. */
  readonly policy: Required<TokenPolicy>;

  /**
   * `secret`: the HS256 signing key (JWT_SECRET), at least 32 characters. `clock`: the time in
   * milliseconds, for tests of lifetimes that cannot wait hours.
   */
  constructor(
    secret: string,
    policy: TokenPolicy = {},
    readonly clock: () => number = Date.now,
  ) {
    if (secret.length < 32) throw new RangeError('JWT_SECRET must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
    this.policy = { ...DEFAULT_TOKEN_POLICY, ...policy };
  }

  private epochSeconds(): number {
    return Math.floor(this.clock() / 1_000);
  }

  /** The longest lifetime a token of this role may have, seconds. */
  maxLifetimeOf(role: Role): number {
    return role === 'system'
      ? this.policy.serviceMaxLifetimeSeconds
      : this.policy.maxLifetimeSeconds;
  }

  /**
   * Issues a signed token with a role claim. `expiresIn`: a lifetime (`30m`, `12h`, `7d`) or
   * an absolute `exp` in epoch seconds; by default 12 h for a person (at most the bound), the
   * bound itself for a service. A lifetime past the role's bound is refused (RangeError): the
   * API would refuse the token.
   */
  async issue(principal: Principal, expiresIn?: string | number): Promise<string> {
    const issuedAt = this.epochSeconds();
    const bound = this.maxLifetimeOf(principal.role);
    let expiresAt: number;
    if (expiresIn === undefined) {
      expiresAt =
        issuedAt +
        (principal.role === 'system' ? bound : Math.min(DEFAULT_LIFETIME_SECONDS, bound));
    } else if (typeof expiresIn === 'number') {
      expiresAt = expiresIn;
    } else {
      const seconds = durationSeconds(expiresIn);
      if (seconds === null)
        throw new RangeError(`a token lifetime looks like 30m, 12h or 7d; got "${expiresIn}"`);
      expiresAt = issuedAt + seconds;
    }
    if (expiresAt - issuedAt > bound) {
      throw new RangeError(
        `a ${principal.role} token may live at most ${bound} s; asked for ${expiresAt - issuedAt} s`,
      );
    }
    return await new SignJWT({ role: principal.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(principal.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.key);
  }

  /**
   * Tokens verified already, with their principal and `exp`: a client sends the same token with
   * every request, and checking its HMAC again (WebCrypto, an async job per request) was the
   * largest cost of a request after the database's (ADR 0022). A token is the exact string that
   * was verified, so a hit proves the same signature; only time can make it invalid, so a hit is
   * checked against `exp` and, past it, verified again (and refused as expired). Oldest out first.
   */
  private readonly verified = new Map<string, { principal: Principal; expiresAt: number }>();

  /** Verifies a bearer token; throws UNAUTHENTICATED naming what was wrong. */
  async verify(token: string): Promise<Principal> {
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (this.epochSeconds() < known.expiresAt) return known.principal;
      this.verified.delete(token);
    }
    const checked = await this.verifySignedToken(token);
    if (this.verified.size >= VERIFIED_TOKENS_KEPT)
      this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, checked);
    return checked.principal;
  }

  private async verifySignedToken(
    token: string,
  ): Promise<{ principal: Principal; expiresAt: number }> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
        currentDate: new Date(this.clock()),
      });
      const role = payload.role;
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
        throw new DomainError('UNAUTHENTICATED', 'the token has no subject', {
          reason: 'invalid',
        });
      }
      // The subject becomes a wallet's stream name and every event's actor: refused here, not
      // as a 500 at the store. Never echoed: it may be anything.
      if (!SUBJECT.test(payload.sub)) {
        throw new DomainError(
          'UNAUTHENTICATED',
          `the token's sub claim must be 1-64 letters, digits, or _ . @ - starting with a letter or digit (it has ${payload.sub.length} characters)`,
          { reason: 'invalid', field: 'token.sub' },
        );
      }
      if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
        throw new DomainError(
          'UNAUTHENTICATED',
          `the token's role "${String(role).slice(0, 40)}" is not a role`,
          { reason: 'not-a-role' },
        );
      }
      this.checkLifetime(payload.iat, payload.exp!, role as Role);
      const expiresAt = payload.exp!;
      return { principal: { id: payload.sub, role: role as Role, expiresAt }, expiresAt };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof joseErrors.JWTExpired)
        throw new DomainError('UNAUTHENTICATED', 'the token has expired', { reason: 'expired' });
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
        throw new DomainError('UNAUTHENTICATED', 'the token signature is not valid', {
          reason: 'signature',
        });
      }
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'exp') {
        throw new DomainError(
          'UNAUTHENTICATED',
          'the token has no exp claim: every token must expire',
          { reason: 'lifetime', field: 'token.exp' },
        );
      }
      if (error instanceof joseErrors.JOSEError) {
        throw new DomainError('UNAUTHENTICATED', `the token is not valid (${error.code})`, {
          reason: 'invalid',
        });
      }
      throw error;
    }
  }

  /**
   * A stolen token is useful until it expires: a person's token may live at most the policy's
   * bound, a service's its own, and one issued in the future (beyond the clock skew) would
   * outlive its bound unnoticed.
   */
  private checkLifetime(issuedAt: number | undefined, expiresAt: number, role: Role): void {
    const now = this.epochSeconds();
    if (issuedAt !== undefined && issuedAt > now + this.policy.clockSkewSeconds) {
      throw new DomainError(
        'UNAUTHENTICATED',
        `the token's iat claim is ${issuedAt - now} s in the future (at most ${this.policy.clockSkewSeconds} s of clock skew)`,
        { reason: 'lifetime', field: 'token.iat' },
      );
    }
    const lifetime = expiresAt - (issuedAt ?? now);
    const bound = this.maxLifetimeOf(role);
    if (lifetime > bound) {
      throw new DomainError(
        'UNAUTHENTICATED',
        `the token lives ${lifetime} s (exp - iat), more than the ${bound} s a ${role} token may`,
        { reason: 'lifetime', field: 'token.exp' },
      );
    }
  }
}

/**
 * The token one service sends to another's internal routes (role `system`), renewed before it
 * expires: each lives the policy's service bound and is replaced once half of that has passed,
 * so a process that runs for weeks never calls with an expired token, and a stolen one is
 * useful for an hour, not a month.
 */
export class ServiceTokens {
  private current: { readonly token: Promise<string>; readonly renewAt: number } | null = null;

  constructor(
    private readonly authority: TokenAuthority,
    private readonly service: string,
  ) {}

  /** A token valid for at least half the service bound. */
  token(): Promise<string> {
    const now = this.authority.clock();
    if (this.current === null || now >= this.current.renewAt) {
      const lifetimeMs = this.authority.maxLifetimeOf('system') * 1_000;
      this.current = {
        token: this.authority.issue({ id: this.service, role: 'system' }),
        renewAt: now + lifetimeMs / 2,
      };
    }
    return this.current.token;
  }
}

export function actorOf(principal: Principal): Actor {
  return { id: principal.id, role: principal.role };
}

/** Staff roles that may read everything. */
export const READ_ALL: readonly Role[] = ['dealer', 'supervisor', 'operator', 'regulator'];

/**
 * A player may act only on their own wallet, bets and history; staff act on anyone's when their
 * role allows the route at all.
 */
export function requireSelfOrStaff(principal: Principal, playerId: string): void {
  if (principal.role === 'player' && principal.id !== playerId) {
    throw new DomainError(
      'FORBIDDEN',
      'a player may act only on their own wallet, bets and history',
    );
  }
}
