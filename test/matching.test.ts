import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJWK, jwtVerify, type JWK } from 'jose';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { expireDueProposals } from '../src/matching/proposals';
import { renderMatchSessionBody } from '../src/matching/session-render';
import { SYSTEM } from '../src/tenancy';
import { createDb } from '../src/db/connect';

let api: TestApi;
let base: string;
let dev: Onboarded;
let products: Array<{ product_id: number; price_cents: number }>;

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(base, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(base, 'GET', path, { token: dev.apiKey });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function merchant(extra: Record<string, unknown> = {}) {
  const merchant_id = uid('mer');
  const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: 'http://127.0.0.1:9/hook', ...extra });
  expect(res.status).toBe(200);
  return { id: merchant_id, token: res.body.registration_token as string };
}

async function intent(body: Record<string, unknown> = {}) {
  const res = await post('/v1/intents', { raw_query: 'trail running shoes under $150', ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.intent;
}

async function propose(m: { id: string; token: string }, intentId: string, body: Record<string, unknown> = {}) {
  const p = products[0]!;
  const res = await post(
    '/v1/proposals',
    {
      merchant_agent_id: m.id,
      intent_id: intentId,
      product_id: p.product_id,
      offer_title: 'Trail runner',
      price: p.price_cents / 100,
      ...body,
    },
    { 'x-merchant-token': m.token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.proposal;
}

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  base = api.url;
  dev = await onboard(base);
  products = await api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('inventory_qty', '>', 20)
    .orderBy('product_id')
    .limit(5)
    .execute();
  expect(products.length).toBe(5);
});
afterAll(() => api.close());

describe('intents (docs/MATCHING.md)', () => {
  it('reads budget, region and tags from the text when not given, and says so', async () => {
    const i = await intent({ raw_query: 'Waterproof trail running shoes under $120, shipped to Canada!' });
    expect(i).toMatchObject({
      normalized_query: 'waterproof trail running shoes under $120 shipped to canada',
      budget_range: { min: null, max: 120, currency: 'USD' },
      region: 'CA',
      resolution_source: 'gateway_parser',
    });
    expect(i.intent_tags).toEqual(['waterproof', 'trail', 'running', 'shoes']);
    expect(i.resolution_summary).toMatch(/budget from "under \$120".*region CA/);
  });

  it('explicit fields win and every 2.3 field round-trips through GET', async () => {
    const body = {
      raw_query: 'a gift for my dad around $50',
      intent_tags: ['Gift', 'dad'],
      target_audience: 'father, 60s',
      budget_range: { min: 30, max: 80, currency: 'eur' },
      region: 'de',
      constraints: ['no leather'],
      source_channel: 'chat',
      metadata: { session: 'abc' },
      time_window: { deadline: '2027-01-05T00:00:00Z', urgency: 'soon' },
      asset_refs: [{ type: 'image', url: 'https://img.example/dad.jpg' }],
      attribution_chain: [{ agent_id: 'shopper-1', role: 'buyer_agent', channel: 'a2a' }],
      workflow: { skill: 'gift-finder', a2a_task_id: 'task-9' },
      experience_context: { scene: 'birthday dinner', desired_feeling: 'appreciated', visual_constraints: ['muted colours'] },
    };
    const created = await post('/v1/intents', body);
    expect(created.status).toBe(201);
    const i = created.body.intent;
    expect(i).toMatchObject({
      intent_tags: ['gift', 'dad'],
      budget_range: { min: 30, max: 80, currency: 'EUR' },
      region: 'DE',
      resolution_source: 'explicit',
      constraints: ['no leather'],
      time_window: body.time_window,
      asset_refs: body.asset_refs,
      attribution_chain: body.attribution_chain,
      workflow: body.workflow,
      experience_context: body.experience_context,
      metadata: body.metadata,
    });
    expect(i.intent_id).toMatch(/^int_/);
    const fetched = await get(`/v1/intents/${i.intent_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ intent: i });
  });

  it('400 missing_fields without raw_query; 400 invalid_payload naming the field; 404 intent_not_found', async () => {
    const missing = await post('/v1/intents', { region: 'US' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'missing_fields', fields: ['raw_query'] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ budget_range: { min: 90, max: 10 } }, 'budget_range.min'],
      [{ budget_range: { max: 10, cap: 2 } }, 'budget_range'],
      [{ region: 'Canada' }, 'region'],
      [{ time_window: { deadline: 'tomorrow' } }, 'time_window.deadline'],
      [{ intent_tags: 'shoes' }, 'intent_tags'],
      [{ raw_query: 'x'.repeat(2001) }, 'raw_query'],
    ];
    for (const [extra, field] of cases) {
      const res = await post('/v1/intents', { raw_query: 'shoes', ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error).toBe('invalid_payload');
      expect(res.body.fields, JSON.stringify(res.body)).toContain(field);
    }
    const none = await get('/v1/intents/int_nothing');
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('intent_not_found');
  });
});

describe('proposals (docs/MATCHING.md)', () => {
  it('submit freezes the product, computes a trust score with its basis, and starts quoted', async () => {
    const m = await merchant({ agent_ready_profile: { proposal_contract: 'committed', attribution_mode: 'match_token' } });
    const i = await intent();
    const p = await propose(m, i.intent_id, {
      evidence: [{ type: 'review', source: 'community', score: 0.9 }],
      shipping_commitment: { max_days: 3, free: true },
    });
    expect(p).toMatchObject({
      merchant_agent_id: m.id,
      intent_id: i.intent_id,
      product_id: products[0]!.product_id,
      proposal_state: 'quoted',
      status: 'active',
      inventory_status: 'in_stock',
      currency: 'USD',
      provenance: 'merchant_agent',
    });
    expect(p.product_snapshot).toMatchObject({ id: String(products[0]!.product_id), catalog_price: products[0]!.price_cents / 100 });
    expect(p.trust_score.basis.price_sanity).toMatchObject({ value: 1, ratio_to_catalog: 1 });
    expect(p.trust_score.basis.merchant.readiness_score).toBe(50);
    expect(p.trust_score.score).toBeGreaterThan(0);
    expect((await get(`/v1/proposals/${p.proposal_id}`)).body).toEqual({ proposal: p });

    const pricey = await propose(m, i.intent_id, { price: (products[0]!.price_cents / 100) * 1.9 });
    expect(pricey.trust_score.basis.price_sanity.value).toBeLessThan(0.2);
    expect(pricey.trust_score.score).toBeLessThan(p.trust_score.score);
  });

  it("401 without X-Merchant-Token, 403 with a wrong or another merchant's token, 404 for unknown merchant, intent or product", async () => {
    const a = await merchant();
    const b = await merchant();
    const i = await intent();
    const body = { merchant_agent_id: a.id, intent_id: i.intent_id, product_id: products[1]!.product_id, offer_title: 'x', price: 10 };
    const noToken = await post('/v1/proposals', body);
    expect(noToken.status).toBe(401);
    expect(noToken.body.error).toBe('missing_registration_token');
    expect((await post('/v1/proposals', body, { 'x-merchant-token': 'mrt_bad' })).status).toBe(403);
    const crossed = await post('/v1/proposals', body, { 'x-merchant-token': b.token });
    expect(crossed.status).toBe(403);
    expect(crossed.body.error).toBe('invalid_registration_token');
    const ghost = await post('/v1/proposals', { ...body, merchant_agent_id: uid('ghost') }, { 'x-merchant-token': a.token });
    expect(ghost.status).toBe(404);
    expect(ghost.body.error).toBe('merchant_not_found');
    const noIntent = await post('/v1/proposals', { ...body, intent_id: 'int_nothing' }, { 'x-merchant-token': a.token });
    expect(noIntent.status).toBe(404);
    expect(noIntent.body.error).toBe('intent_not_found');
    const noProduct = await post('/v1/proposals', { ...body, product_id: 99_999_999 }, { 'x-merchant-token': a.token });
    expect(noProduct.status).toBe(404);
    expect(noProduct.body.error).toBe('product_not_found');
    const missing = await post('/v1/proposals', { merchant_agent_id: a.id, intent_id: i.intent_id }, { 'x-merchant-token': a.token });
    expect(missing.body).toMatchObject({ error: 'missing_fields', fields: ['offer_title', 'price'] });
    const badPrice = await post('/v1/proposals', { ...body, price: -3 }, { 'x-merchant-token': a.token });
    expect(badPrice.body).toMatchObject({ error: 'invalid_payload', fields: ['price'] });
    // Money below the currency's minor unit rounds to nothing: refused, not stored as a free offer.
    for (const tiny of [{ price: 5e-324 }, { price: 0.004 }, { price: 0.4, currency: 'JPY' }]) {
      const res = await post('/v1/proposals', { ...body, ...tiny }, { 'x-merchant-token': a.token });
      expect(res.status, JSON.stringify(tiny)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_payload', fields: ['price'] });
    }
    expect((await get(`/v1/intents/${i.intent_id}/proposals`)).body.count).toBe(0);

    await post(`/v1/merchant/${a.id}/deactivate`, undefined, { 'x-merchant-token': a.token });
    const inactive = await post('/v1/proposals', body, { 'x-merchant-token': a.token });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error).toBe('merchant_inactive');
    const none = await get('/v1/proposals/prop_nothing');
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('proposal_not_found');
  });

  it('expired proposals leave the list unless include_expired=true; expiry is applied on read and by the sweep, with a transition recorded', async () => {
    const m = await merchant();
    const i = await intent();
    const lasting = await propose(m, i.intent_id);
    const shortLived = await propose(m, i.intent_id, { valid_until: new Date(Date.now() + 1200).toISOString() });
    const swept = await propose(m, i.intent_id, { valid_until: new Date(Date.now() + 1200).toISOString() });
    const readAlone = await propose(m, i.intent_id, { valid_until: new Date(Date.now() + 1200).toISOString() });
    expect((await get(`/v1/intents/${i.intent_id}/proposals`)).body.count).toBe(4);
    expect((await get(`/v1/proposals/${readAlone.proposal_id}`)).body.proposal).toMatchObject({ proposal_state: 'quoted' });
    await sleep(1500);

    // The sweep expires rows nobody has read.
    expect(await expireDueProposals(api.db, { proposalIds: [swept.proposal_id] })).toBe(1);
    // Reading one proposal expires it (before any list read does).
    expect((await get(`/v1/proposals/${readAlone.proposal_id}`)).body.proposal).toMatchObject({
      proposal_state: 'expired',
      status: 'expired',
    });
    const list = await get(`/v1/intents/${i.intent_id}/proposals`);
    expect(list.body).toMatchObject({ intent_id: i.intent_id, count: 1, proposals: [{ proposal_id: lasting.proposal_id }] });
    const all = await get(`/v1/intents/${i.intent_id}/proposals?include_expired=true`);
    expect(all.body.count).toBe(4);
    expect(all.body.proposals.find((p: any) => p.proposal_id === shortLived.proposal_id)).toMatchObject({
      proposal_state: 'expired',
      status: 'expired',
    });
    const history = await api.db
      .selectFrom('proposal_transitions')
      .select(['from_state', 'to_state', 'reason'])
      .where('proposal_id', 'in', [shortLived.proposal_id, readAlone.proposal_id])
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { from_state: 'none', to_state: 'quoted', reason: 'submitted' },
      { from_state: 'none', to_state: 'quoted', reason: 'submitted' },
      { from_state: 'quoted', to_state: 'expired', reason: 'valid_until passed' },
      { from_state: 'quoted', to_state: 'expired', reason: 'valid_until passed' },
    ]);
    expect((await get(`/v1/intents/${i.intent_id}/proposals?include_expired=maybe`)).status).toBe(400);
    expect((await get('/v1/intents/int_nothing/proposals')).body.error).toBe('intent_not_found');
    const past = await post(
      '/v1/proposals',
      {
        merchant_agent_id: m.id,
        intent_id: i.intent_id,
        product_id: products[0]!.product_id,
        offer_title: 'x',
        price: 5,
        valid_until: '2020-01-01T00:00:00Z',
      },
      { 'x-merchant-token': m.token },
    );
    expect(past.body).toMatchObject({ error: 'invalid_payload', fields: ['valid_until'] });
  });
});

async function rankedSession() {
  const good = await merchant({ agent_ready_profile: { proposal_contract: 'committed', attribution_mode: 'match_token' } });
  const plain = await merchant();
  const i = await intent({ raw_query: 'trail running shoes', budget_range: { max: (products[0]!.price_cents / 100) * 1.2 } });
  const best = await propose(good, i.intent_id, {
    shipping_commitment: { max_days: 2, free: true },
    evidence: [{ type: 'review', score: 0.95 }],
    commission_plan: { model: 'cps', rate: 0.1 },
  });
  const slow = await propose(plain, i.intent_id, { shipping_commitment: { max_days: 12 } });
  const over = await propose(plain, i.intent_id, { price: (products[0]!.price_cents / 100) * 1.5, inventory_status: 'out_of_stock' });
  const draft = await propose(plain, i.intent_id, { proposal_state: 'draft' });
  const res = await post('/v1/match', { intent_id: i.intent_id });
  expect(res.status, res.text).toBe(201);
  return { intent: i, session: res.body.match_session, best, slow, over, draft, good, plain };
}

describe('match sessions (docs/MATCHING.md)', () => {
  it('ranks active quotes with a per-proposal breakdown and an explained summary; drafts are excluded', async () => {
    const { session, best, slow, over, draft } = await rankedSession();
    expect(session).toMatchObject({ status: 'open', best_proposal_id: best.proposal_id });
    expect(session.ranked_proposals.map((r: any) => r.proposal_id)).toEqual([best.proposal_id, slow.proposal_id, over.proposal_id]);
    expect(session.ranked_proposals.map((r: any) => r.rank)).toEqual([1, 2, 3]);
    const top = session.ranked_proposals[0];
    expect(Object.keys(top.breakdown).sort()).toEqual(['commission', 'evidence', 'inventory', 'price_fit', 'shipping', 'trust']);
    const total = Object.values(top.breakdown).reduce((s: number, b: any) => s + b.contribution, 0);
    expect(top.score).toBeCloseTo(total, 3);
    expect(session.ranked_proposals[2].breakdown.price_fit.reason).toMatch(/over the budget/);
    expect(session.ranked_proposals[2].breakdown.inventory).toMatchObject({ value: 0, reason: 'out_of_stock' });
    expect(session.summary).toMatchObject({
      candidates: 4,
      ranked: 3,
      excluded: [{ proposal_id: draft.proposal_id, reason: 'proposal_state draft' }],
      best_proposal_id: best.proposal_id,
    });
    expect(session.summary.explanation).toContain(best.proposal_id);
  });

  it('ranking is deterministic: the same proposals rank identically in a new session', async () => {
    const { intent: i, session } = await rankedSession();
    const again = await post('/v1/match', { intent_id: i.intent_id });
    expect(again.body.match_session.ranked_proposals).toEqual(session.ranked_proposals);
    const subset = await post('/v1/match', {
      intent_id: i.intent_id,
      proposal_ids: [session.ranked_proposals[2].proposal_id, session.ranked_proposals[1].proposal_id],
    });
    expect(subset.body.match_session.ranked_proposals.map((r: any) => r.proposal_id)).toEqual([
      session.ranked_proposals[1].proposal_id,
      session.ranked_proposals[2].proposal_id,
    ]);
  });

  it("400 missing_fields, 404 intent_not_found, 404 proposal_not_found (unknown or another intent's)", async () => {
    const missing = await post('/v1/match', {});
    expect(missing.body).toMatchObject({ error: 'missing_fields', fields: ['intent_id'] });
    expect((await post('/v1/match', { intent_id: 'int_nothing' })).body.error).toBe('intent_not_found');
    const a = await rankedSession();
    const b = await rankedSession();
    const foreign = await post('/v1/match', { intent_id: a.intent.intent_id, proposal_ids: [b.best.proposal_id] });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'proposal_not_found', proposal_ids: [b.best.proposal_id] });
    expect((await post('/v1/match', { intent_id: a.intent.intent_id, proposal_ids: ['prop_nothing'] })).body.error).toBe(
      'proposal_not_found',
    );
  });

  it('GET renders the session, its top `limit` proposals, tokens and a PCD per proposal; 404 match_not_found', async () => {
    const { session } = await rankedSession();
    const res = await get(`/v1/match/${session.match_session_id}?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.match_session.match_session_id).toBe(session.match_session_id);
    expect(res.body.ranked_proposals).toHaveLength(2);
    expect(res.body.match_tokens).toEqual([]);
    expect(res.body.items).toHaveLength(1); // all three offers are for the same product
    const card = res.body.items[0];
    expect(card).toMatchObject({ product: { id: String(products[0]!.product_id) }, channel: 'match' });
    expect(card.rec_id).toMatch(/^rec_/);
    expect(card.cta.primary.url).toContain(`/r/${card.rec_id}`);
    expect((await get(`/v1/match/${session.match_session_id}?limit=2`)).body.items[0]).toEqual(card);
    // The card was issued with the session: its rec_id is found and its CTA redirects.
    expect((await get(`/v1/cards/${card.rec_id}`)).body).toEqual(card);
    expect((await call(base, 'GET', `/r/${card.rec_id}`)).status).toBe(302);
    expect((await get(`/v1/match/${session.match_session_id}?limit=11`)).status).toBe(400);
    expect((await get(`/v1/match/${session.match_session_id}?limit=0`)).status).toBe(400);
    const none = await get('/v1/match/ms_nothing');
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('match_not_found');
  });
});

describe('match tokens and payment authorization', () => {
  async function jwksKey(kid: string) {
    const jwks = (await call(base, 'GET', '/.well-known/jwks.json')).body as { keys: JWK[] };
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    return importJWK(jwk, jwk.alg);
  }

  it('accept mints a signed token for the best proposal; accepting again returns the same token', async () => {
    const { session, best, intent: i } = await rankedSession();
    const sid = session.match_session_id;
    // Rendered once before accepting: what the API process keeps of it must not hide what changes.
    expect((await get(`/v1/match/${sid}`)).body).toMatchObject({ match_session: { status: 'open' }, match_tokens: [] });
    expect((await call(base, 'POST', `/v1/match/${sid}/accept`, { token: dev.apiKey })).status).toBe(400); // body required
    const res = await post(`/v1/match/${sid}/accept`, {});
    expect(res.status, res.text).toBe(200);
    const t = res.body.match_token;
    expect(t).toMatchObject({
      match_session_id: sid,
      intent_id: i.intent_id,
      proposal_id: best.proposal_id,
      acceptance_state: 'accepted',
      amount: best.price,
      currency: 'USD',
    });
    expect(Date.parse(t.expires_at) - Date.parse(t.issued_at)).toBe(1800 * 1000);
    expect(t.intent_snapshot.intent_id).toBe(i.intent_id);
    expect(t.proposal_snapshot).toMatchObject({ proposal_id: best.proposal_id, proposal_state: 'pending_confirmation' });
    expect(t.ranking_snapshot).toMatchObject({ rank: 1, proposal_id: best.proposal_id, ranked_count: 3 });
    expect(t.trace_ids).toMatchObject({ match_session_id: sid, api_key_id: dev.keyId, request_id: expect.stringMatching(/^req_/) });

    const header = JSON.parse(Buffer.from(t.signed_token.split('.')[0], 'base64url').toString());
    const { payload } = await jwtVerify(t.signed_token, await jwksKey(header.kid), { issuer: api.config.publicBaseUrl });
    expect(payload).toMatchObject({
      jti: t.match_token_id,
      sid,
      intent_id: i.intent_id,
      proposal_id: best.proposal_id,
      amount: best.price,
      currency: 'USD',
      exp: Math.floor(Date.parse(t.expires_at) / 1000),
    });

    const again = await post(`/v1/match/${sid}/accept`, { proposal_id: best.proposal_id });
    expect(again.body.match_token.match_token_id).toBe(t.match_token_id);
    const confirm = await post(`/v1/match/${sid}/accept`, { match_token_id: t.match_token_id });
    expect(confirm.body.match_token.match_token_id).toBe(t.match_token_id);
    expect((await get(`/v1/proposals/${best.proposal_id}`)).body.proposal.proposal_state).toBe('pending_confirmation');
    const rendered = (await get(`/v1/match/${sid}`)).body;
    expect(rendered.match_session.status).toBe('accepted');
    // The rendered session carries the token exactly as the token endpoint shows it.
    expect(rendered.match_tokens).toEqual([{ ...t, acceptance_state: 'accepted', accepted_at: confirm.body.match_token.accepted_at }]);
    expect((await get(`/v1/match-tokens/${t.match_token_id}`)).body).toEqual({ match_token: rendered.match_tokens[0] });
  });

  it('GET serves as JSON text exactly the rendered body, on the first read and from the kept top, for each cut', async () => {
    const { session } = await rankedSession();
    const sid = session.match_session_id;
    await post(`/v1/match/${sid}/accept`, {});
    for (const limit of [2, 3, 1, 2, 10]) {
      const res = await get(`/v1/match/${sid}?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // The reference reads everything from the database (no process cache), as the MCP tool may.
      expect(res.body).toEqual(await renderMatchSessionBody(api.db, sid, limit, SYSTEM));
      expect(res.body.match_tokens).toHaveLength(1);
    }
  });

  it('accepts at once on a pool of two connections all answer: an accept never waits for a second connection while holding one', async () => {
    const sessions = await Promise.all(Array.from({ length: 4 }, () => rankedSession()));
    const db = createDb(api.config.DATABASE_URL!, { max: 2 });
    const small = await startTestApi({ withTemporal: false, db });
    try {
      const accepts = await Promise.all(
        sessions.map(({ session }) =>
          call(small.url, 'POST', `/v1/match/${session.match_session_id}/accept`, { token: dev.apiKey, body: {} }),
        ),
      );
      expect(accepts.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    } finally {
      await small.close();
      await db.destroy();
    }
  });

  it('accept errors: 404 match_not_found, proposal_not_found, match_token_not_found; 409 for a proposal outside the session', async () => {
    const { session } = await rankedSession();
    const other = await rankedSession();
    const sid = session.match_session_id;
    expect((await post('/v1/match/ms_nothing/accept', {})).body.error).toBe('match_not_found');
    expect((await post(`/v1/match/${sid}/accept`, { proposal_id: 'prop_nothing' })).body.error).toBe('proposal_not_found');
    const outside = await post(`/v1/match/${sid}/accept`, { proposal_id: other.best.proposal_id });
    expect(outside.status).toBe(409);
    expect(outside.body.error).toBe('proposal_not_in_session');
    const draft = await post(`/v1/match/${sid}/accept`, { proposal_id: session.summary.excluded[0].proposal_id });
    expect(draft.body.error).toBe('proposal_not_in_session');
    expect((await post(`/v1/match/${sid}/accept`, { match_token_id: 'mt_nothing' })).body.error).toBe('match_token_not_found');
    const none = await get('/v1/match-tokens/mt_nothing');
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('match_token_not_found');
  });

  it('payment authorization: 200 once every check holds, idempotent; token → payment_authorized, proposal → accepted', async () => {
    const { session, best } = await rankedSession();
    const t = (await post(`/v1/match/${session.match_session_id}/accept`, {})).body.match_token;
    const path = `/v1/match-tokens/${t.match_token_id}/payment-authorization`;
    const ok = await post(path, { expected_amount: best.price, currency: 'usd', proposal_id: best.proposal_id });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.payment_authorization).toMatchObject({
      status: 'authorized',
      match_token_id: t.match_token_id,
      proposal_id: best.proposal_id,
      amount: best.price,
      currency: 'USD',
    });
    expect(ok.body.match_token.acceptance_state).toBe('payment_authorized');
    expect((await get(`/v1/proposals/${best.proposal_id}`)).body.proposal.proposal_state).toBe('accepted');
    const twice = await call(base, 'POST', path, { token: dev.apiKey });
    expect(twice.status).toBe(200);
    expect(twice.body.payment_authorization.authorization_id).toBe(ok.body.payment_authorization.authorization_id);
    const changed = await post(path, { expected_amount: best.price + 1 });
    expect(changed.body.error).toBe('amount_mismatch');
  });

  it('payment authorization answers 409 with the failing check', async () => {
    const expectConflict = async (path: string, body: unknown, code: string) => {
      const res = await post(path, body);
      expect(res.status, `${code}: ${res.text}`).toBe(409);
      expect(res.body.error).toBe(code);
    };
    const { session, best, slow } = await rankedSession();
    const t = (await post(`/v1/match/${session.match_session_id}/accept`, {})).body.match_token;
    const path = `/v1/match-tokens/${t.match_token_id}/payment-authorization`;
    await expectConflict('/v1/match-tokens/mt_nothing/payment-authorization', {}, 'match_token_invalid');
    await expectConflict(path, { expected_amount: best.price + 0.01 }, 'amount_mismatch');
    await expectConflict(path, { currency: 'EUR' }, 'currency_mismatch');
    await expectConflict(path, { proposal_id: slow.proposal_id }, 'proposal_mismatch');

    // A token whose checkout already consumed it.
    await api.db.updateTable('match_tokens').set({ acceptance_state: 'consumed' }).where('match_token_id', '=', t.match_token_id).execute();
    await expectConflict(path, {}, 'acceptance_state_invalid');

    // Two sessions over one proposal: once one token pays, the proposal is no longer pending for the other.
    const first = (await post(`/v1/match/${session.match_session_id}/accept`, { proposal_id: slow.proposal_id })).body.match_token;
    const second = await post('/v1/match', { intent_id: session.intent_id, proposal_ids: [slow.proposal_id] });
    const other = (await post(`/v1/match/${second.body.match_session.match_session_id}/accept`, {})).body.match_token;
    expect((await post(`/v1/match-tokens/${first.match_token_id}/payment-authorization`, {})).status).toBe(200);
    await expectConflict(`/v1/match-tokens/${other.match_token_id}/payment-authorization`, {}, 'proposal_state_invalid');

    // A proposal whose validity ends after the token was minted.
    const m = await merchant();
    const i = await intent();
    const brief = await propose(m, i.intent_id, { valid_until: new Date(Date.now() + 1500).toISOString() });
    const s = (await post('/v1/match', { intent_id: i.intent_id })).body.match_session;
    const bt = (await post(`/v1/match/${s.match_session_id}/accept`, { proposal_id: brief.proposal_id })).body.match_token;
    await sleep(1700);
    await expectConflict(`/v1/match-tokens/${bt.match_token_id}/payment-authorization`, {}, 'proposal_expired');
    const late = await post(`/v1/match/${s.match_session_id}/accept`, { proposal_id: brief.proposal_id });
    expect(late.body.match_token.match_token_id).toBe(bt.match_token_id); // the live token, not a new one for an expired offer
  });

  it('tokens expire after MATCH_TOKEN_TTL_S: GET shows expired, payment is 409 match_token_expired, accepting again mints a new token', async () => {
    const shortLived = await startTestApi({
      withTemporal: false,
      db: api.db,
      env: { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_TTL_S: '1' },
    });
    try {
      const { session } = await rankedSession();
      const accept = () => call(shortLived.url, 'POST', `/v1/match/${session.match_session_id}/accept`, { token: dev.apiKey, body: {} });
      const t = (await accept()).body.match_token;
      expect(Date.parse(t.expires_at) - Date.parse(t.issued_at)).toBe(1000);
      await sleep(1300);
      expect((await get(`/v1/match-tokens/${t.match_token_id}`)).body.match_token.acceptance_state).toBe('expired');
      const pay = await post(`/v1/match-tokens/${t.match_token_id}/payment-authorization`, {});
      expect(pay.status).toBe(409);
      expect(pay.body.error).toBe('match_token_expired');
      const renewed = (await accept()).body.match_token;
      expect(renewed.match_token_id).not.toBe(t.match_token_id);
      expect(renewed.acceptance_state).toBe('accepted');
      const confirmOld = await post(`/v1/match/${session.match_session_id}/accept`, { match_token_id: t.match_token_id });
      expect(confirmOld.body.error).toBe('match_token_expired');
    } finally {
      await shortLived.close();
    }
  });
});
