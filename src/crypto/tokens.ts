import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret with a recognisable prefix (`cig_sk_…`); 32 bytes of entropy. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Lookup hash of a high-entropy secret; such secrets need no salt or slow hash. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
