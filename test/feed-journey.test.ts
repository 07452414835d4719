import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';

/**
 * Per-merchant catalogs end to end (docs/CATALOG.md, docs/CHECKOUT.md, docs/REPORTS.md): two
 * merchants import their own Merchant Center feeds over the API; a shopper's recommendation names
 * each product's real seller; the product of the merchant with an agent endpoint (a loopback agent)
 * checks out by `agent_handoff` (payment authorized, the order handed to that agent), the product of
 * the merchant without one (an endpoint under the reserved .invalid domain) by `merchant_redirect`
 * (the attributable /r/{rec_id} link); both orders are attributed, each to its own merchant.
 */

let api: TestApi;
let dev: Onboarded;
let worker: { stop(): Promise<void> };
let agentServer: LoopbackServer;
const handoffs: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
const tag = Math.random().toString(36).slice(2, 8);
const supply = { 'x-supply-key': TEST_SUPPLY_KEY };

beforeAll(async () => {
  // A 1 s card cache: recommendations see the imported catalogs at once.
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true', CARD_CACHE_TTL_S: '1' } });
  worker = await startTestWorker(api.config, api.db);
  dev = await onboard(api.url);
  agentServer = await startLoopback(async (req, res) => {
    const body = await readBody(req);
    handoffs.push({ headers: req.headers, body: body ? JSON.parse(body) : null });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order_id: `ord-${handoffs.length}`, accepted: true }));
  });
}, 120_000);

afterAll(async () => {
  await agentServer?.close();
  await worker?.stop();
  await api?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(api.url, 'GET', path, { token: dev.apiKey });

/** Registers the merchant and imports its one-product Merchant Center feed over the API. */
async function merchantWithFeed(merchantId: string, agentEndpoint: string, product: { id: string; title: string; price: string }) {
  const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: agentEndpoint });
  expect(reg.status, reg.text).toBe(200);
  const feed = [
    'id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand\tproduct_type',
    [
      product.id,
      product.title,
      `${product.title}, carved by hand.`,
      `https://${merchantId}.shop.test/p/${product.id}`,
      `https://cdn.shop.test/${product.id}.jpg`,
      'in_stock',
      `${product.price} USD`,
      `Quill${tag}`,
      'Sports & Outdoors > Camping',
    ].join('\t'),
  ].join('\n');
  const res = await post(`/v1/merchant/${merchantId}/feeds`, { content: feed }, { 'x-merchant-token': reg.body.registration_token });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ merchant_id: merchantId, format: 'merchant_center_tsv', added: 1, rejected: 0 });
  return api.db
    .selectFrom('products')
    .select(['product_id', 'merchant_id', 'price_cents'])
    .where('merchant_id', '=', merchantId)
    .where('external_id', '=', product.id)
    .executeTakeFirstOrThrow();
}

/** recommend → accept the merchant's product → plan: the plan and what it needs to confirm. */
async function recommendAndPlan(query: string, channel: string, productId: number) {
  // Bounded: the card cache sees the new catalog within its TTL (1 s here).
  let rec: Awaited<ReturnType<typeof get>> | undefined;
  for (let i = 0; i < 20; i++) {
    rec = await get(`/v1/recommend?${new URLSearchParams({ intent: query, channel, limit: '5' })}`);
    expect(rec.status, rec.text).toBe(200);
    if (rec.body.proposals.some((p: any) => p.product_id === productId)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const proposal = rec!.body.proposals.find((p: any) => p.product_id === productId);
  expect(proposal, `recommend for "${query}" names product ${productId}`).toBeDefined();
  const card = rec!.body.items.find((i: any) => i.rec_id === proposal.metadata.rec_id);
  const accept = await post(`/v1/match/${rec!.body.match_session_id}/accept`, { proposal_id: proposal.proposal_id });
  expect(accept.status, accept.text).toBe(200);
  const token = accept.body.match_token;
  const plan = await post('/v1/agentic-checkout', {
    buyer_agent_id: 'feed-journey-buyer',
    intent_id: rec!.body.intent_id,
    proposal_id: proposal.proposal_id,
    match_token_id: token.match_token_id,
    amount: proposal.price,
    currency: 'USD',
  });
  expect(plan.status, plan.text).toBe(201);
  const confirm = () =>
    post(`/v1/agentic-checkout/${plan.body.checkout.checkout_id}/confirm`, {
      consent: { granted: true, statement: `I agree to buy it for ${proposal.price} USD.` },
      match_token: token.signed_token,
      proposal_id: proposal.proposal_id,
      amount: proposal.price,
      currency: 'USD',
    });
  return { proposal, card, token, checkout: plan.body.checkout, confirm };
}

const settledOrders = async (merchantId: string) => {
  const res = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
    headers: supply,
    body: { merchant_id: merchantId, days: 1 },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.totals.attributed_orders as number;
};

describe('per-merchant catalogs: recommend → checkout → attribution', () => {
  const withAgent = `feed-agent-${tag}`;
  const withoutAgent = `feed-site-${tag}`;

  it("a merchant with an agent endpoint: its imported product is recommended under it, checked out by agent_handoff to its agent, and the order is that merchant's", async () => {
    const product = await merchantWithFeed(withAgent, `${agentServer.url}/agent`, {
      id: 'PADDLE-1',
      title: `Quill${tag} cedar canoe paddle`,
      price: '89.00',
    });
    const channel = `fj-a-${tag}`;
    const { proposal, card, checkout, confirm } = await recommendAndPlan(`quill${tag} canoe paddle`, channel, product.product_id);
    expect(proposal).toMatchObject({ merchant_agent_id: withAgent, price: 89 });
    expect(card.product).toMatchObject({ seller: { merchant_id: withAgent } });
    expect(checkout).toMatchObject({ checkout_mode: 'agent_handoff', merchant_id: withAgent, status: 'awaiting_confirmation' });

    const done = await confirm();
    expect(done.status, done.text).toBe(200);
    expect(done.body.checkout).toMatchObject({ status: 'confirmed', checkout_mode: 'agent_handoff', merchant_id: withAgent });
    expect(done.body.checkout.payment_authorization_id).toEqual(expect.any(String));
    // The order went to this merchant's agent, naming its product.
    expect(handoffs).toHaveLength(1);
    expect(JSON.stringify(handoffs[0]!.body)).toContain(String(product.product_id));

    const report = await call(api.url, 'GET', `/v1/report/attribution?channel=${channel}`, { headers: supply });
    expect(report.status, report.text).toBe(200);
    expect(report.body.totals).toMatchObject({ attributed_orders: 1 });
    expect(await settledOrders(withAgent)).toBe(1);
  });

  it('a merchant without an agent endpoint: its imported product checks out by merchant_redirect to its product page, and the order arriving with the rec_id is that merchant’s', async () => {
    const product = await merchantWithFeed(withoutAgent, `https://${withoutAgent}.invalid/agent`, {
      id: 'LANTERN-1',
      title: `Quill${tag} brass storm lantern`,
      price: '42.50',
    });
    const channel = `fj-s-${tag}`;
    const { proposal, card, token, checkout, confirm } = await recommendAndPlan(`quill${tag} storm lantern`, channel, product.product_id);
    expect(proposal).toMatchObject({ merchant_agent_id: withoutAgent, price: 42.5 });
    expect(card.product).toMatchObject({ seller: { merchant_id: withoutAgent } });
    expect(checkout).toMatchObject({ checkout_mode: 'merchant_redirect', merchant_id: withoutAgent });

    const done = await confirm();
    expect(done.status, done.text).toBe(200);
    const recId = proposal.metadata.rec_id as string;
    expect(done.body.checkout).toMatchObject({
      status: 'handed_off',
      checkout_mode: 'merchant_redirect',
      continue_url: `${api.config.publicBaseUrl}/r/${recId}`,
      payment_authorization_id: null,
    });
    expect(handoffs).toHaveLength(1); // nothing was sent to any agent
    expect((await get(`/v1/match-tokens/${token.match_token_id}`)).body.match_token.acceptance_state).toBe('accepted');

    // The link goes to this merchant's product page, with the rec_id.
    const click = await fetch(done.body.checkout.continue_url.replace(api.config.publicBaseUrl, api.url), { redirect: 'manual' });
    expect(click.status).toBe(302);
    const location = new URL(click.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`https://${withoutAgent}.shop.test/p/LANTERN-1`);
    expect(location.searchParams.get('rec_id')).toBe(recId);

    // The merchant's order, reported with that rec_id, is attributed to the card and to this merchant only.
    await api.db
      .insertInto('affiliate_orders')
      .values({
        order_id: `ord-${checkout.checkout_id}`,
        rec_id: recId,
        amount_cents: product.price_cents,
        currency: 'USD',
        status: 'completed',
        ordered_at: new Date(),
        import_batch: `feed-journey-${tag}`,
      })
      .execute();
    const report = await call(api.url, 'GET', `/v1/report/attribution?channel=${channel}`, { headers: supply });
    expect(report.status, report.text).toBe(200);
    expect(report.body.totals).toMatchObject({ attributed_orders: 1, clicks: 1 });
    expect(await settledOrders(withoutAgent)).toBe(1);
    expect(await settledOrders(withAgent)).toBe(1);
  });
});
