import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { DomainError, ROLES, type Actor, type Role } from '@croupier/contracts';

/** Who made a request, from a verified token. */
export interface Principal {
  readonly id: string;
  readonly role: Role;
}

const ISSUER = 'croupier';
const AUDIENCE = 'croupier-api';

export class TokenAuthority {
  private readonly key: Uint8Array;

  /** `secret`: the HS256 signing key (JWT_SECRET), at least 32 characters. */
  constructor(secret: string) {
    if (secret.length < 32) throw new RangeError('JWT_SECRET must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  /** Issues a signed token with a role claim. */
  issue(principal: Principal, expiresIn: string | number = '12h'): Promise<string> {
    return new SignJWT({ role: principal.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(principal.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(this.key);
  }

  /** Verifies a bearer token; throws UNAUTHENTICATED naming what was wrong. */
  async verify(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      const role = payload.role;
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
        throw new DomainError('UNAUTHENTICATED', 'the token has no subject', {
          reason: 'invalid',
        });
      }
      if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
        throw new DomainError(
          'UNAUTHENTICATED',
          `the token's role "${String(role)}" is not a role`,
          { reason: 'not-a-role' },
        );
      }
      return { id: payload.sub, role: role as Role };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof joseErrors.JWTExpired)
        throw new DomainError('UNAUTHENTICATED', 'the token has expired', { reason: 'expired' });
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
        throw new DomainError('UNAUTHENTICATED', 'the token signature is not valid', {
          reason: 'signature',
        });
      }
      if (error instanceof joseErrors.JOSEError) {
        throw new DomainError('UNAUTHENTICATED', `the token is not valid (${error.code})`, {
          reason: 'invalid',
        });
      }
      throw error;
    }
  }
}

/** A token for one service calling another's internal routes (role `system`). */
export function serviceToken(authority: TokenAuthority, service: string): Promise<string> {
  return authority.issue({ id: service, role: 'system' }, '30d');
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
