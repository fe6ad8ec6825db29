import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (interface spec, Events): `x-svc-signature: sha256=<hex>`, the HMAC-SHA256
 * of the exact body bytes under the endpoint's secret (the secret's UTF-8 bytes, prefix included).
 */
export const SIGNATURE_PREFIX = 'sha256=';

export function signBody(secret: string, body: string | Buffer): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * What a receiver does (docs/webhooks.md): refuses a header that is not `sha256=` plus 64 hex
 * characters, then compares the decoded bytes in constant time.
 */
export function verifyBody(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (header === undefined || !/^sha256=[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(header.slice(SIGNATURE_PREFIX.length), 'hex'));
}
