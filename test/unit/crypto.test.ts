import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from '../../src/crypto/key-encryption';
import { hashPassword, verifyPassword } from '../../src/crypto/passwords';
import { requestHash } from '../../src/idempotency/store';

describe('crypto', () => {
  it('AES-256-GCM envelopes round-trip and are bound to their key id', () => {
    const key = Buffer.alloc(32, 1);
    const env = encryptSecret(key, 'cig_sk_secret', 'key_1');
    expect(env).not.toContain('cig_sk_secret');
    expect(decryptSecret(key, env, 'key_1')).toBe('cig_sk_secret');
    expect(() => decryptSecret(key, env, 'key_2')).toThrow();
    expect(() => decryptSecret(Buffer.alloc(32, 2), env, 'key_1')).toThrow();
    const [v, iv, tag, ct] = env.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => decryptSecret(key, [v, iv, tag, flipped.toString('base64url')].join('.'), 'key_1')).toThrow();
  });

  it('scrypt password hashes are salted and verify only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'garbage')).toBe(false);
  });

  it('idempotency request hashes ignore key order and spacing but not values, method or path', () => {
    const h = (method: string, path: string, body: unknown) => requestHash({ method, path, body });
    expect(h('POST', '/a', { x: 1, y: [1, 2] })).toBe(h('POST', '/a', { y: [1, 2], x: 1 }));
    expect(h('POST', '/a', { x: 1 })).not.toBe(h('POST', '/a', { x: 2 }));
    expect(h('POST', '/a', { x: 1 })).not.toBe(h('POST', '/b', { x: 1 }));
    expect(h('POST', '/a', { y: [1, 2] })).not.toBe(h('POST', '/a', { y: [2, 1] }));
  });
});
