import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex>` of the HMAC-SHA256 of `body` with `secret`: the X-Signature-256 header's value. */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether the X-Signature-256 header signs exactly this body (compared in constant time). */
export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
