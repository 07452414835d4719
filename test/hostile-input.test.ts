import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, uniqueEmail } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import * as passwords from '../src/crypto/passwords';

/**
 * Hostile input over HTTP against the real app: login timing, bad text (NUL, lone surrogates),
 * numbers too large for their columns, deep nesting, a lying Content-Encoding, undeclared methods.
 */

// Wraps the real password check so a test can see which hash a login verified against.
vi.mock('../src/crypto/passwords', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/crypto/passwords')>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});

let api: TestApi;
let dev: Onboarded;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
  dev = await onboard(api.url);
});
afterAll(() => api?.close());

describe('login cannot enumerate accounts by timing', () => {
  it('a missing account runs the same scrypt as a wrong password, against a dummy hash of the current parameters', async () => {
    const verify = vi.mocked(passwords.verifyPassword);
    // The dummy hash has the parameters and key length of a freshly made hash, so it costs the same.
    const fresh = await passwords.hashPassword('anything at all');
    const params = (h: string) => h.split('$').slice(0, 4).join('$');
    const keyLength = (h: string) => Buffer.from(h.split('$')[5]!, 'base64').length;
    expect(params(passwords.DUMMY_PASSWORD_HASH)).toBe(params(fresh));
    expect(keyLength(passwords.DUMMY_PASSWORD_HASH)).toBe(keyLength(fresh));

    verify.mockClear();
    const missing = await call(api.url, 'POST', '/v1/developers/login', { body: { contact_email: uniqueEmail('nobody'), password: 'some password' } });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_credentials');
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![1]).toBe(passwords.DUMMY_PASSWORD_HASH);

    verify.mockClear();
    const wrong = await call(api.url, 'POST', '/v1/developers/login', { body: { contact_email: dev.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(missing.body);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![1]).not.toBe(passwords.DUMMY_PASSWORD_HASH);
  });
});
