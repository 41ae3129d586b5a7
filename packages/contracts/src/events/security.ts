import { z } from 'zod';
import { isoTimestampSchema } from '../ids.js';
import { eventSchema } from './common.js';

/** Stream of the day's security events: `security-YYYY-MM-DD` (UTC). */
export const securityStreamOf = (at: Date): string => `security-${at.toISOString().slice(0, 10)}`;

/**
 * A request refused for want of a valid token (a failed login, GLI-19's significant events),
 * one event per request. No longer written (a flood of bad tokens cost an append each): see
 * AuthenticationFailuresRecorded. Kept so the security streams that hold it still read.
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

/** One failed login of a window, as a sample: when, why, where. Never the token. */
const failedLoginSampleSchema = z
  .object({
    at: isoTimestampSchema,
    /** missing, expired, signature, invalid, lifetime, not-a-role, rate-limited */
    reason: z.string().min(1).max(40),
    method: z.string().min(1).max(10),
    /** The route template, or `unmatched`. */
    route: z.string().min(1).max(300),
    /** The URL, credentials in its query redacted. */
    path: z.string().min(1).max(300),
  })
  .strict();

/**
 * The failed logins of one client (its address) during one window: how many, why, and the
 * first and the last of them. Written once per client per window (FAILED_LOGIN_WINDOW_MS) and
 * when the process stops, so a flood of bad tokens costs a counter, not an append per request.
 */
export const authenticationFailuresRecorded = eventSchema(
  'AuthenticationFailuresRecorded',
  z
    .object({
      client: z.string().min(1).max(64),
      windowStart: isoTimestampSchema,
      windowEnd: isoTimestampSchema,
      count: z.number().int().positive(),
      /** How many of them were refused 429 for too many failed logins, unread. */
      rateLimited: z.number().int().nonnegative(),
      /** The count by reason. */
      reasons: z.record(z.string().min(1).max(40), z.number().int().positive()),
      first: failedLoginSampleSchema,
      last: failedLoginSampleSchema,
    })
    .strict(),
);

export const securityEventSchema = z.discriminatedUnion('type', [
  authenticationFailed,
  authenticationFailuresRecorded,
]);
export type SecurityEvent = z.infer<typeof securityEventSchema>;
