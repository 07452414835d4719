import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { answersWithin } from './helpers/deadline';
import { startTestApi, type TestApi } from './helpers/stack';
import { closedPort, startLoopback, type LoopbackServer } from './helpers/loopback';

let api: TestApi;
let base: string;
let dev: Onboarded;
let agent: LoopbackServer;

beforeAll(async () => {
  // Merchant agents here are loopback servers, so the private-endpoint guard is lifted (its own tests turn it on).
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true', HEALTH_PROBE_TIMEOUT_MS: '400' } });
  base = api.url;
  dev = await onboard(base);
  agent = await startLoopback((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
afterAll(async () => {
  await agent.close();
  await api.close();
});

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(base, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(base, 'GET', path, { token: dev.apiKey });

async function registerMerchant(extra: Record<string, unknown> = {}) {
  const merchant_id = uid('m');
  const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: `${agent.url}/hooks/intent`, ...extra });
  expect(res.status, res.text).toBe(200);
  return { merchant_id, token: res.body.registration_token as string, res };
}

const fullBody = {
  subscription_tags: ['running', 'shoes'],
  capabilities: ['quote', 'checkout'],
  regions: ['US', 'CA'],
  category_tags: ['footwear'],
  inventory_scope: [{ category: 'footwear', region: 'US', sku_count: 1200, in_stock_only: true }],
  protocol_version: 'gateway',
  a2a_capabilities: { streaming: false },
  metadata: { tier: 'gold' },
  workflow_context: {
    origin_workflow: 'shopify_checkout',
    accepted_intent_shapes: ['product_search', 'bundle'],
    required_context: ['budget', 'size'],
    proposal_response_sla_seconds: 30,
    checkout_modes: ['match_token_checkout', 'agentic_checkout'],
  },
  trust_evidence_policy: {
    community_proof_required: true,
    accepted_sources: ['community', 'reddit'],
    min_consensus_score: 0.7,
    contradiction_handling: 'flag',
  },
  agent_ready_profile: { destination_strategy: 'embedded_workflow', proposal_contract: 'committed', attribution_mode: 'match_token' },
};

describe('merchant register and lookup (docs/REGISTRIES.md)', () => {
  it('register returns created, a registration token and a whsec_ webhook secret once; lookup shows every record field', async () => {
    const { merchant_id, token, res } = await registerMerchant(fullBody);
    expect(res.body).toMatchObject({ status: 'registered', created: true, merchant_id });
    expect(token).toMatch(/^mrt_[A-Za-z0-9_-]{43}$/);
    expect(res.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body.merchant).toEqual({
      merchant_id,
      agent_endpoint: `${agent.url}/hooks/intent`,
      ...fullBody,
      // A gateway agent: nothing discovered, no seller credential; it takes orders as its modes say.
      protocol_profile: null,
      protocol_profile_fetched_at: null,
      has_seller_credential: false,
      sells_only_by_redirect: false,
      status: 'active',
      registered_at: expect.any(String),
      last_seen_at: null,
      deactivated_at: null,
    });

    const lookup = await get(`/v1/merchant/${merchant_id}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({ status: 'active', merchant: res.body.merchant });
    // Secrets never come back from lookup, and are not stored in the clear.
    expect(lookup.text).not.toContain(token);
    expect(lookup.text).not.toContain(res.body.webhook_secret);
    const row = await api.db.selectFrom('merchants').selectAll().where('merchant_id', '=', merchant_id).executeTakeFirstOrThrow();
    expect(row.token_hash).not.toContain(token);
    expect(row.webhook_secret_sealed).not.toContain(res.body.webhook_secret.slice(6));
    expect(row.registered_by_key_id).toBe(dev.keyId);
  });

  it('defaults: optional members absent come back empty', async () => {
    const { res } = await registerMerchant();
    expect(res.body.merchant).toMatchObject({
      subscription_tags: [],
      capabilities: [],
      regions: [],
      category_tags: [],
      inventory_scope: [],
      protocol_version: 'gateway',
      a2a_capabilities: {},
      metadata: {},
      workflow_context: {},
      trust_evidence_policy: {},
      agent_ready_profile: {},
    });
  });

  it('400 missing_fields names merchant_id and agent_endpoint', async () => {
    const none = await post('/v1/merchant/register', {});
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: 'missing_fields', fields: ['merchant_id', 'agent_endpoint'] });
    const noEndpoint = await post('/v1/merchant/register', { merchant_id: uid('m') });
    expect(noEndpoint.body).toMatchObject({ error: 'missing_fields', fields: ['agent_endpoint'] });
    const noBody = await call(base, 'POST', '/v1/merchant/register', { token: dev.apiKey });
    expect(noBody.status).toBe(400);
  });

  it('bad input is a 400 naming the field, and nothing is stored', async () => {
    const merchant_id = uid('m');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agent_endpoint: 'not a url' }, 'agent_endpoint'],
      [{ agent_endpoint: 'ftp://127.0.0.1/x' }, 'agent_endpoint'],
      [{ subscription_tags: 'running' }, 'subscription_tags'],
      [{ subscription_tags: ['x'.repeat(65)] }, 'subscription_tags.0'],
      [{ workflow_context: { origin_workflow: 'x', mood: 'happy' } }, 'workflow_context'],
      [{ workflow_context: { proposal_response_sla_seconds: -1 } }, 'workflow_context.proposal_response_sla_seconds'],
      [{ trust_evidence_policy: { min_consensus_score: 2 } }, 'trust_evidence_policy.min_consensus_score'],
      [{ agent_ready_profile: { proposal_contract: 'binding' } }, 'agent_ready_profile.proposal_contract'],
      [{ metadata: [1, 2] }, 'metadata'],
    ];
    for (const [extra, field] of cases) {
      const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: `${agent.url}/h`, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(['invalid_payload', 'invalid_endpoint']).toContain(res.body.error);
      expect(res.body.fields, JSON.stringify(extra)).toContain(field);
    }
    const tooLong = await post('/v1/merchant/register', { merchant_id: 'm'.repeat(129), agent_endpoint: `${agent.url}/h` });
    expect(tooLong.body).toMatchObject({ error: 'invalid_payload', fields: ['merchant_id'] });
    expect(
      await api.db.selectFrom('merchants').select('merchant_id').where('merchant_id', '=', merchant_id).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('an API key without the registry scope gets 403 insufficient_scope; no key gets 401', async () => {
    const narrow = await onboard(base, { scopes: ['recommend'] });
    const res = await call(base, 'POST', '/v1/merchant/register', {
      token: narrow.apiKey,
      body: { merchant_id: uid('m'), agent_endpoint: `${agent.url}/h` },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await call(base, 'GET', '/v1/merchant/anything')).status).toBe(401);
  });

  it('GET of an unknown merchant is 404 merchant_not_found', async () => {
    const res = await get(`/v1/merchant/${uid('nobody')}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('merchant_not_found');
  });
});

describe('re-register, heartbeat and deactivate with X-Merchant-Token', () => {
  it("re-register needs the merchant's own token; it updates (created:false) and keeps token and webhook secret", async () => {
    const a = await registerMerchant(fullBody);
    const b = await registerMerchant();
    const update = { merchant_id: a.merchant_id, agent_endpoint: `${agent.url}/v2`, subscription_tags: ['trail'] };

    const noToken = await post('/v1/merchant/register', update);
    expect(noToken.status).toBe(401);
    expect(noToken.body.error).toBe('missing_registration_token');
    const wrong = await post('/v1/merchant/register', update, { 'x-merchant-token': 'mrt_wrong' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe('invalid_registration_token');
    const othersToken = await post('/v1/merchant/register', update, { 'x-merchant-token': b.token });
    expect(othersToken.status).toBe(403);
    // The refused attempts changed nothing.
    expect((await get(`/v1/merchant/${a.merchant_id}`)).body.merchant).toEqual(a.res.body.merchant);

    const ok = await post('/v1/merchant/register', update, { 'x-merchant-token': a.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: 'updated',
      created: false,
      merchant_id: a.merchant_id,
      registration_token: a.token,
      webhook_secret: a.res.body.webhook_secret,
    });
    expect(ok.body.merchant).toMatchObject({
      agent_endpoint: `${agent.url}/v2`,
      subscription_tags: ['trail'],
      // Members the update did not send are kept.
      workflow_context: fullBody.workflow_context,
      registered_at: a.res.body.merchant.registered_at,
    });
  });

  it('rotate_webhook_secret issues a new secret; a secret sealed under a replaced KEY_ENCRYPTION_KEY is re-issued on re-register', async () => {
    const a = await registerMerchant();
    const same = { merchant_id: a.merchant_id, agent_endpoint: `${agent.url}/h` };
    const rotated = await post('/v1/merchant/register', { ...same, rotate_webhook_secret: true }, { 'x-merchant-token': a.token });
    expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook_secret).not.toBe(a.res.body.webhook_secret);
    const kept = await post('/v1/merchant/register', same, { 'x-merchant-token': a.token });
    expect(kept.body.webhook_secret).toBe(rotated.body.webhook_secret);

    const rekeyed = await startTestApi({
      withTemporal: false,
      env: { ALLOW_PRIVATE_ENDPOINTS: 'true', KEY_ENCRYPTION_KEY: 'b'.repeat(64) },
    });
    try {
      const res = await call(rekeyed.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: same,
        headers: { 'x-merchant-token': a.token },
      });
      expect(res.status).toBe(200);
      expect(res.body.webhook_secret).toMatch(/^whsec_/);
      expect(res.body.webhook_secret).not.toBe(rotated.body.webhook_secret);
    } finally {
      await rekeyed.close();
    }
  });

  it('rotate_registration_token: the new token works, the old one is refused from then on', async () => {
    const a = await registerMerchant();
    const rotated = await post(
      '/v1/merchant/register',
      { merchant_id: a.merchant_id, agent_endpoint: `${agent.url}/h`, rotate_registration_token: true },
      { 'x-merchant-token': a.token },
    );
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.registration_token;
    expect(fresh).toMatch(/^mrt_/);
    expect(fresh).not.toBe(a.token);
    expect(rotated.body.webhook_secret).toBe(a.res.body.webhook_secret);
    const hb = (token: string) => post('/v1/merchant/heartbeat', { merchant_id: a.merchant_id }, { 'x-merchant-token': token });
    expect((await hb(a.token)).status).toBe(403);
    expect((await hb(fresh)).status).toBe(200);
  });

  it("heartbeat: 401 without a token, 403 with a wrong one or another merchant's, 404 unknown merchant, else last_seen_at", async () => {
    const a = await registerMerchant();
    const b = await registerMerchant();
    const hb = (body: unknown, token?: string) => post('/v1/merchant/heartbeat', body, token ? { 'x-merchant-token': token } : {});

    expect((await hb({ merchant_id: a.merchant_id })).body.error).toBe('missing_registration_token');
    expect((await hb({ merchant_id: a.merchant_id })).status).toBe(401);
    expect((await hb({ merchant_id: a.merchant_id }, 'mrt_nope')).status).toBe(403);
    const crossed = await hb({ merchant_id: a.merchant_id }, b.token);
    expect(crossed.status).toBe(403);
    expect(crossed.body.error).toBe('invalid_registration_token');
    const unknown = await hb({ merchant_id: uid('ghost') }, a.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('merchant_not_found');
    const missing = await hb({}, a.token);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'missing_fields', fields: ['merchant_id'] });
    expect((await hb({ merchant_id: 42 }, a.token)).body).toMatchObject({ error: 'invalid_payload', fields: ['merchant_id'] });

    const ok = await hb({ merchant_id: a.merchant_id }, a.token);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('ok');
    expect(Date.parse(ok.body.merchant.last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await get(`/v1/merchant/${b.merchant_id}`)).body.merchant.last_seen_at).toBeNull();
  });

  it('deactivate: 401/403 as heartbeat; sets inactive and deactivated_at once; re-register reactivates', async () => {
    const a = await registerMerchant();
    const b = await registerMerchant();
    const deactivate = (id: string, token?: string) =>
      post(`/v1/merchant/${id}/deactivate`, undefined, token ? { 'x-merchant-token': token } : {});

    expect((await deactivate(a.merchant_id)).status).toBe(401);
    expect((await deactivate(a.merchant_id, b.token)).status).toBe(403);
    expect((await deactivate(uid('ghost'), a.token)).status).toBe(404);
    expect((await get(`/v1/merchant/${a.merchant_id}`)).body.merchant.status).toBe('active');

    const first = await deactivate(a.merchant_id, a.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'inactive', merchant: { status: 'inactive', deactivated_at: expect.any(String) } });
    const again = await deactivate(a.merchant_id, a.token);
    expect(again.body.merchant.deactivated_at).toBe(first.body.merchant.deactivated_at);
    expect((await get(`/v1/merchant/${a.merchant_id}`)).body.status).toBe('inactive');

    const back = await post(
      '/v1/merchant/register',
      { merchant_id: a.merchant_id, agent_endpoint: `${agent.url}/h` },
      { 'x-merchant-token': a.token },
    );
    expect(back.body.merchant).toMatchObject({ status: 'active', deactivated_at: null });
  });
});

describe('health probe (GET /v1/merchant/{id}/health)', () => {
  async function merchantAt(endpoint: string) {
    const merchant_id = uid('h');
    const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: endpoint });
    expect(res.status).toBe(200);
    return { merchant_id, token: res.body.registration_token as string };
  }
  const health = (id: string) => get(`/v1/merchant/${id}/health`);

  it('200 healthy with latency and checked_at for a 2xx agent, and for a POST-only agent answering 405', async () => {
    const m = await merchantAt(`${agent.url}/hooks`);
    const res = await health(m.merchant_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ merchant_id: m.merchant_id, status: 'healthy', http_status: 200 });
    expect(res.body.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(res.body.checked_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(agent.requests.at(-1)).toMatchObject({ method: 'GET', path: '/hooks' });

    const postOnly = await startLoopback((req, res) => {
      res.writeHead(405, { allow: 'POST' });
      res.end();
    });
    try {
      const res405 = await health((await merchantAt(`${postOnly.url}/webhook`)).merchant_id);
      expect(res405.status).toBe(200);
      expect(res405.body.http_status).toBe(405);
    } finally {
      await postOnly.close();
    }

    // A status page with a large body is still just "up": the probe reads the status line only.
    const bigPage = await startLoopback((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('x'.repeat(2 * 1024 * 1024));
    });
    try {
      expect((await health((await merchantAt(`${bigPage.url}/`)).merchant_id)).status).toBe(200);
    } finally {
      await bigPage.close();
    }
  });

  it('503 bad_status for a 500 and for a redirect', async () => {
    const failing = await startLoopback((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { location: 'https://elsewhere.example/' });
        return res.end();
      }
      res.writeHead(500);
      res.end('boom');
    });
    try {
      const res = await health((await merchantAt(`${failing.url}/hooks`)).merchant_id);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'merchant_unhealthy', status: 'unhealthy', reason: 'bad_status', http_status: 500 });
      const moved = await health((await merchantAt(`${failing.url}/moved`)).merchant_id);
      expect(moved.body).toMatchObject({ reason: 'bad_status', http_status: 302 });
    } finally {
      await failing.close();
    }
  });

  it('503 timeout for an agent that hangs past the probe deadline', async () => {
    const hanging = await startLoopback(() => {
      /* never answers */
    });
    try {
      const { merchant_id } = await merchantAt(`${hanging.url}/slow`);
      // The probe's deadline (HEALTH_PROBE_TIMEOUT_MS, 400 ms here) ends it: an answer missing long
      // after that means the probe waited on the agent.
      const res = await answersWithin('the probe of an agent that never answers', health(merchant_id), 30_000);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'unhealthy', reason: 'timeout', latency_ms: null });
    } finally {
      await hanging.close();
    }
  });

  it('503 unreachable for a closed port, 503 inactive for a deactivated merchant, 404 for an unknown one', async () => {
    const closed = await health((await merchantAt(`http://127.0.0.1:${await closedPort()}/hooks`)).merchant_id);
    expect(closed.status).toBe(503);
    expect(closed.body.reason).toBe('unreachable');
    expect(closed.body.message).toMatch(/ECONNREFUSED/);

    const m = await merchantAt(`${agent.url}/hooks`);
    await post(`/v1/merchant/${m.merchant_id}/deactivate`, undefined, { 'x-merchant-token': m.token });
    const before = agent.requests.length;
    const inactive = await health(m.merchant_id);
    expect(inactive.status).toBe(503);
    expect(inactive.body.reason).toBe('inactive');
    expect(agent.requests.length).toBe(before);

    const unknown = await health(uid('ghost'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('merchant_not_found');
  });

  it('every probe result is stored', async () => {
    const m = await merchantAt(`${agent.url}/hooks`);
    await health(m.merchant_id);
    await post(`/v1/merchant/${m.merchant_id}/deactivate`, undefined, { 'x-merchant-token': m.token });
    await health(m.merchant_id);
    const rows = await api.db
      .selectFrom('merchant_health_probes')
      .selectAll()
      .where('merchant_id', '=', m.merchant_id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.healthy, r.reason, r.http_status])).toEqual([
      [true, null, 200],
      [false, 'inactive', null],
    ]);
    expect(rows[0]!.endpoint).toBe(`${agent.url}/hooks`);
  });
});

describe('agent readiness', () => {
  const readiness = async (extra: Record<string, unknown>) => {
    const { merchant_id } = await registerMerchant(extra);
    const res = await get(`/v1/merchant/${merchant_id}/agent-readiness`);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('scores 0, 25, 75 and 100 from the four checks, naming the most valuable missing one', async () => {
    const zero = await readiness({
      workflow_context: { origin_workflow: 'chat' },
      agent_ready_profile: { proposal_contract: 'indicative' },
    });
    expect(zero).toMatchObject({ kind: 'merchant_agent_readiness', score: 0, summary: { ready_for_embedded_workflows: false } });
    expect(zero.summary.next_upgrade).toMatch(/^committed_proposal_contract: /);
    expect(Object.values(zero.checks).map((c: any) => [c.passed, c.points, c.max_points])).toEqual(Array(4).fill([false, 0, 25]));
    expect(zero.checks.committed_proposal_contract.reason).toContain('"indicative"');

    const quarter = await readiness({ trust_evidence_policy: fullBody.trust_evidence_policy });
    expect(quarter.score).toBe(25);
    expect(quarter.checks.trust_evidence_policy.passed).toBe(true);
    expect(quarter.summary.insight).toBe(
      '1 of 4 checks pass; missing: committed_proposal_contract, match_token_attribution, workflow_context.',
    );

    const threeQuarters = await readiness({
      workflow_context: fullBody.workflow_context,
      trust_evidence_policy: fullBody.trust_evidence_policy,
      agent_ready_profile: { proposal_contract: 'committed', attribution_mode: 'utm' },
    });
    expect(threeQuarters.score).toBe(75);
    expect(threeQuarters.summary.next_upgrade).toMatch(/^match_token_attribution: .*"match_token"/);

    const full = await readiness(fullBody);
    expect(full.score).toBe(100);
    expect(full.summary).toMatchObject({ ready_for_embedded_workflows: true, next_upgrade: 'none' });
    expect(full.merchant.merchant_id).toBe(full.merchant_id);
  });

  it('404 merchant_not_found for an unknown merchant', async () => {
    const res = await get(`/v1/merchant/${uid('ghost')}/agent-readiness`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('merchant_not_found');
  });
});
