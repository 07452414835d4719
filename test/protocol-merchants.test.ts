import { sql } from 'kysely';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { seedCatalog } from '../src/catalog/seed';
import { workflowIds } from '../src/temporal/names';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { closedPort, readBody, startLoopback } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { MOCK_HANDLER, startUcpBusiness, TOKEN_DECLINE, TOKEN_OK, type UcpBusiness } from './helpers/ucp-business';
import { startAcpSeller, type AcpTestSeller } from './helpers/acp-seller';
import { ucpIdempotencyKey } from '../src/protocols/ucp/client';
import { replayAndRecord } from './helpers/histories';

/**
 * Merchants that exist (docs/MERCHANTS.md): a UCP business and an ACP seller, each a real loopback
 * server speaking its protocol (and validating every message against the official schemas), are
 * registered by URL and bought from through the gateway's checkout; a redirect-only shop sells
 * without the gateway ever POSTing to it. The gateway's own API and worker run over a scratch
 * database (feeds write the catalog).
 */

let scratch: ScratchDatabase;
let db: Db;
let tmp: string;
let api: TestApi;
let stopWorker: () => Promise<void>;
let dev: Onboarded;
const closers: Array<() => Promise<void>> = [];
const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', p, { token: dev.apiKey, body, headers });
const get = (p: string) => call(api.url, 'GET', p, { token: dev.apiKey });

const BUYER = { full_name: 'Ada Lovelace', email: 'ada@example.com' };
const ADDRESS = { name: 'Ada Lovelace', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const FLOWERS = [
  { id: 'bouquet_roses', title: 'Red Rose Bouquet', price: 3500, stock: 100 },
  { id: 'bouquet_tulips', title: 'Tulip Bouquet', price: 3000, stock: 100 },
];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'protocol-merchants-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_protocols' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  await seedCatalog(db, { products: 200 });
  // The API's own address is its public base URL: businesses fetch the platform profile named in UCP-Agent.
  const port = await closedPort();
  const ucpKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // The worker mints the runtime's match tokens: API and worker share the key.
  const matchKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  api = await startTestApi({
    db,
    port,
    env: {
      DATABASE_URL: scratch.url,
      PORT: String(port),
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      DISPATCH_TIMEOUT_MS: '3000',
      UCP_SIGNING_KEY: ucpKey,
      MATCH_TOKEN_SIGNING_KEY: matchKey,
    },
  });
  const worker = await startTestWorker(api.config, api.db);
  stopWorker = () => worker.stop();
  dev = await onboard(api.url);
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await stopWorker?.();
  await api?.close();
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

/** A Merchant Center feed of the merchant's catalog, its own ids as the feed ids. */
const feedOf = (items: Array<{ id: string; title: string; price: number }>, currency = 'USD') =>
  [
    'id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand',
    ...items.map(
      (i) =>
        `${i.id}\t${i.title}\tFresh ${i.title.toLowerCase()}.\thttps://shop.example/p/${i.id}\thttps://shop.example/${i.id}.jpg\tin_stock\t${(i.price / 100).toFixed(2)} ${currency}\tBloom`,
    ),
  ].join('\n');

interface Registered {
  merchantId: string;
  token: string;
  webhookSecret: string;
  merchant: any;
}

async function register(body: Record<string, unknown>): Promise<Registered> {
  const merchant_id = uid('mer');
  const res = await post('/v1/merchant/register', { merchant_id, subscription_tags: ['flowers'], ...body });
  expect(res.status, res.text).toBe(200);
  return {
    merchantId: merchant_id,
    token: res.body.registration_token,
    webhookSecret: res.body.webhook_secret,
    merchant: res.body.merchant,
  };
}

/** Imports the catalog, then intent → proposal (by the merchant's own id) → match → accept: a token for `itemId`. */
async function chain(m: Registered, items: Array<{ id: string; title: string; price: number }>, itemId: string) {
  const feed = await post(`/v1/merchant/${m.merchantId}/feeds`, { content: feedOf(items) }, { 'x-merchant-token': m.token });
  expect(feed.status, feed.text).toBe(200);
  const item = items.find((i) => i.id === itemId)!;
  const product = await db
    .selectFrom('products')
    .select('product_id')
    .where('merchant_id', '=', m.merchantId)
    .where('external_id', '=', itemId)
    .executeTakeFirstOrThrow();
  const intent = await post('/v1/intents', { raw_query: 'a bouquet of flowers for a friend', intent_tags: ['flowers'] });
  expect(intent.status, intent.text).toBe(201);
  const intentId = intent.body.intent.intent_id as string;
  const proposal = await post(
    '/v1/proposals',
    {
      merchant_agent_id: m.merchantId,
      intent_id: intentId,
      product_id: product.product_id,
      offer_title: item.title,
      price: item.price / 100,
      shipping_commitment: { free: true },
    },
    { 'x-merchant-token': m.token },
  );
  expect(proposal.status, proposal.text).toBe(201);
  const proposalId = proposal.body.proposal.proposal_id as string;
  const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
  expect(session.status, session.text).toBe(201);
  const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  expect(accept.status, accept.text).toBe(200);
  return {
    intentId,
    proposalId,
    tokenId: accept.body.match_token.match_token_id as string,
    jws: accept.body.match_token.signed_token as string,
    price: item.price,
  };
}
type Chain = Awaited<ReturnType<typeof chain>>;

const planBody = (c: Chain, extra: Record<string, unknown> = {}) => ({
  buyer_agent_id: 'buyer-agent-1',
  intent_id: c.intentId,
  proposal_id: c.proposalId,
  match_token_id: c.tokenId,
  amount: c.price / 100,
  currency: 'USD',
  buyer: BUYER,
  shipping_address: ADDRESS,
  ...extra,
});

const confirmBody = (c: Chain, amount: number, extra: Record<string, unknown> = {}) => ({
  consent: { granted: true, statement: `I agree to pay ${amount} USD for the bouquet.`, granted_at: new Date().toISOString() },
  match_token: c.jws,
  proposal_id: c.proposalId,
  amount,
  currency: 'USD',
  ...extra,
});

async function plan(c: Chain, extra: Record<string, unknown> = {}) {
  const res = await post('/v1/agentic-checkout', planBody(c, extra));
  expect(res.status, res.text).toBe(201);
  return res.body.checkout;
}

const authorizationOf = (id: string | null) =>
  id ? db.selectFrom('payment_authorizations').select(['status']).where('authorization_id', '=', id).executeTakeFirstOrThrow() : null;

describe('a UCP business, registered by URL and bought from through the checkout', () => {
  let business: UcpBusiness;
  let m: Registered;

  beforeAll(async () => {
    business = await startUcpBusiness({ version: '2026-04-08', catalog: FLOWERS, taxBps: 800, requireSignedRequests: true });
    closers.push(() => business.close());
    m = await register({ agent_endpoint: business.url, protocol_version: 'ucp' });
  });

  it('registration reads its profile: version, REST endpoint, capabilities and payment handlers are on the record', () => {
    expect(m.merchant.protocol_version).toBe('ucp');
    expect(m.merchant.protocol_profile).toMatchObject({ version: '2026-04-08', rest_endpoint: business.endpoint });
    expect(m.merchant.protocol_profile.capabilities).toContain('dev.ucp.shopping.checkout');
    expect(m.merchant.protocol_profile.payment_handlers.map((h: any) => h.id)).toContain(MOCK_HANDLER.id);
    expect(m.merchant.protocol_profile_fetched_at).toEqual(expect.any(String));
  });

  it('plan → the business total (cheapest shipping, its tax); confirm with the test handler → one order; order events update the checkout; a forged event is refused', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_roses');
    const checkout = await plan(c);
    // Cheapest of the business's options (standard, 5.00) and 8% tax on the 35.00 subtotal.
    expect(checkout.plan.totals).toEqual({
      subtotal_minor: 3500,
      shipping_minor: 500,
      tax_minor: 280,
      discount_minor: 0,
      total_minor: 4280,
    });
    expect(checkout.amount).toBe(42.8);
    expect(checkout.plan.merchant_protocol).toBe('ucp');
    expect(checkout.merchant_session).toMatchObject({ protocol: 'ucp', fulfillment: { option_id: 'standard', amount_minor: 500 } });
    expect(checkout.merchant_session.payment_handlers.map((h: any) => h.id)).toContain(MOCK_HANDLER.id);
    // The session was created with the merchant's own item id.
    const created = business.requests.find((r) => r.method === 'POST' && /\/checkout-sessions$/.test(r.path))!;
    expect(JSON.stringify(created.body)).toContain('bouquet_roses');

    // Without a payment credential (and none configured for the deployment): refused before anything is authorized.
    const noCredential = await post(`/v1/agentic-checkout/${checkout.checkout_id}/confirm`, confirmBody(c, 42.8));
    expect(noCredential.status, noCredential.text).toBe(400);
    expect(noCredential.body).toMatchObject({ error: 'payment_credential_required', fields: ['payment_credential'] });
    expect((await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout.payment_authorization_id).toBeNull();
    // A confirm for the proposal's price alone is not the merchant's total.
    const wrong = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, 35, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
    );
    expect(wrong.status, wrong.text).toBe(409);
    expect(wrong.body.error).toBe('amount_mismatch');

    const done = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, 42.8, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
    );
    expect(done.status, done.text).toBe(200);
    expect(done.body.checkout.status).toBe('confirmed');
    expect(done.body.checkout.order).toMatchObject({ status: 'placed', order_id: expect.any(String) });
    expect(business.ordersPlaced()).toBe(1);
    // The credential never entered the workflow's history; the run replays, and is kept as this release's shape.
    const history = await api.temporal!.client.workflow.getHandle(workflowIds.checkout(checkout.checkout_id)).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(TOKEN_OK);
    await replayAndRecord(api.temporal!.client, workflowIds.checkout(checkout.checkout_id), 'agentic-checkout-ucp.json');

    const orderId = done.body.checkout.order.order_id as string;
    const shipped = await business.sendOrderEvent(orderId, 'shipped', `${api.url}/ucp/webhooks/orders`);
    expect(shipped.status).toBe(200);
    const again = await get(`/v1/agentic-checkout/${checkout.checkout_id}`);
    expect(again.body.checkout.order).toMatchObject({ order_id: orderId, status: 'shipped' });
    expect(again.body.checkout.order.tracking.length).toBeGreaterThan(0);
    expect(again.body.checkout.audit_trail.map((e: any) => e.outcome)).toContain('shipped');

    // Keys the stored profile lacks (the business rotated them since it was read): the profile is read
    // again and the event verifies with the keys it lists now.
    await db
      .updateTable('merchants')
      .set({ protocol_profile: sql`jsonb_set(protocol_profile, '{signing_keys}', '[]'::jsonb)` })
      .where('merchant_id', '=', m.merchantId)
      .execute();
    const delivered = await business.sendOrderEvent(orderId, 'placed', `${api.url}/ucp/webhooks/orders`);
    expect(delivered.status).toBe(200);
    const reread = await get(`/v1/merchant/${m.merchantId}`);
    expect(reread.body.merchant.protocol_profile.signing_keys.length).toBeGreaterThan(0);

    for (const opts of [{ tamperBody: true }, { wrongKey: true }, { unsigned: true }]) {
      const forged = await business.sendOrderEvent(orderId, 'canceled', `${api.url}/ucp/webhooks/orders`, opts);
      expect(forged.status, JSON.stringify(opts)).toBe(401);
    }
    expect((await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout.order.status).toBe('shipped');
    expect(business.validationErrors).toEqual([]);
    expect(business.signatureErrors).toEqual([]);
  });

  it('keeps the profile fresh: a profile older than an hour is read again before a session opens', async () => {
    const stale = new Date(Date.now() - 2 * 3600_000);
    await db.updateTable('merchants').set({ protocol_profile_fetched_at: stale }).where('merchant_id', '=', m.merchantId).execute();
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    await plan(c);
    const after = await get(`/v1/merchant/${m.merchantId}`);
    expect(Date.parse(after.body.merchant.protocol_profile_fetched_at)).toBeGreaterThan(stale.getTime() + 3600_000);
    expect(after.body.merchant.protocol_profile.version).toBe('2026-04-08');
  });

  it('a plan without the buyer or the address is a 400 naming what is missing, before any session', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    const before = business.count('POST /checkout-sessions');
    const res = await post(
      '/v1/agentic-checkout',
      planBody(c, { buyer: undefined, shipping_address: { line1: '1 Main St', city: 'Springfield', country: 'US' } }),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('buyer_details_missing');
    expect(res.body.fields).toEqual(['buyer', 'shipping_address.region', 'shipping_address.postal_code']);
    expect(business.count('POST /checkout-sessions')).toBe(before);
  });

  it('payment declined: the checkout fails with the merchant message, the authorization is voided, the session canceled once', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    const checkout = await plan(c);
    const res = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_DECLINE } }),
    );
    expect(res.status, res.text).toBe(402);
    expect(res.body.error).toBe('payment_declined');
    // The business's own words, the voided payment, and a next step that keeps the proposal: another credential.
    expect(res.body).toMatchObject({
      checkout_id: checkout.checkout_id,
      merchant_reason: 'Payment declined: insufficient funds',
      payment_voided: true,
      next_action: { action: 'plan_new_checkout', match_token_id: c.tokenId },
    });
    expect(res.body.next_action.description).toContain('another payment credential');
    const stored = (await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout;
    expect(stored.status).toBe('failed');
    expect(stored.failure.merchant_reason).toBe('Payment declined: insufficient funds');
    expect((await authorizationOf(stored.payment_authorization_id))?.status).toBe('voided');
    expect(stored.audit_trail.filter((e: any) => e.step === 'merchant_session_canceled')).toHaveLength(1);
    // The refused attempt's entry says so (it is not left `sending`).
    expect(stored.audit_trail.find((e: any) => e.step === 'merchant_session_complete')).toMatchObject({
      outcome: 'refused',
      detail: { code: 'payment_declined' },
    });
    await replayAndRecord(api.temporal!.client, workflowIds.checkout(checkout.checkout_id), 'agentic-checkout-ucp-declined.json');
    expect(business.count('POST /checkout-sessions/{id}/cancel')).toBeGreaterThanOrEqual(1);
    expect(business.ordersPlaced()).toBe(1);
  });

  it('the total changes between plan and confirm: refused as price_changed, nothing completed, money voided', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    const checkout = await plan(c);
    business.setPrice('bouquet_tulips', 3300);
    try {
      const res = await post(
        `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
        confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
      );
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toBe('price_changed');
      const stored = (await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout;
      expect((await authorizationOf(stored.payment_authorization_id))?.status).toBe('voided');
      expect(business.ordersPlaced()).toBe(1);
    } finally {
      business.setPrice('bouquet_tulips', 3000);
    }
  });

  it('out of stock at the plan: 409 inventory_unavailable with the merchant message; nothing authorized', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    business.setStock('bouquet_tulips', 0);
    try {
      const res = await post('/v1/agentic-checkout', planBody(c));
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toBe('inventory_unavailable');
      // The plan failed on the merchant's refusal: which checkout, its words, nothing authorized, what next.
      expect(res.body).toMatchObject({
        checkout_id: expect.stringMatching(/^chk_/),
        payment_authorization_id: null,
        payment_voided: false,
        next_action: { action: 'search_again' },
      });
      expect(res.body.merchant_reason).toMatch(/out of stock/);
    } finally {
      business.setStock('bouquet_tulips', 100);
    }
  });

  it('the business needs the buyer on its page: the checkout is handed off to its continue_url and the payment voided', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_roses');
    const checkout = await plan(c);
    business.requireEscalation('https://shop.example/checkout/finish');
    try {
      const res = await post(
        `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
        confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.checkout).toMatchObject({
        status: 'handed_off',
        checkout_mode: 'merchant_redirect',
        continue_url: 'https://shop.example/checkout/finish',
      });
      expect((await authorizationOf(res.body.checkout.payment_authorization_id))?.status).toBe('voided');
      await replayAndRecord(api.temporal!.client, workflowIds.checkout(checkout.checkout_id), 'agentic-checkout-ucp-escalated.json');
    } finally {
      business.requireEscalation(null);
    }
  });

  it('5xx on complete, then recovery: retried under the same Idempotency-Key, one order', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_roses');
    const checkout = await plan(c);
    const before = business.ordersPlaced();
    business.failNext('complete', 2, 503);
    const res = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.checkout.status).toBe('confirmed');
    expect(business.ordersPlaced()).toBe(before + 1);
    expect(business.keyCount(ucpIdempotencyKey(checkout.checkout_id, 'complete'))).toBe(3);
  });

  it('a UCP business that never opens the session (5xx through the retries): the plan answers 502 merchant_unavailable, nothing authorized', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    business.failNext('create', 20, 503);
    try {
      const res = await post('/v1/agentic-checkout', planBody(c));
      expect(res.status, res.text).toBe(502);
      expect(res.body.error).toBe('merchant_unavailable');
      expect(
        await db.selectFrom('payment_authorizations').select('authorization_id').where('match_token_id', '=', c.tokenId).execute(),
      ).toEqual([]);
    } finally {
      business.failNext('create', 0, 503);
    }
  });

  it('out of stock by the confirm: 409 inventory_unavailable with the merchant message, the authorization voided', async () => {
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    const checkout = await plan(c);
    business.setStock('bouquet_tulips', 0);
    try {
      const res = await post(
        `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
        confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
      );
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toBe('inventory_unavailable');
      // Sold out: the business's words, the voided payment, and (its session ranked this one only) a new search.
      expect(res.body).toMatchObject({ checkout_id: checkout.checkout_id, payment_voided: true, next_action: { action: 'search_again' } });
      expect(res.body.merchant_reason).toMatch(/out of stock/);
      expect(res.body.next_steps.map((s: any) => s.action)).toEqual(['search_again']);
      const stored = (await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout;
      expect((await authorizationOf(stored.payment_authorization_id))?.status).toBe('voided');
    } finally {
      business.setStock('bouquet_tulips', 100);
    }
  });

  it('a URL that serves no UCP profile is refused at registration: 422 ucp_discovery_failed', async () => {
    const nothing = await startLoopback(async (req, res) => {
      await readBody(req);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    closers.push(() => nothing.close());
    const res = await post('/v1/merchant/register', { merchant_id: uid('mer'), agent_endpoint: nothing.url, protocol_version: 'ucp' });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: 'ucp_discovery_failed', fields: ['agent_endpoint'] });
  });

  it('a business offering only a UCP version the gateway does not speak is refused at registration', async () => {
    const future = await startUcpBusiness({
      version: '2026-04-08',
      catalog: FLOWERS,
      profile: (p) => ({ ...p, ucp: { ...(p.ucp as object), version: '2027-01-01', supported_versions: {} } }),
    });
    closers.push(() => future.close());
    const res = await post('/v1/merchant/register', { merchant_id: uid('mer'), agent_endpoint: future.url, protocol_version: 'ucp' });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toBe('ucp_version_unsupported');
    expect(res.body.message).toContain('2027-01-01');
  });
});

describe('a UCP business at 2026-01-11 (the reference merchants’ version)', () => {
  it('is negotiated at 2026-01-11 and bought from', async () => {
    const business = await startUcpBusiness({ version: '2026-01-11', catalog: FLOWERS, taxBps: 0 });
    closers.push(() => business.close());
    const m = await register({ agent_endpoint: business.url, protocol_version: 'ucp' });
    expect(m.merchant.protocol_profile.version).toBe('2026-01-11');
    const c = await chain(m, FLOWERS, 'bouquet_tulips');
    const checkout = await plan(c);
    expect(checkout.plan.totals.total_minor).toBe(3500);
    const res = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, checkout.amount, { payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK } }),
    );
    expect(res.status, res.text).toBe(200);
    expect(business.ordersPlaced()).toBe(1);
    expect(business.validationErrors).toEqual([]);
  });
});

describe('an ACP seller, registered by URL with the credential it issued', () => {
  let seller: AcpTestSeller;
  let m: Registered;
  const ITEMS = [
    { id: 'sku_kettle', title: 'Stovetop kettle', price: 3450 },
    { id: 'sku_mug', title: 'Enamel mug', price: 1200 },
  ];

  beforeAll(async () => {
    seller = await startAcpSeller({ taxRateBps: 1000 });
    closers.push(() => seller.close());
    m = await register({ agent_endpoint: seller.url, protocol_version: 'acp', seller_credential: seller.credential });
  });

  it('needs its credential: registering an ACP seller without one is a 400', async () => {
    const res = await post('/v1/merchant/register', { merchant_id: uid('mer'), agent_endpoint: seller.url, protocol_version: 'acp' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.fields).toEqual(['seller_credential']);
    expect(m.merchant).toMatchObject({ protocol_version: 'acp', has_seller_credential: true });
    expect(JSON.stringify(m.merchant)).not.toContain(seller.credential);
  });

  it('plan (cheapest shipping, its tax) → confirm with a delegated token → one order; a signed order event updates it, a forged one is refused', async () => {
    const c = await chain(m, ITEMS, 'sku_kettle');
    const checkout = await plan(c);
    expect(checkout.plan.totals).toMatchObject({ subtotal_minor: 3450, shipping_minor: 500 });
    expect(checkout.plan.merchant_protocol).toBe('acp');
    const res = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, checkout.amount, {
        payment_credential: { handler: checkout.merchant_session.payment_handlers[0].id, token: 'spt_test_123' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.checkout.status).toBe('confirmed');
    expect(seller.orders).toHaveLength(1);
    const orderId = res.body.checkout.order.order_id as string;

    const event = seller.orderEvent(orderId, 'order_update', { status: 'shipped' });
    const ok = await seller.sendOrderEvent(`${api.url}/acp/webhooks/${m.merchantId}/orders`, m.webhookSecret, event);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout.order.status).toBe('shipped');
    const forged = await seller.sendOrderEvent(`${api.url}/acp/webhooks/${m.merchantId}/orders`, 'whsec_not_the_secret', event);
    expect(forged.status).toBe(401);
    expect(seller.validationErrors).toEqual([]);
  });

  it('declined: the checkout fails with the seller message, the authorization is voided, the session canceled', async () => {
    const c = await chain(m, ITEMS, 'sku_mug');
    const checkout = await plan(c);
    seller.declinePayments(true);
    try {
      const res = await post(
        `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
        confirmBody(c, checkout.amount, {
          payment_credential: { handler: checkout.merchant_session.payment_handlers[0].id, token: 'spt_test_456' },
        }),
      );
      expect(res.status, res.text).toBe(402);
      expect(res.body).toMatchObject({
        error: 'payment_declined',
        checkout_id: checkout.checkout_id,
        merchant_reason: 'The card issuer declined this payment.',
        payment_voided: true,
        next_action: { action: 'plan_new_checkout' },
      });
      const stored = (await get(`/v1/agentic-checkout/${checkout.checkout_id}`)).body.checkout;
      expect((await authorizationOf(stored.payment_authorization_id))?.status).toBe('voided');
      expect(seller.count('cancel')).toBeGreaterThanOrEqual(1);
      expect(seller.orders).toHaveLength(1);
    } finally {
      seller.declinePayments(false);
    }
  });
});

describe('a redirect-only shop', () => {
  it('registers and sells on its own page: no delivery, no query, no order is ever POSTed to it, no money authorized', async () => {
    const hits: string[] = [];
    const shop = await startLoopback(async (req, res) => {
      await readBody(req);
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    closers.push(() => shop.close());
    const m = await register({
      agent_endpoint: `${shop.url}/agent`,
      workflow_context: { checkout_modes: ['merchant_redirect'] },
      agent_ready_profile: { destination_strategy: 'merchant_site' },
    });
    expect(m.merchant.sells_only_by_redirect).toBe(true);
    const c = await chain(m, FLOWERS, 'bouquet_roses');
    const checkout = await plan(c, { buyer: undefined, shipping_address: undefined });
    expect(checkout.checkout_mode).toBe('merchant_redirect');
    const res = await post(`/v1/agentic-checkout/${checkout.checkout_id}/confirm`, confirmBody(c, checkout.amount));
    expect(res.status, res.text).toBe(200);
    expect(res.body.checkout).toMatchObject({ status: 'handed_off', payment_authorization_id: null });
    expect(res.body.checkout.continue_url).toMatch(/\/r\//);
    // A runtime over an intent the shop subscribes to asks it nothing (it waits for the run's answer).
    const rt = await post('/v1/commerce-runtime', { intent: { raw_query: 'a bouquet of flowers', intent_tags: ['flowers'] } });
    expect(rt.status, rt.text).toBe(201);
    expect(JSON.stringify(rt.body.runtime.agent_steps)).not.toContain(m.merchantId);
    expect(hits).toEqual([]);
  });
});

/**
 * The official UCP reference merchant (Universal-Commerce-Protocol/samples, `rest/python/server`,
 * UCP 2026-01-11, a flower shop), run beside the gateway on loopback: UCP_REFERENCE_URL names it
 * (docs/MERCHANTS.md says how to start it). Not part of CI: its code is not the project's.
 */
describe.skipIf(!process.env.UCP_REFERENCE_URL)('the official UCP reference merchant', () => {
  it('is registered by URL and sells a bouquet through the gateway', async () => {
    const url = process.env.UCP_REFERENCE_URL!.replace(/\/+$/, '');
    const m = await register({ agent_endpoint: url, protocol_version: 'ucp' });
    expect(m.merchant.protocol_profile).toMatchObject({ version: '2026-01-11' });
    const c = await chain(m, [{ id: 'bouquet_tulips', title: 'Spring Tulips', price: 3000 }], 'bouquet_tulips');
    const checkout = await plan(c);
    // Its own totals: 30.00 tulips plus its cheapest shipping (standard, 5.00), no tax.
    expect(checkout.plan.totals).toMatchObject({ subtotal_minor: 3000, shipping_minor: 500, total_minor: 3500 });
    // It accepts any token for its Google Pay handler (the mock handler it tests with is not in its profile).
    const res = await post(
      `/v1/agentic-checkout/${checkout.checkout_id}/confirm`,
      confirmBody(c, checkout.amount, { payment_credential: { handler: 'google_pay', token: 'reference-test-token' } }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.checkout.status).toBe('confirmed');
    const orderId = res.body.checkout.order.order_id as string;
    const order = await fetch(`${url}/orders/${orderId}`, {
      headers: { 'ucp-agent': `profile="${api.url}/ucp/platform-profile/2026-01-11"`, 'request-signature': 'x', 'request-id': orderId },
    });
    expect(order.status).toBe(200);
    expect(((await order.json()) as { id: string }).id).toBe(orderId);
  });
});

/**
 * The journey with a UCP business, as a shopper's agent makes it over each of the gateway's doors:
 * a sentence → the commerce runtime (which asks the business's catalog search) → plan → confirm →
 * the business's order. REST with plain HTTP, MCP with the official TypeScript client, A2A with
 * @a2a-js/sdk.
 */
describe('sentence → runtime → plan → confirm → order with a UCP business, over REST, MCP and A2A', () => {
  let business: UcpBusiness;
  const SENTENCE = 'buy a tulip bouquet under $40';
  const CATALOG = [
    { id: 'tulip_bouquet_red', title: 'Red Tulip Bouquet', price: 3000, stock: 100 },
    { id: 'rose_bouquet', title: 'Rose Bouquet', price: 3500, stock: 100 },
  ];

  beforeAll(async () => {
    business = await startUcpBusiness({ version: '2026-04-08', catalog: CATALOG, taxBps: 500, catalogSearch: true });
    closers.push(() => business.close());
    const m = await register({ agent_endpoint: business.url, protocol_version: 'ucp', subscription_tags: ['tulip', 'bouquet', 'flowers'] });
    expect(m.merchant.protocol_profile.catalog_search).toBe(true);
    const feed = await post(`/v1/merchant/${m.merchantId}/feeds`, { content: feedOf(CATALOG) }, { 'x-merchant-token': m.token });
    expect(feed.status, feed.text).toBe(200);
  });

  const credential = { handler: MOCK_HANDLER.id, token: TOKEN_OK };

  it('REST', async () => {
    const before = business.ordersPlaced();
    const rt = await post('/v1/commerce-runtime', {
      intent: { raw_query: SENTENCE, intent_tags: ['tulip', 'bouquet'], budget_range: { max: 40 } },
    });
    expect(rt.status, rt.text).toBe(201);
    const runtime = rt.body.runtime;
    expect(runtime.proposal).toMatchObject({ offer_title: 'Red Tulip Bouquet', price: 30 });
    expect(business.count('POST /catalog/search')).toBeGreaterThan(0);
    const planned = await post('/v1/agentic-checkout', {
      buyer_agent_id: 'rest-agent',
      intent_id: runtime.intent.intent_id,
      proposal_id: runtime.proposal.proposal_id,
      match_token_id: runtime.match_token.match_token_id,
      amount: 30,
      currency: 'USD',
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(planned.status, planned.text).toBe(201);
    const checkout = planned.body.checkout;
    expect(checkout.plan.totals).toMatchObject({ subtotal_minor: 3000, shipping_minor: 500, tax_minor: 150, total_minor: 3650 });
    const done = await post(`/v1/agentic-checkout/${checkout.checkout_id}/confirm`, {
      consent: { granted: true, statement: 'Yes, buy the tulips for 36.50 USD.' },
      match_token: runtime.match_token.signed_token,
      proposal_id: runtime.proposal.proposal_id,
      amount: 36.5,
      currency: 'USD',
      payment_credential: credential,
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.checkout.order.order_id).toEqual(expect.any(String));
    expect(business.ordersPlaced()).toBe(before + 1);
  });

  it('MCP (official TypeScript client)', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'protocol-journey', version: '0.0.1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', api.url), { requestInit: { headers: { authorization: `Bearer ${dev.apiKey}` } } }),
    );
    closers.push(() => client.close());
    const tool = async (name: string, args: Record<string, unknown>) => {
      const res: any = await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 });
      expect(res.isError, `${name}: ${JSON.stringify(res.content)}`).not.toBe(true);
      return res.structuredContent;
    };
    const before = business.ordersPlaced();
    const rt = await tool('run_commerce_runtime', { intent: SENTENCE, intent_tags: ['tulip', 'bouquet'], budget_max: 40, detail: 'full' });
    const tokenId = rt.match_token?.match_token_id;
    expect(tokenId, JSON.stringify(rt).slice(0, 400)).toEqual(expect.any(String));
    const planned = await tool('plan_checkout', {
      match_token_id: tokenId,
      buyer_agent_id: 'mcp-agent',
      buyer_full_name: BUYER.full_name,
      buyer_email: BUYER.email,
      ...Object.fromEntries(Object.entries(ADDRESS).map(([k, v]) => [`ship_to_${k}`, v])),
    });
    expect(planned.total).toBe(36.5);
    expect(planned.next_step).toContain(MOCK_HANDLER.id);
    const done = await tool('confirm_checkout', {
      checkout_id: planned.checkout_id,
      consent_granted: true,
      consent_statement: 'Yes, buy the tulips for 36.50 USD.',
      amount: 36.5,
      currency: 'USD',
      payment_handler: credential.handler,
      payment_token: credential.token,
    });
    expect(done.status).toBe('confirmed');
    expect(done.order_id).toEqual(expect.any(String));
    expect(business.ordersPlaced()).toBe(before + 1);
  });

  it('A2A (@a2a-js/sdk): the purchase data rides with the sentence, the credential with the consent', async () => {
    const { ClientFactory } = await import('@a2a-js/sdk/client');
    const { Role, TaskState } = await import('@a2a-js/sdk');
    const client = await new ClientFactory().createFromUrl(api.url);
    const auth = { serviceParameters: { Authorization: `Bearer ${dev.apiKey}` } };
    const part = (content: any) => ({ content, metadata: undefined, filename: '', mediaType: '' });
    const message = (parts: any[], task?: any): any => ({
      messageId: uid('msg'),
      contextId: task?.contextId ?? '',
      taskId: task?.id ?? '',
      role: Role.ROLE_USER,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    const send = (m: any) => client.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined }, auth);
    const before = business.ordersPlaced();
    const asked: any = await send(
      message([
        part({ $case: 'text', value: SENTENCE }),
        part({ $case: 'data', value: { purchase: { buyer: BUYER, shipping_address: ADDRESS } } }),
      ]),
    );
    expect(asked.status?.state, JSON.stringify(asked.status)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done: any = await send(
      message(
        [part({ $case: 'data', value: { consent: { granted: true, statement: 'Yes, buy the tulips.' }, payment_credential: credential } })],
        asked,
      ),
    );
    expect(done.status?.state, JSON.stringify(done.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(business.ordersPlaced()).toBe(before + 1);
    expect(business.validationErrors).toEqual([]);
  });
});
