import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCards } from '../src/recommend/issued-cards';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';

/**
 * Attribution report and settlement preview (docs/REPORTS.md) over a hand-built history.
 * Everything this file creates sits on its own channel and on two catalog products picked at random,
 * so concurrent files cannot move the numbers; every expected number is worked out by hand below.
 */

let api: TestApi;
let dev: Onboarded;
const uid = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
const channel = `attr-${uid}`;
const batch = `reports-test-${uid}`;
// Two distinct products from the top of the seeded range, which other files do not single out.
const P = 15_000 + Math.floor(Math.random() * 2_500);
const Q = P + 2_500;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);

const supply = { 'x-supply-key': TEST_SUPPLY_KEY };
const report = (qs: Record<string, string>) =>
  call(api.url, 'GET', `/v1/report/attribution?${new URLSearchParams(qs)}`, { headers: supply });
const preview = (body: unknown) => call(api.url, 'POST', '/v1/billing/settlement-preview', { headers: supply, body });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: dev.apiKey, body, headers });

let merchantId: string;
let merchantToken: string;
let tokenId: string;
const rec: Record<'card1' | 'card2' | 'card3' | 'old', string> = { card1: '', card2: '', card3: '', old: '' };

async function order(o: {
  order_id: string;
  rec_id?: string;
  match_token_id?: string;
  product_id?: number;
  amount_cents: number;
  currency?: string;
  commission_cents?: number;
  status?: 'completed' | 'refunded';
  ordered_at?: Date;
}) {
  await api.db
    .insertInto('affiliate_orders')
    .values({
      currency: 'USD',
      status: 'completed',
      ordered_at: minutesAgo(1),
      ...o,
      order_id: `${uid}-${o.order_id}`,
      import_batch: batch,
    })
    .execute();
}

beforeAll(async () => {
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);

  // Impressions on our channel: P twice, Q once, and one P card from before the window.
  const issue = async (productId: number) =>
    (await issueCards(api.db, [productId], { publicBaseUrl: api.config.publicBaseUrl, channel, source: 'recommend' }))[0]!.rec_id;
  [rec.card1, rec.card2, rec.card3, rec.old] = [await issue(P), await issue(P), await issue(Q), await issue(P)];
  await api.db
    .updateTable('rec_cards')
    .set({ created_at: daysAgo(40) })
    .where('rec_id', '=', rec.old)
    .execute();

  // Clicks through the real redirect: card1 twice, card3 once.
  for (const r of [rec.card1, rec.card1, rec.card3]) {
    const res = await call(api.url, 'GET', `/r/${r}`);
    expect(res.status, res.text).toBe(302);
  }

  // merchant → intent on our channel → proposal for P (10 % commission) → match → accept → authorize.
  merchantId = `mer-rep-${uid}`;
  const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: 'http://127.0.0.1:9/agent' });
  expect(reg.status, reg.text).toBe(200);
  merchantToken = reg.body.registration_token;
  const intent = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking', source_channel: channel });
  expect(intent.status, intent.text).toBe(201);
  const intentId = intent.body.intent.intent_id;
  const proposal = await post(
    '/v1/proposals',
    {
      merchant_agent_id: merchantId,
      intent_id: intentId,
      product_id: P,
      offer_title: 'Trail bottle',
      price: 20,
      commission_plan: { rate: 0.1 },
    },
    { 'x-merchant-token': reg.body.registration_token },
  );
  expect(proposal.status, proposal.text).toBe(201);
  const proposalId = proposal.body.proposal.proposal_id;
  const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
  expect(session.status, session.text).toBe(201);
  const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  expect(accept.status, accept.text).toBe(200);
  tokenId = accept.body.match_token.match_token_id;
  const auth = await post(`/v1/match-tokens/${tokenId}/payment-authorization`, { proposal_id: proposalId });
  expect(auth.status, auth.text).toBe(200);

  await order({ order_id: 'o1', rec_id: rec.card1, amount_cents: 5000, commission_cents: 400 }); // P, reported commission
  await order({ order_id: 'o2', match_token_id: tokenId, amount_cents: 2000 }); // P via token, plan 10 % → 200
  await order({ order_id: 'o3', rec_id: rec.card3, match_token_id: tokenId, amount_cents: 3000 }); // Q via card (once), token's plan → 300
  await order({ order_id: 'o4', rec_id: rec.card2, amount_cents: 9999, status: 'refunded' }); // excluded
  await order({ order_id: 'o5', rec_id: rec.card1, amount_cents: 1000, currency: 'EUR', commission_cents: 100 }); // P, EUR
  // Decoys: an unknown rec_id, a card issued before the window, an order from before the window.
  await order({ order_id: 'decoy-unknown', rec_id: `rec_unknown_${uid}`, product_id: P, amount_cents: 7777, commission_cents: 777 });
  await order({ order_id: 'decoy-old-card', rec_id: rec.old, product_id: P, amount_cents: 6666, commission_cents: 666 });
  await order({ order_id: 'decoy-old-order', rec_id: rec.card1, amount_cents: 5555, commission_cents: 555, ordered_at: daysAgo(40) });
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const usd = (orders: number, gmv: number, commission: number) => ({
  currency: 'USD',
  attributed_orders: orders,
  gmv_cents: gmv,
  gmv: gmv / 100,
  commission_cents: commission,
  commission: commission / 100,
  roi: Math.round((gmv / commission) * 10_000) / 10_000,
});
const eur = { currency: 'EUR', attributed_orders: 1, gmv_cents: 1000, gmv: 10, commission_cents: 100, commission: 1, roi: 10 };

describe('GET /v1/report/attribution', () => {
  it('joins cards, clicks, tokens, authorizations and orders on one channel', async () => {
    const res = await report({ channel });
    expect(res.status, res.text).toBe(200);
    const b = res.body;
    expect(b.window.days).toBe(30);
    expect(b.filters).toEqual({ channel, product_id: null });
    // o1, o2, o3 in USD (o3 once although it names a card and the token), o5 in EUR.
    expect(b.totals).toMatchObject({
      impressions: 3,
      clicks: 3,
      ctr: 1,
      match_tokens: 1,
      payment_authorizations: 1,
      attributed_orders: 4,
      excluded_orders: 1,
    });
    expect(b.totals.revenue).toEqual([eur, usd(3, 10_000, 900)]);
    expect(b.by_channel).toHaveLength(1);
    expect(b.by_channel[0]).toMatchObject({ channel, impressions: 3, clicks: 3, attributed_orders: 4 });
    expect(b.by_product.product_count).toBe(2);
    // P leads on USD GMV (7,000 against 3,000).
    expect(b.by_product.products.map((p: any) => p.product_id)).toEqual([String(P), String(Q)]);
    const [p, q] = b.by_product.products;
    expect(p).toMatchObject({ impressions: 2, clicks: 2, ctr: 1, match_tokens: 1, payment_authorizations: 1, attributed_orders: 3 });
    expect(p.revenue).toEqual([eur, usd(2, 7000, 600)]);
    expect(q).toMatchObject({ impressions: 1, clicks: 1, match_tokens: 0, payment_authorizations: 0, attributed_orders: 1 });
    expect(q.revenue).toEqual([usd(1, 3000, 300)]);
    expect(b.join_rules.length).toBeGreaterThan(5);
    expect(b.roi_definition).toMatch(/gmv \/ commission/);
  });

  it('filters by channel and product; decoys count as unattributed, never as attributed', async () => {
    const res = await report({ channel, product_id: String(P) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.totals).toMatchObject({
      impressions: 2,
      clicks: 2,
      match_tokens: 1,
      payment_authorizations: 1,
      attributed_orders: 3,
      excluded_orders: 1,
      unattributed_orders: 2,
    });
    expect(res.body.totals.revenue).toEqual([eur, usd(2, 7000, 600)]);
    expect(res.body.by_product.products.map((p: any) => p.product_id)).toEqual([String(P)]);

    const q = await report({ channel, product_id: String(Q), days: '7' });
    expect(q.body.totals).toMatchObject({ impressions: 1, clicks: 1, match_tokens: 0, attributed_orders: 1, excluded_orders: 0 });

    // Without the channel filter the match session's own card for P (channel `match`) shows up too.
    const all = await report({ product_id: String(P) });
    expect(all.body.by_channel.map((c: any) => c.channel).sort()).toEqual([channel, 'match'].sort());
    expect(all.body.by_channel.find((c: any) => c.channel === 'match')).toMatchObject({ impressions: 1, clicks: 0, attributed_orders: 0 });
  });

  it('a window of one day still sees today, and a channel with nothing is all zeros', async () => {
    expect((await report({ channel, days: '1' })).body.totals).toMatchObject({ impressions: 3, attributed_orders: 4 });
    const none = await report({ channel: `none-${uid}` });
    expect(none.body.totals).toMatchObject({ impressions: 0, clicks: 0, ctr: null, attributed_orders: 0, revenue: [] });
    expect(none.body.by_product).toMatchObject({ product_count: 0, products: [] });
  });

  it('rejects a bad days or product_id with 400 invalid_query', async () => {
    for (const [qs, field] of [
      [{ days: '0' }, 'query.days'],
      [{ days: '366' }, 'query.days'],
      [{ days: 'x' }, 'query.days'],
      [{ product_id: 'abc' }, 'query.product_id'],
    ] as const) {
      const res = await report(qs);
      expect(res.status, JSON.stringify(qs)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_query', fields: [field] });
    }
  });

  it('needs the supply key or an API key with the reports scope', async () => {
    const path = `/v1/report/attribution?channel=${channel}`;
    expect((await call(api.url, 'GET', path)).body).toMatchObject({ error: 'unauthorized' });
    expect((await call(api.url, 'GET', path)).status).toBe(401);
    const wrong = await call(api.url, 'GET', path, { headers: { 'x-supply-key': 'not-the-supply-key-at-all' } });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_supply_key']);
    // An API key sees its own developer's traffic only (docs/TENANCY.md): the cards above were issued
    // outside any of its sessions, so of the four orders only o2 (through its match token) is its.
    const bearer = await call(api.url, 'GET', path, { token: dev.apiKey });
    expect(bearer.status, bearer.text).toBe(200);
    expect(bearer.body.scope).toBe('developer');
    expect(bearer.body.totals).toMatchObject({
      impressions: 0,
      clicks: 0,
      match_tokens: 1,
      payment_authorizations: 1,
      attributed_orders: 1,
      unattributed_orders: 0,
    });
    const operator = await call(api.url, 'GET', path, { headers: supply });
    expect([operator.body.scope, operator.body.totals.attributed_orders]).toEqual(['platform', 4]);
    const stranger = await onboard(api.url);
    expect((await call(api.url, 'GET', path, { token: stranger.apiKey })).body.totals).toMatchObject({
      match_tokens: 0,
      payment_authorizations: 0,
      attributed_orders: 0,
    });
    const scoped = await call(api.url, 'POST', '/v1/developers/keys', { token: dev.developerToken, body: { scopes: ['recommend'] } });
    expect((await call(api.url, 'GET', path, { token: scoped.body.api_key })).status).toBe(403);
  });
});

describe('POST /v1/billing/settlement-preview', () => {
  it('prices the given orders, leads and matches (default fees: lead 50, match 100 cents)', async () => {
    const res = await preview({
      merchant_id: merchantId,
      attributed_orders: [
        { order_id: 'a', amount: 100, commission_plan: { rate: 0.05 } }, // 500
        { order_id: 'b', amount: 40, commission: 3 }, // 300
        { order_id: 'c', amount: 10, commission_plan: { flat: 1.5 } }, // 150
        { order_id: 'd', amount: 10 }, // no plan anywhere → 0
        { order_id: 'e', amount: 50, currency: 'EUR' }, // skipped
      ],
      qualified_leads: 4,
      accepted_matches: 2,
    });
    expect(res.status, res.text).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      preview: true,
      merchant_id: merchantId,
      currency: 'USD',
      sources: { attributed_orders: 'request', qualified_leads: 'request', accepted_matches: 'request' },
    });
    expect(b.line_items.map((l: any) => [l.type, l.order_id, l.quantity, l.amount_cents, l.basis])).toEqual([
      ['commission', 'a', 1, 500, 'order_plan'],
      ['commission', 'b', 1, 300, 'order_commission'],
      ['commission', 'c', 1, 150, 'order_plan'],
      ['commission', 'd', 1, 0, 'none'],
      ['qualified_leads', null, 4, 200, 'default_fee'],
      ['accepted_matches', null, 2, 200, 'default_fee'],
    ]);
    expect(b.skipped_orders).toEqual([{ order_id: 'e', currency: 'EUR', reason: 'currency_mismatch' }]);
    expect(b.totals).toEqual({
      attributed_orders: 4,
      gmv_cents: 16_000,
      commission_cents: 950,
      qualified_leads_cents: 200,
      accepted_matches_cents: 200,
      total_cents: 1350,
      total: 13.5,
      currency: 'USD',
    });
  });

  it("uses the merchant's metadata.billing fees and plan", async () => {
    const id = `mer-bill-${uid}`;
    const reg = await post('/v1/merchant/register', {
      merchant_id: id,
      agent_endpoint: 'http://127.0.0.1:9/agent',
      metadata: { billing: { qualified_lead_fee_cents: 75, commission_plan: { rate: 0.2 } } },
    });
    expect(reg.status, reg.text).toBe(200);
    const res = await preview({ merchant_id: id, attributed_orders: [{ amount: 30 }], qualified_leads: 2, accepted_matches: 1 });
    expect(res.body.line_items.map((l: any) => [l.type, l.amount_cents, l.basis])).toEqual([
      ['commission', 600, 'merchant_plan'],
      ['qualified_leads', 150, 'merchant_billing'],
      ['accepted_matches', 100, 'default_fee'],
    ]);
    expect(res.body.totals.total_cents).toBe(850);
  });

  it('derives orders, leads and matches from the database, and changes nothing', async () => {
    const snapshot = async () => ({
      merchant: await api.db.selectFrom('merchants').selectAll().where('merchant_id', '=', merchantId).execute(),
      orders: await api.db.selectFrom('affiliate_orders').selectAll().where('import_batch', '=', batch).orderBy('id').execute(),
      token: await api.db.selectFrom('match_tokens').selectAll().where('match_token_id', '=', tokenId).execute(),
      events: await api.db.selectFrom('decision_events').selectAll().where('merchant_id', '=', merchantId).execute(),
    });
    const before = await snapshot();
    const res = await preview({ merchant_id: merchantId });
    expect(res.status, res.text).toBe(200);
    // The merchant's orders: o2 (token, 200) and o3 (card, but the token's proposal is the merchant's: 300).
    // One qualified lead (its proposal topped the match session), one accepted match (the token).
    expect(res.body.sources).toEqual({ attributed_orders: 'database', qualified_leads: 'database', accepted_matches: 'database' });
    expect(res.body.line_items.map((l: any) => [l.type, l.order_id, l.quantity, l.amount_cents, l.basis])).toEqual([
      ['commission', `platform_affiliate:${uid}-o2`, 1, 200, 'proposal_plan'],
      ['commission', `platform_affiliate:${uid}-o3`, 1, 300, 'proposal_plan'],
      ['qualified_leads', null, 1, 50, 'default_fee'],
      ['accepted_matches', null, 1, 100, 'default_fee'],
    ]);
    expect(res.body.totals).toMatchObject({ attributed_orders: 2, gmv_cents: 5000, commission_cents: 500, total_cents: 650, total: 6.5 });
    expect(await snapshot()).toEqual(before);
  });

  it('400 invalid_payload names the missing or bad field; 404 for an unknown merchant; 401 without credentials', async () => {
    const missing = await preview({ qualified_leads: 1 });
    expect([missing.status, missing.body.error, missing.body.fields]).toEqual([400, 'invalid_payload', ['merchant_id']]);
    const noBody = await call(api.url, 'POST', '/v1/billing/settlement-preview', { headers: supply });
    expect([noBody.status, noBody.body.error]).toEqual([400, 'invalid_payload']);
    const bad = await preview({ merchant_id: merchantId, qualified_leads: -1 });
    expect([bad.status, bad.body.error, bad.body.fields]).toEqual([400, 'invalid_payload', ['qualified_leads']]);
    const unknown = await preview({ merchant_id: `nobody-${uid}` });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'merchant_not_found']);
    const anon = await call(api.url, 'POST', '/v1/billing/settlement-preview', { body: { merchant_id: merchantId } });
    expect([anon.status, anon.body.error]).toEqual([401, 'unauthorized']);
    // An API key previews a merchant's settlement only with that merchant's registration token.
    const body = { merchant_id: merchantId, qualified_leads: 0, accepted_matches: 0, attributed_orders: [] };
    const bearer = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
      token: dev.apiKey,
      body,
      headers: { 'x-merchant-token': merchantToken },
    });
    expect([bearer.status, bearer.body.totals?.total_cents]).toEqual([200, 0]);
    const keyOnly = await call(api.url, 'POST', '/v1/billing/settlement-preview', { token: dev.apiKey, body });
    expect([keyOnly.status, keyOnly.body.error]).toEqual([401, 'missing_registration_token']);
    const catalog = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
      token: dev.apiKey,
      body: { ...body, merchant_id: 'gateway-catalog' },
      headers: { 'x-merchant-token': merchantToken },
    });
    expect([catalog.status, catalog.body.error]).toEqual([403, 'invalid_registration_token']);
  });
});
