import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startMerchantAgent, type MerchantAgent, type MerchantAgentOptions } from '../examples/merchant-agent/agent';

// The reference merchant agent against the real gateway: we play the gateway's dispatcher (sign and
// POST intent.surge webhooks), the agent submits real proposals through the real API.

let api: TestApi;
let dev: Onboarded;
let merchant: { id: string; token: string; secret: string };
let product: { product_id: number; price_cents: number };
let intent: Record<string, any>;
const agents: MerchantAgent[] = [];

const uid = (tag: string) => `${tag}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
const get = (path: string) => call(api.url, 'GET', path, { token: dev.apiKey });

function surgeBody(deliveryId: string, type = 'intent.surge'): string {
  return JSON.stringify({
    type,
    timestamp: new Date().toISOString(),
    data: {
      delivery_id: deliveryId,
      merchant_id: merchant.id,
      intent,
      reply: { proposals_url: `${api.url}/v1/proposals`, respond_by: new Date(Date.now() + 60_000).toISOString() },
    },
  });
}

/** POSTs like the gateway does: Standard Webhooks headers over the exact body bytes. */
async function deliver(agent: MerchantAgent, id: string, body: string, o: { secret?: string; at?: Date; sendBody?: string } = {}) {
  const at = o.at ?? new Date();
  const signature = new Webhook(o.secret ?? merchant.secret).sign(id, at, body);
  return call(agent.url, 'POST', '', {
    raw: o.sendBody ?? body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
  });
}

async function agent(extra: Partial<MerchantAgentOptions> = {}) {
  const a = await startMerchantAgent({
    merchantId: merchant.id,
    merchantToken: merchant.token,
    webhookSecret: merchant.secret,
    apiKey: dev.apiKey,
    productId: product.product_id,
    price: product.price_cents / 100,
    ...extra,
  });
  agents.push(a);
  return a;
}

async function proposalsOfIntent() {
  const list = await get(`/v1/intents/${intent.intent_id}/proposals`);
  expect(list.status).toBe(200);
  return list.body.proposals as Array<Record<string, any>>;
}

beforeAll(async () => {
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
  // Priced under the intent's $150 budget: the default offer skips products the shopper cannot afford.
  const row = await api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('inventory_qty', '>', 20)
    .where('price_cents', '<=', 15_000)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirst();
  expect(row).toBeDefined();
  product = row!;

  const merchant_id = uid('mer');
  const reg = await call(api.url, 'POST', '/v1/merchant/register', {
    token: dev.apiKey,
    body: { merchant_id, agent_endpoint: 'http://127.0.0.1:9/x', subscription_tags: ['running', 'shoes'] },
  });
  expect(reg.status, reg.text).toBe(200);
  expect(reg.body.webhook_secret).toMatch(/^whsec_/);
  merchant = { id: merchant_id, token: reg.body.registration_token, secret: reg.body.webhook_secret };

  const created = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body: { raw_query: 'trail running shoes under $150' } });
  expect(created.status, created.text).toBe(201);
  const fetched = await get(`/v1/intents/${created.body.intent.intent_id}`);
  expect(fetched.status).toBe(200);
  intent = fetched.body.intent;
});

afterAll(async () => {
  for (const a of agents) await a.close();
  await api?.close();
});

describe('reference merchant agent (examples/merchant-agent)', () => {
  it('accepts a signed surge, submits a real proposal, and answers a redelivery as a duplicate', async () => {
    const a = await agent();
    const id = uid('dlv');
    const body = surgeBody(id);

    const first = await deliver(a, id, body);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ status: 'accepted' });

    const [settled] = await a.waitForProposals(1, 10_000);
    expect(settled).toMatchObject({
      webhookId: id,
      outcome: 'accepted',
      intentId: intent.intent_id,
      proposal: { outcome: 'submitted', status: 201 },
    });
    const proposalId = settled!.proposal!.outcome === 'submitted' ? settled!.proposal!.proposalId : '';
    const p = await get(`/v1/proposals/${proposalId}`);
    expect(p.status).toBe(200);
    expect(p.body.proposal).toMatchObject({
      merchant_agent_id: merchant.id,
      intent_id: intent.intent_id,
      product_id: product.product_id,
      price: product.price_cents / 100,
      currency: 'USD',
      shipping_commitment: { max_days: 5, free: true },
    });

    // The gateway retries with the same webhook-id and a fresh timestamp/signature.
    const again = await deliver(a, id, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ status: 'duplicate' });
    expect(a.events.map((e) => e.outcome)).toEqual(['accepted', 'duplicate']);
    expect(a.events[1]!.proposal).toBeUndefined();
    expect((await proposalsOfIntent()).map((x) => x.proposal_id)).toEqual([proposalId]);

    // A restarted agent has forgotten the id (memory only); idempotency-key surge-<id> still
    // keeps it to one proposal, because the gateway replays the first answer.
    const restarted = await agent();
    const replay = await deliver(restarted, id, body);
    expect(replay.body).toEqual({ status: 'accepted' });
    const [replayed] = await restarted.waitForProposals(1, 10_000);
    expect(replayed!.proposal).toEqual({ outcome: 'submitted', status: 201, proposalId });
    expect(await proposalsOfIntent()).toHaveLength(1);
  });

  it('401s a wrong secret, a stale timestamp, a tampered body and missing headers, without acting', async () => {
    const a = await agent();
    const id = uid('dlv');
    const body = surgeBody(id);
    const before = (await proposalsOfIntent()).length;

    const wrongSecret = await deliver(a, id, body, { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body).toMatchObject({ error: 'invalid_signature' });
    expect(wrongSecret.body.message).toEqual(expect.any(String));

    const stale = await deliver(a, id, body, { at: new Date(Date.now() - 10 * 60_000) });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ error: 'invalid_signature', message: expect.stringMatching(/too old/) });

    const tampered = await deliver(a, id, body, { sendBody: body.replace('"intent.surge"', '"intent.surge" ') });
    expect(tampered.status).toBe(401);

    const unsigned = await call(a.url, 'POST', '', { raw: body, headers: { 'webhook-id': id } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error).toBe('invalid_signature');

    expect(a.events.map((e) => [e.outcome, e.httpStatus])).toEqual(Array(4).fill(['rejected', 401]));

    // Rejections did not mark the id: the genuine delivery is still taken.
    const genuine = await deliver(a, id, body);
    expect(genuine.body).toEqual({ status: 'accepted' });
    await a.waitForProposals(1, 10_000);
    expect(await proposalsOfIntent()).toHaveLength(before + 1);
  });

  it('only POST on its path; other event types are acknowledged and ignored', async () => {
    const a = await agent();
    const origin = new URL(a.url).origin;
    expect((await call(origin, 'POST', '/elsewhere', { raw: '{}' })).status).toBe(404);
    const wrongMethod = await call(a.url, 'GET', '');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');

    const id = uid('dlv');
    const other = await deliver(a, id, surgeBody(id, 'merchant.ping'));
    expect(other.status).toBe(202);
    expect(other.body).toEqual({ status: 'ignored' });
    expect(a.events).toMatchObject([{ webhookId: id, outcome: 'ignored' }]);
  });

  it('records, not throws, a declined offer and a failed submission', async () => {
    const declined = await agent({ chooseOffer: () => null });
    const id1 = uid('dlv');
    expect((await deliver(declined, id1, surgeBody(id1))).body).toEqual({ status: 'accepted' });
    const [skip] = await declined.waitForProposals(1, 10_000);
    expect(skip!.proposal).toMatchObject({ outcome: 'skipped' });

    const broken = await agent({ chooseOffer: () => ({ product_id: 99_999_999, offer_title: 'Ghost', price: 10 }) });
    const id2 = uid('dlv');
    expect((await deliver(broken, id2, surgeBody(id2))).body).toEqual({ status: 'accepted' });
    const [failed] = await broken.waitForProposals(1, 10_000);
    expect(failed!.proposal).toMatchObject({ outcome: 'failed', status: 404, error: expect.stringMatching(/^product_not_found/) });

    await expect(broken.waitForProposals(2, 200)).rejects.toThrow(/1 of 2 settled/);
  });
});
