import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new random bearer token with a readable prefix naming its kind (e.g. `mms_`, `mmk_`). */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Tokens are high-entropy, so a plain SHA-256 is the right stored form (no salt or KDF needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets in constant time (lengths are hidden by hashing first). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
