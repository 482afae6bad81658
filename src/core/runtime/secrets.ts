import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new random bearer token with a readable prefix naming its kind (e.g. `mms_`, `mmk_`). */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Tokens are high-entropy, so a plain SHA-256 is the right stored form (no salt or KDF needed).
 * One-shot `hash` (every authenticated request runs this): no Hash object per call.
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Compares two secrets in constant time (lengths are hidden by hashing first). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Secrets the service keeps for a third party and may need back (a payment gateway's API key):
 * sealed with AES-256-GCM under a 32-byte key (GATEWAY_SECRET_KEY), a fresh 12-byte nonce each
 * time, and `context` as associated data — where the value is kept (`payment-gateway:<tenant>`),
 * so a sealed value copied to another tenant's row does not open. Text form:
 * `v1.<nonce>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box of a base64 key of 32 bytes (checked by the configuration); null when none is configured. */
  static fromKey(base64Key: string | undefined): SecretBox | null {
    return base64Key ? new SecretBox(Buffer.from(base64Key, 'base64')) : null;
  }

  seal(plain: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce).setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), sealed].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The plain secret; throws when `sealed` was not sealed by this key for this context. */
  open(sealed: string, context: string): string {
    const [version, nonce, tag, data] = sealed.split('.');
    if (version !== 'v1' || !nonce || !tag || data === undefined) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url')).setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
