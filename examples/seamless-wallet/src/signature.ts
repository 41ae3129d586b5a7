import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of a signed request (docs/wallet-api.openapi.json, `securitySchemes`). */
export const TIMESTAMP_HEADER = 'x-croupier-timestamp';
export const SIGNATURE_HEADER = 'x-croupier-signature';

/**
 * `sha256=` and the hex HMAC-SHA256, under the shared secret, of the timestamp (milliseconds
 * since the epoch, as sent), a dot and the raw body: the timestamp is signed too, so a captured
 * request cannot be replayed later under a new one.
 */
export function signatureOf(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** Why a request's signature is refused, or null when it is good and fresh. */
export function signatureProblem(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  now: number,
  toleranceMs: number,
): string | null {
  const { timestamp, signature } = headers;
  if (timestamp === undefined || signature === undefined)
    return `${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} are required`;
  if (!/^\d{1,16}$/.test(timestamp))
    return `${TIMESTAMP_HEADER} must be milliseconds since the epoch`;
  if (Math.abs(now - Number(timestamp)) > toleranceMs)
    return `${TIMESTAMP_HEADER} is more than ${toleranceMs} ms from the wallet's clock: refused as a replay`;
  const expected = Buffer.from(signatureOf(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return `${SIGNATURE_HEADER} does not match the body`;
  return null;
}
