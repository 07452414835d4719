import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AppError } from '../src/errors';
import { sha256Hex } from '../src/crypto/tokens';
import { requireApiKey, requireRegistrationToken, requireSupplyKey, requireSupplyKeyOrApiKey } from '../api/middleware/auth';
import { idempotency, requestResourceId } from '../api/middleware/idempotency';
import { requestHash, seededId, STALE_CLAIM_SECONDS } from '../src/idempotency/store';
import { json, startLoopback } from './helpers/loopback';
import { call, uniqueEmail } from './helpers/http';
import { answersWithin } from './helpers/deadline';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { buildRoutes } from '../api/app';
import { CONSOLE_AUTH_BUDGETS } from '../api/middleware/rate-limit';

/**
 * The HTTP foundation, exercised through the real middleware stack. Routes that later issues add
 * (merchant tokens, agent tokens, supply operations) are stood in for by small routes mounted with
 * the very middleware those issues will use.
 */
let api: TestApi;
let base: string;
let dev: Onboarded;

// Registration tokens of two principals, stored hashed as the registries will store them.
const registrationTokens = new Map([
  ['m-alpha', sha256Hex('tok-alpha')],
  ['m-beta', sha256Hex('tok-beta')],
]);
let gate: { release: () => void; wait: Promise<void> } | null = null;
let handlerRuns = 0;

beforeAll(async () => {
  api = await startTestApi({
    withTemporal: false,
    extraRoutes: (router) => {
      router.post('/v1/test/echo', requireApiKey('intents'), idempotency, async (ctx) => {
        handlerRuns++;
        const body = (ctx.request as { body?: any }).body ?? {};
        if (gate) await gate.wait;
        if (body.fail === 500) throw new Error('boom: secret detail');
        if (body.fail === 422) throw new AppError(422, 'unprocessable', 'cannot do that');
        ctx.status = 201;
        ctx.body = { run: handlerRuns, echo: body };
      });
      router.post('/v1/test/seeded', requireApiKey('intents'), idempotency, async (ctx) => {
        ctx.status = 201;
        ctx.body = { id: requestResourceId(ctx, 'thing'), takeover: ctx.state.idempotency?.takeover ?? null };
      });
      router.get('/v1/test/scoped', requireApiKey('recommend'), (ctx) => {
        ctx.body = { ok: true };
      });
      router.get('/v1/test/supply', requireSupplyKey, (ctx) => {
        ctx.body = { supply: ctx.state.supply };
      });
      router.get('/v1/test/report', requireSupplyKeyOrApiKey('reports'), (ctx) => {
        ctx.body = { supply: Boolean(ctx.state.supply), key: ctx.state.apiKey?.keyId ?? null };
      });
      const merchantToken = requireRegistrationToken({
        header: 'x-merchant-token',
        unknownPrincipal: () => new AppError(404, 'merchant_not_found', 'Merchant not found.'),
        verify: async (ctx, token) => {
          const id = ctx.params.merchantId!;
          const hash = registrationTokens.get(id);
          return { principalId: id, result: !hash ? 'unknown' : hash === sha256Hex(token) ? 'valid' : 'invalid' };
        },
      });
      router.post('/v1/test/merchants/:merchantId/heartbeat', requireApiKey(), merchantToken, (ctx) => {
        ctx.body = { merchant_id: ctx.state.registrationPrincipal };
      });
      const agentToken = requireRegistrationToken({
        header: 'x-agent-token',
        unknownPrincipal: () => new AppError(404, 'agent_not_found', 'Agent not found.'),
        verify: async (ctx, token) => ({ principalId: ctx.params.agentId!, result: token === 'agent-secret' ? 'valid' : 'invalid' }),
      });
      router.post('/v1/test/agents/:agentId/heartbeat', requireApiKey(), agentToken, (ctx) => {
        ctx.body = { agent_id: ctx.state.registrationPrincipal };
      });
    },
  });
  base = api.url;
  dev = await onboard(base);
});
afterAll(() => api.close());

describe('envelope, ids and limits', () => {
  it('every response carries x-request-id; a sane caller id is kept, a bad one replaced', async () => {
    const a = await call(base, 'GET', '/v1/whoami', { token: dev.apiKey });
    expect(a.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const b = await call(base, 'GET', '/nowhere', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(b.headers.get('x-request-id')).toBe('trace-12345678');
    const c = await call(base, 'GET', '/nowhere', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(c.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('unknown route → 404 not_found; wrong method → 405 method_not_allowed', async () => {
    const res = await call(base, 'GET', '/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'No route for GET /v1/no-such-thing.' });
    const put = await call(base, 'PUT', '/v1/developers/register', { body: {} });
    expect(put.status).toBe(405);
    expect(put.body.error).toBe('method_not_allowed');
    expect(put.headers.get('allow')).toContain('POST');
  });

  it('malformed JSON → 400 invalid_json', async () => {
    const res = await call(base, 'POST', '/v1/developers/register', { raw: '{"display_name": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('a body over 1 MB → 413 payload_too_large; just under is parsed', async () => {
    const big = JSON.stringify({ display_name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await call(base, 'POST', '/v1/developers/register', { raw: big });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    const under = JSON.stringify({ display_name: 'x'.repeat(1024 * 1024 - 100) });
    const ok = await call(base, 'POST', '/v1/developers/register', { raw: under });
    expect(ok.status).toBe(400); // parsed, then refused by validation (display_name too long)
    expect(ok.body.fields).toContain('display_name');
  });

  it('a non-JSON body → 415 unsupported_media_type', async () => {
    const res = await call(base, 'POST', '/v1/developers/login', {
      raw: 'contact_email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('an unexpected failure is 500 internal_error without any detail of the failure', async () => {
    const res = await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, body: { fail: 500 } });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('internal_error');
    expect(res.text).not.toContain('boom');
    expect(res.text).not.toContain('.ts:');
    expect(res.body.message).toContain(res.headers.get('x-request-id'));
  });
});

describe('credentials (docs/CONTRACT.md#credentials)', () => {
  it('B: missing, malformed, unknown → 401 invalid_api_key; missing scope → 403 insufficient_scope', async () => {
    for (const token of [undefined, 'garbage', 'cig_sk_unknownkeyunknownkeyunknownkey00000000']) {
      const res = await call(base, 'GET', '/v1/whoami', { token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_api_key');
    }
    const narrow = await onboard(base, { scopes: ['match'] });
    const res = await call(base, 'GET', '/v1/test/scoped', { token: narrow.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    const star = await call(base, 'GET', '/v1/test/scoped', { token: dev.apiKey });
    expect(star.status).toBe(200);
  });

  it('S: invalid or missing X-Supply-Key → 401', async () => {
    expect((await call(base, 'GET', '/v1/test/supply')).status).toBe(401);
    const wrong = await call(base, 'GET', '/v1/test/supply', { headers: { 'x-supply-key': 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_supply_key');
    // An API key is not a supply key.
    expect((await call(base, 'GET', '/v1/test/supply', { token: dev.apiKey })).status).toBe(401);
    const ok = await call(base, 'GET', '/v1/test/supply', { headers: { 'x-supply-key': TEST_SUPPLY_KEY } });
    expect(ok.body).toEqual({ supply: true });
  });

  it('supply key or API key: either credential works; neither → 401', async () => {
    expect((await call(base, 'GET', '/v1/test/report')).status).toBe(401);
    expect((await call(base, 'GET', '/v1/test/report', { headers: { 'x-supply-key': 'bad' } })).status).toBe(401);
    expect((await call(base, 'GET', '/v1/test/report', { token: 'cig_sk_bad' })).status).toBe(401);
    expect((await call(base, 'GET', '/v1/test/report', { headers: { 'x-supply-key': TEST_SUPPLY_KEY } })).body).toEqual({
      supply: true,
      key: null,
    });
    expect((await call(base, 'GET', '/v1/test/report', { token: dev.apiKey })).body).toEqual({ supply: false, key: dev.keyId });
  });

  it('M: missing → 401, wrong → 403, another merchant’s token → 403, unknown merchant → 404', async () => {
    const path = '/v1/test/merchants/m-alpha/heartbeat';
    const missing = await call(base, 'POST', path, { token: dev.apiKey });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('missing_registration_token');
    const wrong = await call(base, 'POST', path, { token: dev.apiKey, headers: { 'x-merchant-token': 'nope' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe('invalid_registration_token');
    const crossed = await call(base, 'POST', path, { token: dev.apiKey, headers: { 'x-merchant-token': 'tok-beta' } });
    expect(crossed.status).toBe(403);
    const ok = await call(base, 'POST', path, { token: dev.apiKey, headers: { 'x-merchant-token': 'tok-alpha' } });
    expect(ok.body).toEqual({ merchant_id: 'm-alpha' });
    const unknown = await call(base, 'POST', '/v1/test/merchants/m-ghost/heartbeat', {
      token: dev.apiKey,
      headers: { 'x-merchant-token': 'tok-alpha' },
    });
    expect(unknown.status).toBe(404);
    // The API key is checked first: a merchant token alone is not enough.
    expect((await call(base, 'POST', path, { headers: { 'x-merchant-token': 'tok-alpha' } })).status).toBe(401);
  });

  it('G: missing X-Agent-Token → 401, wrong → 403', async () => {
    const path = '/v1/test/agents/a1/heartbeat';
    const missing = await call(base, 'POST', path, { token: dev.apiKey });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'agent_token_required', message: 'X-Agent-Token required.' });
    expect((await call(base, 'POST', path, { token: dev.apiKey, headers: { 'x-agent-token': 'x' } })).status).toBe(403);
    expect((await call(base, 'POST', path, { token: dev.apiKey, headers: { 'x-agent-token': 'agent-secret' } })).body).toEqual({
      agent_id: 'a1',
    });
  });
});

describe('Idempotency-Key', () => {
  it('same key + same body replays the stored response with Idempotent-Replayed: true', async () => {
    const first = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-replay' },
      body: { a: 1, b: [1, 2] },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same JSON with other key order and spacing is the same request.
    const again = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-replay' },
      raw: '{ "b": [1,2],  "a": 1 }',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('keys are scoped to the developer: another key of the same developer replays, another developer does not', async () => {
    const second = await call(base, 'POST', '/v1/developers/keys', { token: dev.developerToken, body: {} });
    const a = await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-scope' }, body: { x: 1 } });
    const b = await call(base, 'POST', '/v1/test/echo', {
      token: second.body.api_key,
      headers: { 'idempotency-key': 'k-scope' },
      body: { x: 1 },
    });
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    const stranger = await onboard(base);
    const c = await call(base, 'POST', '/v1/test/echo', {
      token: stranger.apiKey,
      headers: { 'idempotency-key': 'k-scope' },
      body: { x: 1 },
    });
    expect(c.headers.get('idempotent-replayed')).toBeNull();
    expect(c.body.run).not.toBe(a.body.run);
  });

  it('same key + different body → 409 idempotency_conflict, nothing run', async () => {
    await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-conflict' }, body: { n: 1 } });
    const runs = handlerRuns;
    const res = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-conflict' },
      body: { n: 2 },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('idempotency_conflict');
    expect(handlerRuns).toBe(runs);
  });

  it('a request still in flight → 409 idempotency_in_flight; afterwards the result replays', async () => {
    let release!: () => void;
    gate = { release: () => release(), wait: new Promise<void>((r) => (release = r)) };
    const slow = call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-flight' },
      body: { slow: true },
    });
    // Wait until the first request holds the claim.
    for (let i = 0; i < 100; i++) {
      const row = await api.db.selectFrom('idempotency_keys').select('state').where('idem_key', '=', 'k-flight').executeTakeFirst();
      if (row) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const during = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-flight' },
      body: { slow: true },
    });
    expect(during.status).toBe(409);
    expect(during.body.error).toBe('idempotency_in_flight');
    expect(during.headers.get('retry-after')).toBe('1');
    gate.release();
    gate = null;
    const first = await slow;
    expect(first.status).toBe(201);
    const after = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-flight' },
      body: { slow: true },
    });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body).toEqual(first.body);
  });

  it('5xx is never stored (a retry runs again); 4xx is stored and replayed', async () => {
    const e1 = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-500' },
      body: { fail: 500 },
    });
    expect(e1.status).toBe(500);
    const runs = handlerRuns;
    const e2 = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-500' },
      body: { fail: 500 },
    });
    expect(e2.status).toBe(500);
    expect(e2.headers.get('idempotent-replayed')).toBeNull();
    expect(handlerRuns).toBe(runs + 1);
    const row = await api.db.selectFrom('idempotency_keys').selectAll().where('idem_key', '=', 'k-500').executeTakeFirst();
    expect(row).toBeUndefined();

    const c1 = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-422' },
      body: { fail: 422 },
    });
    expect(c1.status).toBe(422);
    const c2 = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-422' },
      body: { fail: 422 },
    });
    expect(c2.status).toBe(422);
    expect(c2.headers.get('idempotent-replayed')).toBe('true');
    expect(c2.body).toEqual(c1.body);
  });

  it('records expire after 24 h: the key may then be used again', async () => {
    await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-old' }, body: { v: 1 } });
    await api.db
      .updateTable('idempotency_keys')
      .set({ created_at: sql`now() - interval '25 hours'` })
      .where('idem_key', '=', 'k-old')
      .execute();
    const fresh = await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-old' }, body: { v: 2 } });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.echo).toEqual({ v: 2 });
  });

  it('a claim left in flight by a crashed process is taken over once its heartbeat is stale, by the same request only', async () => {
    const body = { crashed: true };
    const { requestHash } = await import('../src/idempotency/store');
    await api.db
      .insertInto('idempotency_keys')
      .values({
        owner_id: dev.developerId,
        idem_key: 'k-crashed',
        method: 'POST',
        path: '/v1/test/echo',
        request_hash: requestHash({ method: 'POST', path: '/v1/test/echo', body }),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        locked_at: sql<Date>`now() - interval '2 minutes'`,
        created_at: sql<Date>`now() - interval '2 minutes'`,
      })
      .execute();
    const other = await call(base, 'POST', '/v1/test/echo', {
      token: dev.apiKey,
      headers: { 'idempotency-key': 'k-crashed' },
      body: { crashed: false },
    });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    const retry = await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-crashed' }, body });
    expect(retry.status).toBe(201);
    expect(retry.body.echo).toEqual(body);
    const row = await api.db.selectFrom('idempotency_keys').selectAll().where('idem_key', '=', 'k-crashed').executeTakeFirstOrThrow();
    expect(row.state).toBe('completed');
  });

  it('a claim whose heartbeat went quiet is taken over within seconds, keeping the ids the first run derived', async () => {
    const body = { seeded: 1 };
    await api.db
      .insertInto('idempotency_keys')
      .values({
        owner_id: dev.developerId,
        idem_key: 'k-dead-owner',
        method: 'POST',
        path: '/v1/test/seeded',
        request_hash: requestHash({ method: 'POST', path: '/v1/test/seeded', body }),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        resource_seed: 'seed-of-the-first-run',
        // The owner beat last 3 s ago: quiet, but not yet stale.
        locked_at: sql<Date>`now() - interval '3 seconds'`,
        created_at: sql<Date>`now() - interval '3 seconds'`,
      })
      .execute();
    const t0 = Date.now();
    // It waits for the claim to go stale (5 s since the last beat), not for a 60 s lock: a wait for the
    // lock would miss this deadline, half of it.
    const retry = await answersWithin(
      'the retry of a quiet claim',
      call(base, 'POST', '/v1/test/seeded', { token: dev.apiKey, headers: { 'idempotency-key': 'k-dead-owner' }, body }),
      30_000,
    );
    const took = Date.now() - t0;
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toEqual({ id: seededId('seed-of-the-first-run', 'thing'), takeover: true });
    // (It did wait for the claim to go stale.)
    expect(took).toBeGreaterThan((STALE_CLAIM_SECONDS - 3) * 1000 - 500);
    // A fresh key derives its own ids; the same key replays them.
    const fresh = await call(base, 'POST', '/v1/test/seeded', { token: dev.apiKey, headers: { 'idempotency-key': 'k-fresh-seed' }, body });
    expect(fresh.body.id).toMatch(/^thing_[A-Za-z0-9_-]{16}$/);
    expect(fresh.body.id).not.toBe(retry.body.id);
    expect(fresh.body.takeover).toBe(false);
    const replay = await call(base, 'POST', '/v1/test/seeded', { token: dev.apiKey, headers: { 'idempotency-key': 'k-fresh-seed' }, body });
    expect(replay.body).toEqual(fresh.body);
  });

  it('a live owner keeps its claim by heartbeat: a duplicate during a long request is 409 at once, never a takeover', async () => {
    let release!: () => void;
    gate = { release: () => release(), wait: new Promise<void>((r) => (release = r)) };
    const runs = handlerRuns;
    const slow = call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-long' }, body: { long: true } });
    await new Promise((r) => setTimeout(r, (STALE_CLAIM_SECONDS + 2) * 1000));
    // The owner's gate opens only after this answer, so a duplicate that waited for the owner would hang.
    const during = await answersWithin(
      'a duplicate during a long request',
      call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'k-long' }, body: { long: true } }),
      30_000,
    );
    expect(during.status).toBe(409);
    expect(during.body.error).toBe('idempotency_in_flight');
    gate.release();
    gate = null;
    expect((await slow).status).toBe(201);
    expect(handlerRuns).toBe(runs + 1);
  }, 20_000);

  it('an ill-formed key → 400 invalid_idempotency_key', async () => {
    const res = await call(base, 'POST', '/v1/test/echo', { token: dev.apiKey, headers: { 'idempotency-key': 'x'.repeat(300) }, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_idempotency_key');
  });
});

/** A second app with its own (low) limits, closed after `fn`. */
async function withLimits(env: Record<string, string>, fn: (url: string) => Promise<void>) {
  const limited = await startTestApi({ withTemporal: false, env: { RATE_LIMIT_WINDOW_S: '30', ...env } });
  try {
    await fn(limited.url);
  } finally {
    await limited.close();
  }
}

describe('rate limiting', () => {
  it('per key: 429 rate_limited with Retry-After once the key’s bucket is spent; other keys unaffected', async () => {
    await withLimits({ RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_PER_IP: '1000' }, async (url) => {
      const a = await onboard(url);
      const b = await onboard(url);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await call(url, 'GET', '/v1/whoami', { token: a.apiKey })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const res = await call(url, 'GET', '/v1/whoami', { token: a.apiKey });
      expect(res.body.error).toBe('rate_limited');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(30);
      expect((await call(url, 'GET', '/v1/whoami', { token: b.apiKey })).status).toBe(200);
    });
  });

  it('per IP: unauthenticated callers share their IP’s bucket; /healthz is exempt', async () => {
    await withLimits({ RATE_LIMIT_PER_KEY: '1000', RATE_LIMIT_PER_IP: '3' }, async (url) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (await call(url, 'POST', '/v1/developers/login', { body: { contact_email: 'x@example.com', password: 'whatever1' } })).status,
        );
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const health = await call(url, 'GET', '/healthz');
      expect(health.status).not.toBe(429);
    });
  });

  it('failed API-key guesses spend the IP bucket, then further guesses are refused', async () => {
    await withLimits({ RATE_LIMIT_PER_KEY: '1000', RATE_LIMIT_PER_IP: '3' }, async (url) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(url, 'GET', '/v1/whoami', { token: `cig_sk_guess${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    });
  });

  it('made-up cig_sk_ tokens buy no bucket of their own: on a keyless route they spend the IP bucket too', async () => {
    await withLimits({ RATE_LIMIT_PER_KEY: '1000', RATE_LIMIT_PER_IP: '4' }, async (url) => {
      const dev = await onboard(url); // register + create key: 2 of the IP's 4
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const fresh = `cig_sk_${Math.random().toString(36).slice(2)}${Date.now()}`;
        statuses.push((await call(url, 'GET', '/.well-known/jwks.json', { token: fresh })).status);
      }
      expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
      // A live key still spends only its own bucket.
      expect((await call(url, 'GET', '/.well-known/jwks.json', { token: dev.apiKey })).status).toBe(200);
      expect((await call(url, 'GET', '/v1/whoami', { token: dev.apiKey })).status).toBe(200);
    });
  });

  it('register, login and invite verification have their own tight per-IP budgets', async () => {
    await withLimits(
      { RATE_LIMIT_PER_IP: '1000', REGISTER_RATE_LIMIT_PER_IP: '2', LOGIN_RATE_LIMIT_PER_IP: '3', INVITE_VERIFY_RATE_LIMIT_PER_IP: '2' },
      async (url) => {
        const register = () =>
          call(url, 'POST', '/v1/developers/register', {
            body: { display_name: 'X', contact_email: uniqueEmail('budget'), password: 'a long password' },
          });
        const first = await register();
        expect(first.status).toBe(201);
        expect((await register()).status).toBe(201);
        const third = await register();
        expect(third.status).toBe(429);
        expect(third.body.error).toBe('rate_limited');
        expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

        const login = () =>
          call(url, 'POST', '/v1/developers/login', { body: { contact_email: 'nobody@example.com', password: 'wrong password' } });
        expect([(await login()).status, (await login()).status, (await login()).status, (await login()).status]).toEqual([
          401, 401, 401, 429,
        ]);

        const verify = () =>
          call(url, 'POST', '/v1/developers/invite/verify', { token: first.body.developer_token, body: { invite_code: 'guess-guess' } });
        expect([(await verify()).status, (await verify()).status, (await verify()).status]).toEqual([403, 403, 429]);
        // Other routes still answer: the general bucket is not spent.
        expect((await call(url, 'GET', '/v1/developers/keys', { token: first.body.developer_token })).status).toBe(200);
      },
    );
  });

  it('every console budget is one bucket per route, whatever the spelling of its path', async () => {
    // Each budgeted route names a route of the registry (a renamed route cannot silently lose its budget).
    const declared = new Set(buildRoutes().routes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    for (const key of CONSOLE_AUTH_BUDGETS.keys()) expect(declared, key).toContain(key);

    await withLimits(
      { RATE_LIMIT_PER_IP: '1000', REGISTER_RATE_LIMIT_PER_IP: '3', LOGIN_RATE_LIMIT_PER_IP: '3', INVITE_VERIFY_RATE_LIMIT_PER_IP: '3' },
      async (url) => {
        const owner = await call(url, 'POST', '/v1/developers/register', {
          body: { display_name: 'X', contact_email: uniqueEmail('spell'), password: 'a long password' },
        });
        expect(owner.status).toBe(201);
        const bodies: Record<string, { body: unknown; token?: string }> = {
          'POST /v1/developers/register': { body: { display_name: 'X', contact_email: 'not-an-email', password: 'a long password' } },
          'POST /v1/developers/login': { body: { contact_email: 'nobody@example.com', password: 'wrong password' } },
          'POST /v1/developers/invite/verify': { body: { invite_code: 'guess-guess' }, token: owner.body.developer_token },
        };
        for (const key of CONSOLE_AUTH_BUDGETS.keys()) {
          const [method, path] = key.split(' ') as [string, string];
          const { body, token } = bodies[key]!;
          const send = (spelling: string) => call(url, method, spelling, { body, token });
          // Spellings the router takes for this route: each spends from the one bucket (3 here, one
          // already spent by the owner's registration on the register route).
          const accepted = [path.toUpperCase(), `${path}/`, path.replace('/v1/', '/V1/')];
          const statuses = [];
          for (const spelling of [path, ...accepted]) statuses.push({ spelling, status: (await send(spelling)).status });
          const spent = statuses.findIndex((s) => s.status === 429);
          expect(spent, `${key}: ${JSON.stringify(statuses)}`).toBeGreaterThan(0);
          expect(
            statuses.slice(spent).every((s) => s.status === 429),
            `${key}: ${JSON.stringify(statuses)}`,
          ).toBe(true);
          // With the bucket spent, no spelling reaches the credential check: the router's spellings
          // answer 429, the ones it does not take (`//`, percent-encoded letters) are no route at all.
          const others = [
            ...accepted,
            path.toLowerCase().replace(/s/g, 'S'),
            `/${path}`,
            path.replace('/v1/', '/v1//'),
            `${path}//`,
            path.replace(/n/, '%6E'),
            path.replace(/e/, '%65'),
          ];
          for (const spelling of others) {
            const res = await send(spelling);
            expect([429, 404], `${method} ${spelling} → ${res.status} ${res.text}`).toContain(res.status);
          }
        }
      },
    );
  });
});

describe('Idempotency-Key: responses that carry secrets are never stored in plain text', () => {
  async function registerTwice(sealed: boolean) {
    const env: Record<string, string | undefined> = { ALLOW_PRIVATE_ENDPOINTS: 'true', HEALTH_PROBE_TIMEOUT_MS: '400' };
    if (!sealed) env.KEY_ENCRYPTION_KEY = undefined;
    const own = await startTestApi({ withTemporal: false, env });
    const agent = await startLoopback((_req, res) => json(res, 200, { ok: true }));
    try {
      const d = await onboard(own.url);
      const merchantId = `m-idem-${Math.random().toString(36).slice(2, 8)}`;
      const rows = () => own.db.selectFrom('idempotency_keys').selectAll().where('owner_id', '=', d.developerId).execute();
      const register = { merchant_id: merchantId, agent_endpoint: `${agent.url}/hooks` };
      const first = await call(own.url, 'POST', '/v1/merchant/register', {
        token: d.apiKey,
        headers: { 'idempotency-key': 'reg-1' },
        body: register,
      });
      expect(first.status, first.text).toBe(200);
      const secrets = [first.body.registration_token as string, first.body.webhook_secret as string];
      expect(secrets.every((x) => typeof x === 'string' && x.length > 10)).toBe(true);
      let dump = JSON.stringify(await rows());
      for (const x of secrets) expect(dump).not.toContain(x);

      // An update that rotates both secrets: the same, for the new ones.
      const rotate = await call(own.url, 'POST', '/v1/merchant/register', {
        token: d.apiKey,
        headers: { 'idempotency-key': 'reg-2', 'x-merchant-token': secrets[0]! },
        body: { ...register, rotate_registration_token: true, rotate_webhook_secret: true },
      });
      expect(rotate.status, rotate.text).toBe(200);
      const rotated = [rotate.body.registration_token as string, rotate.body.webhook_secret as string];
      dump = JSON.stringify(await rows());
      for (const x of [...secrets, ...rotated]) expect(dump).not.toContain(x);
      const stored = await rows();
      expect(stored).toHaveLength(2);
      expect(stored.every((r) => r.response_sealed === sealed)).toBe(true);

      const replay = await call(own.url, 'POST', '/v1/merchant/register', {
        token: d.apiKey,
        headers: { 'idempotency-key': 'reg-1' },
        body: register,
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      return { first, replay };
    } finally {
      await agent.close();
      await own.close();
    }
  }

  it('with KEY_ENCRYPTION_KEY: sealed at rest, replayed whole', async () => {
    const { first, replay } = await registerTwice(true);
    expect(replay.body).toEqual(first.body);
  });

  it('without KEY_ENCRYPTION_KEY: the secrets are not kept; a replay answers null in their place', async () => {
    const { first, replay } = await registerTwice(false);
    expect(replay.body).toEqual({ ...first.body, registration_token: null, webhook_secret: null });
  });
});
