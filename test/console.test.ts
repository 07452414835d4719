import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call, uniqueEmail } from './helpers/http';
import { onboard } from './helpers/console';
import { startTestApi, TEST_INVITE, type TestApi } from './helpers/stack';

let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
  base = api.url;
});
afterAll(() => api.close());

const password = 'correct horse battery';

async function register(extra: Record<string, unknown> = {}) {
  const email = uniqueEmail();
  const res = await call(base, 'POST', '/v1/developers/register', {
    body: { display_name: 'Ada', contact_email: email, password, ...extra },
  });
  return { res, email };
}

describe('onboarding order (docs/CONTRACT.md#credentials), over HTTP', () => {
  it('register → login → verify invite → create key → call a business route → delete → 401', async () => {
    const { res: reg, email } = await register({ company: 'Acme', website: 'https://acme.example', metadata: { team: 'agents' } });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      status: 'registered',
      invite_verified: false,
      developer: {
        contact_email: email,
        company: 'Acme',
        website: 'https://acme.example',
        status: 'active',
        invite_verified_at: null,
        metadata: { team: 'agents' },
      },
      session: { status: 'active' },
    });
    expect(reg.body.developer_token).toMatch(/^cig_dt_/);

    const login = await call(base, 'POST', '/v1/developers/login', { body: { contact_email: email.toUpperCase(), password } });
    expect(login.status).toBe(200);
    expect(login.body.developer.developer_id).toBe(reg.body.developer.developer_id);
    const token = login.body.developer_token as string;
    expect(token).not.toBe(reg.body.developer_token);

    // Key creation is blocked until the invite is verified (3.1, 3.2).
    const blocked = await call(base, 'POST', '/v1/developers/keys', { token, body: {} });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: 'invite_verification_required', message: expect.any(String) });

    const badInvite = await call(base, 'POST', '/v1/developers/invite/verify', { token, body: { invite_code: 'nope' } });
    expect(badInvite.status).toBe(403);
    expect(badInvite.body.error).toBe('invalid_invite_code');

    const verify = await call(base, 'POST', '/v1/developers/invite/verify', { token, body: { invite_code: TEST_INVITE } });
    expect(verify.status).toBe(200);
    expect(verify.body.invite_verified).toBe(true);
    expect(verify.body.developer.invite_verified_at).toEqual(expect.any(String));

    const created = await call(base, 'POST', '/v1/developers/keys', { token, body: { label: 'ci', scopes: ['recommend', 'match'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'created',
      warning: expect.any(String),
      key: { label: 'ci', scopes: ['match', 'recommend'], status: 'active', can_reveal: true, revoked_at: null },
    });
    const apiKey = created.body.api_key as string;
    expect(apiKey.startsWith(created.body.key.key_prefix)).toBe(true);
    expect(created.body.key.key_prefix.length).toBeLessThan(apiKey.length / 2);

    const who = await call(base, 'GET', '/v1/whoami', { token: apiKey });
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ status: 'ok', key_id: created.body.key.key_id, scopes: ['match', 'recommend'] });

    const me = await call(base, 'GET', '/v1/developers/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.invite_verified).toBe(true);
    expect(me.body.keys.map((k: any) => k.key_id)).toEqual([created.body.key.key_id]);

    const del = await call(base, 'DELETE', `/v1/developers/keys/${created.body.key.key_id}`, { token });
    expect(del.status).toBe(200);
    expect(del.body.key.status).toBe('deleted');

    // The very next request with the deleted key fails.
    const after = await call(base, 'GET', '/v1/whoami', { token: apiKey });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_api_key');

    // The record is kept for audit, but the console no longer finds it.
    const row = await api.db.selectFrom('api_keys').selectAll().where('key_id', '=', created.body.key.key_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('deleted');
    expect(row.deleted_at).toBeInstanceOf(Date);
    for (const [method, path] of [
      ['POST', `/v1/developers/keys/${row.key_id}/reveal`],
      ['DELETE', `/v1/developers/keys/${row.key_id}`],
      ['POST', `/v1/developers/keys/${row.key_id}/revoke`],
      ['PATCH', `/v1/developers/keys/${row.key_id}`],
    ] as const) {
      const res = await call(base, method, path, { token, body: method === 'PATCH' ? { label: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('api_key_not_found');
    }
    const list = await call(base, 'GET', '/v1/developers/keys', { token });
    expect(list.body).toMatchObject({ count: 0, invite_verified: true, keys: [] });
  });

  it('a valid invite code at registration verifies at once', async () => {
    const { res } = await register({ invite_code: TEST_INVITE });
    expect(res.status).toBe(201);
    expect(res.body.invite_verified).toBe(true);
    expect(res.body.developer.invite_verified_at).toEqual(expect.any(String));
  });

  it('an invalid invite code at registration leaves the account unverified and says so', async () => {
    const { res } = await register({ invite_code: 'wrong-code' });
    expect(res.status).toBe(201);
    expect(res.body.invite_verified).toBe(false);
    expect(res.body.warning).toMatch(/invite_code/);
  });
});

describe('console error rows (docs/CONTRACT.md#errors)', () => {
  it('register: 400 invalid payload names the field; 409 for an existing email, case-insensitively', async () => {
    for (const [body, field] of [
      [{ contact_email: uniqueEmail(), password }, 'display_name'],
      [{ display_name: 'A', contact_email: 'not-an-email', password }, 'contact_email'],
      [{ display_name: 'A', contact_email: uniqueEmail(), password: 'short' }, 'password'],
      [{ display_name: 'A', contact_email: uniqueEmail(), password, website: 'nota url' }, 'website'],
      [{ display_name: 'A', contact_email: uniqueEmail(), password, metadata: 'x' }, 'metadata'],
    ] as const) {
      const res = await call(base, 'POST', '/v1/developers/register', { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_payload');
      expect(res.body.fields).toContain(field);
      expect(res.body.message).toContain(field);
    }
    const empty = await call(base, 'POST', '/v1/developers/register', {});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('invalid_payload');

    const { email } = await register();
    const dup = await call(base, 'POST', '/v1/developers/register', {
      body: { display_name: 'Twin', contact_email: email.toUpperCase(), password },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('account_exists');
    const count = await api.db
      .selectFrom('developers')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('email_normalized', '=', email.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
  });

  it('login: 400 invalid payload; 401 for a wrong password and for an unknown email alike', async () => {
    const { email } = await register();
    const bad = await call(base, 'POST', '/v1/developers/login', { body: { contact_email: email } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields).toContain('password');
    const wrong = await call(base, 'POST', '/v1/developers/login', { body: { contact_email: email, password: 'wrong password' } });
    const unknown = await call(base, 'POST', '/v1/developers/login', { body: { contact_email: uniqueEmail(), password } });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_credentials', message: 'Invalid email or password.' });
    }
  });

  it('every D route answers 401 without a token, with a garbage token, and with an API key', async () => {
    const dev = await onboard(base);
    const routes: Array<[string, string]> = [
      ['GET', '/v1/developers/me'],
      ['POST', '/v1/developers/invite/verify'],
      ['GET', '/v1/developers/keys'],
      ['POST', '/v1/developers/keys'],
      ['PATCH', `/v1/developers/keys/${dev.keyId}`],
      ['POST', `/v1/developers/keys/${dev.keyId}/revoke`],
      ['DELETE', `/v1/developers/keys/${dev.keyId}`],
      ['POST', `/v1/developers/keys/${dev.keyId}/reveal`],
      ['GET', '/v1/developers/logs'],
    ];
    for (const [method, path] of routes) {
      for (const token of [undefined, 'cig_dt_forged', dev.apiKey]) {
        const res = await call(base, method, path, {
          token,
          body: method === 'GET' || method === 'DELETE' ? undefined : { label: 'x', invite_code: TEST_INVITE },
        });
        expect(res.status, `${method} ${path} with ${token?.slice(0, 7)}`).toBe(401);
        expect(res.body.error).toBe('invalid_developer_token');
      }
    }
    // Nothing changed for the key those requests named.
    const still = await call(base, 'GET', '/v1/whoami', { token: dev.apiKey });
    expect(still.status).toBe(200);
  });

  it('a developer token is never accepted on business routes', async () => {
    const dev = await onboard(base);
    const res = await call(base, 'GET', '/v1/whoami', { token: dev.developerToken });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_api_key');
  });

  it('keys of another developer are 404, never touched', async () => {
    const a = await onboard(base);
    const b = await onboard(base);
    for (const [method, path] of [
      ['PATCH', `/v1/developers/keys/${a.keyId}`],
      ['POST', `/v1/developers/keys/${a.keyId}/revoke`],
      ['DELETE', `/v1/developers/keys/${a.keyId}`],
      ['POST', `/v1/developers/keys/${a.keyId}/reveal`],
    ] as const) {
      const res = await call(base, method, path, { token: b.developerToken, body: method === 'PATCH' ? { label: 'stolen' } : undefined });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('api_key_not_found');
    }
    expect((await call(base, 'GET', '/v1/whoami', { token: a.apiKey })).status).toBe(200);
  });

  it('rename, revoke (deprecated) and reveal', async () => {
    const dev = await onboard(base, { label: 'first' });
    const renamed = await call(base, 'PATCH', `/v1/developers/keys/${dev.keyId}`, {
      token: dev.developerToken,
      body: { label: 'renamed' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ status: 'updated', key: { label: 'renamed' } });
    const noLabel = await call(base, 'PATCH', `/v1/developers/keys/${dev.keyId}`, { token: dev.developerToken, body: {} });
    expect(noLabel.status).toBe(400);
    expect(noLabel.body.fields).toContain('label');

    const reveal = await call(base, 'POST', `/v1/developers/keys/${dev.keyId}/reveal`, { token: dev.developerToken });
    expect(reveal.status).toBe(200);
    expect(reveal.body.api_key).toBe(dev.apiKey);
    expect(reveal.body.key.status).toBe('active');

    const revoked = await call(base, 'POST', `/v1/developers/keys/${dev.keyId}/revoke`, { token: dev.developerToken });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('deprecation')).toBe('true');
    expect(revoked.body.key).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    expect((await call(base, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(401);
    const listed = await call(base, 'GET', '/v1/developers/keys', { token: dev.developerToken });
    expect(listed.body.keys[0]).toMatchObject({ key_id: dev.keyId, status: 'revoked' });
  });

  it('a key created without encrypted storage is hash-only: can_reveal false, reveal 410', async () => {
    const hashOnly = await startTestApi({ withTemporal: false, env: { KEY_ENCRYPTION_KEY: undefined } });
    try {
      const dev = await onboard(hashOnly.url);
      const keys = await call(hashOnly.url, 'GET', '/v1/developers/keys', { token: dev.developerToken });
      expect(keys.body.keys[0].can_reveal).toBe(false);
      // Even after encrypted storage is configured, the old key stays unrevealable.
      const res = await call(base, 'POST', `/v1/developers/keys/${dev.keyId}/reveal`, { token: dev.developerToken });
      expect(res.status).toBe(410);
      expect(res.body.error).toBe('key_not_revealable');
      expect((await call(base, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    } finally {
      await hashOnly.close();
    }
  });

  it('key create validates scopes', async () => {
    const dev = await onboard(base);
    const bad = await call(base, 'POST', '/v1/developers/keys', { token: dev.developerToken, body: { scopes: ['everything'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.fields).toContain('scopes.0');
    const star = await call(base, 'POST', '/v1/developers/keys', { token: dev.developerToken, body: { scopes: ['*', 'match'] } });
    expect(star.body.key.scopes).toEqual(['*']);
  });

  it('logs: newest first, limit 1..200 default 50, only the caller’s keys', async () => {
    const dev = await onboard(base);
    const other = await onboard(base);
    for (let i = 0; i < 3; i++) await call(base, 'GET', '/v1/whoami', { token: dev.apiKey, headers: { 'x-channel': `c${i}` } });
    await call(base, 'GET', '/v1/whoami', { token: other.apiKey });
    const logs = await call(base, 'GET', '/v1/developers/logs', { token: dev.developerToken });
    expect(logs.status).toBe(200);
    expect(logs.body.count).toBe(3);
    expect(logs.body.logs.map((l: any) => l.channel)).toEqual(['c2', 'c1', 'c0']);
    expect(logs.body.logs[0]).toMatchObject({
      key_id: dev.keyId,
      method: 'GET',
      path: '/v1/whoami',
      status_code: 200,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(logs.body.logs[0].duration_ms).toBeGreaterThanOrEqual(0);
    const one = await call(base, 'GET', '/v1/developers/logs?limit=1', { token: dev.developerToken });
    expect(one.body.logs).toHaveLength(1);
    for (const limit of ['0', '201', 'abc', '1.5']) {
      const res = await call(base, 'GET', `/v1/developers/logs?limit=${limit}`, { token: dev.developerToken });
      expect(res.status).toBe(400);
      expect(res.body.fields).toContain('query.limit');
    }
    const keys = await call(base, 'GET', '/v1/developers/keys', { token: dev.developerToken });
    expect(keys.body.keys[0].last_used_at).toEqual(expect.any(String));
  });

  it('logs: default limit 50, maximum 200', async () => {
    const dev = await onboard(base);
    await Promise.all(Array.from({ length: 60 }, () => call(base, 'GET', '/v1/whoami', { token: dev.apiKey })));
    const byDefault = await call(base, 'GET', '/v1/developers/logs', { token: dev.developerToken });
    expect(byDefault.body.count).toBe(50);
    const all = await call(base, 'GET', '/v1/developers/logs?limit=200', { token: dev.developerToken });
    expect(all.body.count).toBe(60);
    const times = all.body.logs.map((l: any) => Date.parse(l.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe('developer sessions', () => {
  it('slide on use and stop working once expired', async () => {
    const dev = await onboard(base);
    const before = await api.db
      .selectFrom('developer_sessions')
      .selectAll()
      .where('developer_id', '=', dev.developerId)
      .executeTakeFirstOrThrow();
    await api.db
      .updateTable('developer_sessions')
      .set({ expires_at: new Date(Date.now() + 60_000) })
      .where('session_id', '=', before.session_id)
      .execute();
    const me = await call(base, 'GET', '/v1/developers/me', { token: dev.developerToken });
    expect(me.status).toBe(200);
    const slid = new Date(me.body.session.expires_at).getTime();
    expect(slid).toBeGreaterThan(Date.now() + api.config.DEVELOPER_SESSION_TTL_S * 1000 - 60_000);

    await api.db
      .updateTable('developer_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('session_id', '=', before.session_id)
      .execute();
    const expired = await call(base, 'GET', '/v1/developers/me', { token: dev.developerToken });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('invalid_developer_token');
    // Logging in again opens a new session; the API key was never tied to the session.
    const login = await call(base, 'POST', '/v1/developers/login', { body: { contact_email: dev.email, password } });
    expect(login.status).toBe(200);
    expect((await call(base, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('no row holds a plaintext password, developer token or API key', async () => {
    const dev = await onboard(base);
    const revealable = dev.apiKey;
    const dump = JSON.stringify(
      await Promise.all([
        api.db.selectFrom('developers').selectAll().execute(),
        api.db.selectFrom('developer_sessions').selectAll().execute(),
        api.db.selectFrom('api_keys').selectAll().execute(),
        api.db.selectFrom('request_logs').selectAll().execute(),
        api.db.selectFrom('idempotency_keys').selectAll().execute(),
      ]),
    );
    expect(dump).not.toContain(password);
    expect(dump).not.toContain(dev.developerToken);
    expect(dump).not.toContain(revealable);
    expect(dump).not.toContain(revealable.slice(12));
    const devRow = await api.db.selectFrom('developers').selectAll().where('developer_id', '=', dev.developerId).executeTakeFirstOrThrow();
    expect(devRow.password_hash).toMatch(/^scrypt\$/);
  });
});

describe('Idempotency-Key on console creates (owner: the developer of the session token)', () => {
  const keyed = (token: string, idem: string, body: Record<string, unknown>) =>
    call(base, 'POST', '/v1/developers/keys', { token, body, headers: { 'idempotency-key': idem } });
  const keysOf = (developerId: string) =>
    api.db.selectFrom('api_keys').select(['key_id', 'key_hash']).where('developer_id', '=', developerId).execute();
  const claimOf = (developerId: string, idem: string) =>
    api.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('owner_id', '=', developerId)
      .where('idem_key', '=', idem)
      .executeTakeFirstOrThrow();

  it('a keyed key creation replays the same key, sealed at rest; another body is 409; no second key', async () => {
    const dev = await onboard(base);
    const body = { label: 'ci', scopes: ['match'] };
    const first = await keyed(dev.developerToken, 'mk-1', body);
    expect(first.status, first.text).toBe(201);
    const replay = await keyed(dev.developerToken, 'mk-1', body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await call(base, 'GET', '/v1/whoami', { token: replay.body.api_key })).status).toBe(200);

    const stored = await claimOf(dev.developerId, 'mk-1');
    expect(stored.response_sealed).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(first.body.api_key);
    expect(JSON.stringify(stored)).not.toContain(first.body.api_key.slice(12));

    const other = await keyed(dev.developerToken, 'mk-1', { label: 'other' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    // The onboarding key and the keyed one: nothing more.
    expect((await keysOf(dev.developerId)).map((k) => k.key_id).sort()).toEqual([dev.keyId, first.body.key.key_id].sort());
  });

  it('retried after the process died between the commit and the answer: the same key id with a fresh secret, never a second key', async () => {
    const dev = await onboard(base);
    const body = { label: 'after-crash' };
    const first = await keyed(dev.developerToken, 'mk-crash', body);
    expect(first.status, first.text).toBe(201);
    // As if the process died after committing the key but before storing the answer: the claim in
    // flight, its heartbeat stale (the caller never saw the first secret).
    await api.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', response_status: null, response_body: null, locked_at: sql<Date>`now() - interval '1 minute'` })
      .where('owner_id', '=', dev.developerId)
      .where('idem_key', '=', 'mk-crash')
      .execute();
    // A new console session of the same developer: the key belongs to the account, not the session.
    const login = await call(base, 'POST', '/v1/developers/login', {
      body: { contact_email: dev.email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);
    const retry = await keyed(login.body.developer_token, 'mk-crash', body);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.key.key_id).toBe(first.body.key.key_id);
    expect(retry.body.api_key).not.toBe(first.body.api_key);
    expect((await call(base, 'GET', '/v1/whoami', { token: retry.body.api_key })).status).toBe(200);
    expect((await call(base, 'GET', '/v1/whoami', { token: first.body.api_key })).status).toBe(401);
    expect((await keysOf(dev.developerId)).map((k) => k.key_id).sort()).toEqual([dev.keyId, first.body.key.key_id].sort());
    // The revealable copy follows the secret the caller now holds.
    const revealed = await call(base, 'POST', `/v1/developers/keys/${retry.body.key.key_id}/reveal`, { token: dev.developerToken });
    expect(revealed.body.api_key).toBe(retry.body.api_key);
    // And the key now replays the retry's answer.
    const replay = await keyed(dev.developerToken, 'mk-crash', body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retry.body);
  });

  it('invite verification accepts a key too; a key is the account’s, another developer’s same key is its own', async () => {
    const reg = await call(base, 'POST', '/v1/developers/register', {
      body: { display_name: 'Ada', contact_email: uniqueEmail(), password },
    });
    const token = reg.body.developer_token as string;
    const verify = () =>
      call(base, 'POST', '/v1/developers/invite/verify', {
        token,
        body: { invite_code: TEST_INVITE },
        headers: { 'idempotency-key': 'iv-1' },
      });
    const v1 = await verify();
    expect(v1.status, v1.text).toBe(200);
    const v2 = await verify();
    expect(v2.headers.get('idempotent-replayed')).toBe('true');
    expect(v2.body).toEqual(v1.body);

    const other = await onboard(base);
    const mine = await keyed(token, 'shared-key', {});
    const theirs = await keyed(other.developerToken, 'shared-key', {});
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.key.key_id).not.toBe(mine.body.key.key_id);
  });
});
