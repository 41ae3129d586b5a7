import { z } from 'zod';
import { eventSchema } from './common.js';

/** Stream of the day's security events: `security-YYYY-MM-DD` (UTC). */
export const securityStreamOf = (at: Date): string => `security-${at.toISOString().slice(0, 10)}`;

/**
 * A request refused for want of a valid token (a failed login, GLI-19's significant events).
 * The token itself is never recorded.
 */
export const authenticationFailed = eventSchema(
  'AuthenticationFailed',
  z
    .object({
      reason: z.string().min(1).max(200),
      method: z.string().min(1).max(10),
      path: z.string().min(1).max(300),
      ip: z.string().min(1).max(64),
    })
    .strict(),
);

export const securityEventSchema = z.discriminatedUnion('type', [authenticationFailed]);
export type SecurityEvent = z.infer<typeof securityEventSchema>;
