import { randomId, metadataOf } from '@croupier/application';
import { securityStreamOf, type SecurityEvent } from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';

/**
 * Records every request refused for want of a valid token as an AuthenticationFailed event in
 * the day's security stream, so failed logins appear among the significant events, whichever
 * process they reached: the gateway, or a service run alone (createServiceApp). Recording is off
 * the request's path (a failure to record is logged, not returned to the client); rate limiting
 * per client bounds how many an attacker can cause.
 */
export function recordFailedLogins(app: HttpApp, store: EventStore): void {
  app.addHook('onResponse', (request, reply, done) => {
    done();
    if (reply.statusCode !== 401) return;
    const now = new Date();
    const event: SecurityEvent = {
      type: 'AuthenticationFailed',
      data: {
        reason: request.headers.authorization === undefined ? 'no token' : 'token not valid',
        method: request.method,
        path: request.url.slice(0, 300),
        ip: request.ip,
      },
    };
    const context = {
      actor: { id: `anonymous@${request.ip}`, role: 'system' as const },
      correlationId: request.id,
      causationId: null,
      now: () => now,
    };
    store
      .append(
        securityStreamOf(now),
        [{ id: randomId(), ...event, metadata: metadataOf(context) }],
        { expectedVersion: 'any' },
      )
      .catch((error: unknown) => {
        request.log.warn({ err: error }, 'could not record a failed login');
      });
  });
}
