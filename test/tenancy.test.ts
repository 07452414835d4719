import { generateKeyPairSync } from 'node:crypto';
import type http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRoutes } from '../api/app';
import { call, type HttpResult } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';

/**
 * Tenancy (docs/TENANCY.md): developer A creates one of everything; developer B then walks EVERY route
 * of the route registry (the list the OpenAPI document and router are built from) against A's ids.
 * Each route must have an ownership decision in WALK below: a route added later without one fails
 * here, so the walk cannot go stale.
 */

let api: TestApi;
let stopWorker: () => Promise<void>;
let agentServer: LoopbackServer;
let a: Onboarded;
let b: Onboarded;
type Name =
  | 'merchant'
  | 'merchantToken'
  | 'agent'
  | 'product'
  | 'intent'
  | 'proposal'
  | 'session'
  | 'token'
  | 'jws'
  | 'authorization'
  | 'checkout'
  | 'mandate'
  | 'shopper'
  | 'event'
  | 'recIntent'
  | 'recSession'
  | 'recId'
  | 'runtime'
  | 'creator'
  | 'delivery';
/** A's records, by name. */
const A = {} as Record<Name, string>;
/** B's own merchant (registered by B, subscribing to nothing A asks for). */
const B = {} as Record<'merchant' | 'merchantToken', string>;

const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const req = (dev: Onboarded, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(api.url, method, path, { token: dev.apiKey, body, headers });

/** A POST that must succeed; returns its body. */
async function ok(dev: Onboarded, path: string, body: unknown, headers: Record<string, string> = {}, status = [200, 201]) {
  const res = await req(dev, 'POST', path, body, headers);
  expect(status, `${path}: ${res.text}`).toContain(res.status);
  return res.body;
}

beforeAll(async () => {
  const mandateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true', MANDATE_SIGNING_KEY: mandateKey, DISPATCH_TIMEOUT_MS: '2000' } });
  stopWorker = (await startTestWorker(api.config, api.db)).stop;
  // A's merchant agent: accepts every handoff.
  agentServer = await startLoopback((_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ order_id: 'ord-1', accepted: true }));
  });
  [a, b] = await Promise.all([onboard(api.url), onboard(api.url)]);

  // --- A creates one of everything ---
  A.merchant = uid('mer-a');
  const reg = await ok(a, '/v1/merchant/register', { merchant_id: A.merchant, agent_endpoint: `${agentServer.url}/agent` });
  A.merchantToken = reg.registration_token;
  A.agent = uid('agent-a');
  await ok(a, '/v1/agents/register', {
    agent_id: A.agent,
    agent_type: 'payment',
    endpoint: 'http://127.0.0.1:9/agent',
    protocols: ['a2a'],
    capabilities: ['authorize'],
  });
  const product = await api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('inventory_qty', '>', 20)
    .where('currency', '=', 'USD')
    .orderBy('product_id')
    .executeTakeFirstOrThrow();
  A.product = String(product.product_id);
  A.intent = (await ok(a, '/v1/intents', { raw_query: 'a sturdy water bottle for hiking', experience_context: {} })).intent.intent_id;
  const proposal = (
    await ok(
      a,
      '/v1/proposals',
      {
        merchant_agent_id: A.merchant,
        intent_id: A.intent,
        product_id: product.product_id,
        offer_title: 'Bottle',
        price: product.price_cents / 100,
        shipping_commitment: { free: true },
      },
      { 'x-merchant-token': A.merchantToken },
    )
  ).proposal;
  A.proposal = proposal.proposal_id;
  A.session = (await ok(a, '/v1/match', { intent_id: A.intent, proposal_ids: [A.proposal] })).match_session.match_session_id;
  const token = (await ok(a, `/v1/match/${A.session}/accept`, { proposal_id: A.proposal })).match_token;
  A.token = token.match_token_id;
  A.jws = token.signed_token;
  A.authorization = (await ok(a, `/v1/match-tokens/${A.token}/payment-authorization`, {})).payment_authorization.authorization_id;
  A.checkout = (
    await ok(a, '/v1/agentic-checkout', {
      buyer_agent_id: 'buyer-a',
      intent_id: A.intent,
      proposal_id: A.proposal,
      match_token_id: A.token,
      amount: product.price_cents / 100,
      currency: 'USD',
    })
  ).checkout.checkout_id;
  A.mandate = (
    await ok(a, '/v1/intent-mandates/sign', { product_id: A.product, amount_limit: 10, intent_id: A.intent })
  ).mandate.mandate_id;
  A.shopper = uid('shopper-a');
  A.event = (
    await ok(a, '/v1/decision-events', { event_type: 'pick', proposal_id: A.proposal, agent_id: A.shopper })
  ).decision_event.feedback_id;
  const rec = await req(a, 'GET', `/v1/recommend?${new URLSearchParams({ intent: 'hiking water bottle', limit: '2' })}`);
  expect(rec.status, rec.text).toBe(200);
  A.recIntent = rec.body.intent_id;
  A.recSession = rec.body.match_session_id;
  A.recId = rec.body.items[0].rec_id;
  const runtime = await req(
    a,
    'POST',
    '/v1/commerce-runtime',
    { intent: { raw_query: 'a sturdy water bottle for hiking' }, commerce_budget: { max_merchant_queries: 1 } },
    { prefer: 'wait=60' },
  );
  expect([201, 202], runtime.text).toContain(runtime.status);
  A.runtime = runtime.body.runtime?.runtime_session.runtime_id ?? runtime.body.runtime_id;
  const creator = await api.db.selectFrom('creators').select('username').orderBy('creator_id').executeTakeFirst();
  A.creator = creator?.username ?? 'nobody';
  // A delivery of A's intent to A's merchant, with one failed attempt (as the fan-out records them).
  A.delivery = `dlv_${uid('a')}`;
  await api.db
    .insertInto('deliveries')
    .values({
      delivery_id: A.delivery,
      intent_id: A.intent,
      merchant_id: A.merchant,
      state: 'pending',
      endpoint: `${agentServer.url}/agent`,
      payload: '{}',
      attempts: 1,
    })
    .execute();
  await api.db
    .insertInto('delivery_attempts')
    .values({
      delivery_id: A.delivery,
      attempt: 1,
      replay: 0,
      outcome: 'failed',
      status_code: 503,
      error: 'HTTP 503',
      latency_ms: 12,
      retry_after_s: null,
      attempted_at: new Date(),
    })
    .execute();

  // --- B's own merchant: registered by B, subscribing to tags A's intent does not carry ---
  B.merchant = uid('mer-b');
  B.merchantToken = (
    await ok(b, '/v1/merchant/register', {
      merchant_id: B.merchant,
      agent_endpoint: 'http://127.0.0.1:9/agent',
      subscription_tags: ['zzz-nothing'],
    })
  ).registration_token;
}, 180_000);

afterAll(async () => {
  await agentServer?.close();
  await stopWorker?.();
  await api?.close();
});

/** Same shape as a real id, naming nothing. */
const unknownLike = (id: string) => id.replace(/[A-Za-z0-9]{6}$/, 'Zz9Zz9');

type Req = { params?: Record<string, string>; query?: string; body?: unknown; headers?: Record<string, string> };

type Entry =
  /** A's record, named in the path or body: B gets the not-found it gets for an id naming nothing. */
  | { kind: 'owned'; req: (ids: Record<string, string>) => Req; ids: string[]; expect: [number, string]; as?: 'developer' }
  /** Public by design (docs/TENANCY.md): B gets what A gets. */
  | { kind: 'public'; reason: string; req: () => Req; expect: number[] }
  /** B's API key is not a credential this route takes (operators, console sessions, registration tokens). */
  | { kind: 'credential'; reason: string; req?: () => Req; expect: [number, string] }
  /** Names no other record: creates or reads the caller's own only. */
  | { kind: 'self'; reason: string };

const confirmBody = () => ({
  consent: { granted: true, statement: 'I agree' },
  match_token: A.jws,
  proposal_id: A.proposal,
  amount: 1,
  currency: 'USD',
});

/** Every route of the registry, with its ownership decision. Keys are `METHOD path` as the registry spells them. */
const WALK: Record<string, Entry> = {
  'GET /healthz': { kind: 'public', reason: 'health probe', req: () => ({}), expect: [200, 503] },
  'GET /openapi.json': { kind: 'public', reason: 'the contract', req: () => ({}), expect: [200] },
  'GET /.well-known/agent-card.json': {
    kind: 'public',
    reason: 'the A2A agent card is public by definition',
    req: () => ({}),
    expect: [200],
  },
  'GET /.well-known/jwks.json': { kind: 'public', reason: 'public keys verifying tokens and mandates', req: () => ({}), expect: [200] },
  'GET /skills/{skillName}/SKILL.md': {
    kind: 'public',
    reason: 'published documentation',
    req: () => ({ params: { skillName: 'intent-matching' } }),
    expect: [200, 404],
  },
  'GET /docs/INTENT_MATCHING_PROTOCOL.md': { kind: 'public', reason: 'published documentation', req: () => ({}), expect: [200] },
  'GET /ucp/platform-profile': {
    kind: 'public',
    reason: "the gateway's UCP platform profile, read by businesses",
    req: () => ({}),
    expect: [200],
  },
  'GET /ucp/platform-profile/{version}': {
    kind: 'public',
    reason: "the gateway's UCP platform profile at an older version",
    req: () => ({ params: { version: '2026-01-11' } }),
    expect: [200],
  },
  'GET /.well-known/ucp': {
    kind: 'public',
    reason: "the gateway's UCP business profile, read by platforms",
    req: () => ({}),
    expect: [200],
  },
  'POST /ucp/catalog/search': { kind: 'self', reason: "creates the caller's own intent, proposals and session, as GET /v1/recommend" },
  'POST /ucp/catalog/lookup': {
    kind: 'public',
    reason: 'catalog (UCP lookup by catalog product id)',
    req: () => ({ body: { ids: [A.product] }, headers: { 'ucp-agent': `profile="${api.url}/.well-known/ucp"` } }),
    expect: [200],
  },
  'POST /ucp/catalog/product': {
    kind: 'public',
    reason: 'catalog (UCP get product by catalog product id)',
    req: () => ({ body: { id: A.product }, headers: { 'ucp-agent': `profile="${api.url}/.well-known/ucp"` } }),
    expect: [200],
  },
  'POST /ucp/webhooks/orders': {
    kind: 'credential',
    reason: "a UCP business's order event: only its signature (its profile's keys) is a credential, never an API key",
    req: () => ({ body: {} }),
    expect: [400, 'invalid_order_event'],
  },
  'POST /acp/webhooks/{merchantId}/orders': {
    kind: 'credential',
    reason: "an ACP seller's order event: only its Merchant-Signature is a credential; A's merchant is no ACP seller",
    req: () => ({ params: { merchantId: A.merchant }, body: {} }),
    expect: [404, 'merchant_not_found'],
  },
  'GET /v1/whoami': { kind: 'self', reason: "the caller's own key" },
  'POST /v1/developers/register': { kind: 'self', reason: 'creates an account' },
  'POST /v1/developers/login': { kind: 'self', reason: "the caller's own account" },
  'GET /v1/developers/me': { kind: 'credential', reason: 'console session only', expect: [401, 'invalid_developer_token'] },
  'POST /v1/developers/invite/verify': {
    kind: 'credential',
    reason: 'console session only',
    req: () => ({ body: { invite_code: 'x' } }),
    expect: [401, 'invalid_developer_token'],
  },
  'GET /v1/developers/keys': {
    kind: 'credential',
    reason: 'console session only (lists the session developer’s keys)',
    expect: [401, 'invalid_developer_token'],
  },
  'POST /v1/developers/keys': {
    kind: 'credential',
    reason: 'console session only',
    req: () => ({ body: {} }),
    expect: [401, 'invalid_developer_token'],
  },
  'PATCH /v1/developers/keys/{keyId}': {
    kind: 'owned',
    as: 'developer',
    ids: ['key'],
    req: (i) => ({ params: { keyId: i.key! }, body: { label: 'mine now' } }),
    expect: [404, 'api_key_not_found'],
  },
  'POST /v1/developers/keys/{keyId}/revoke': {
    kind: 'owned',
    as: 'developer',
    ids: ['key'],
    req: (i) => ({ params: { keyId: i.key! } }),
    expect: [404, 'api_key_not_found'],
  },
  'DELETE /v1/developers/keys/{keyId}': {
    kind: 'owned',
    as: 'developer',
    ids: ['key'],
    req: (i) => ({ params: { keyId: i.key! } }),
    expect: [404, 'api_key_not_found'],
  },
  'POST /v1/developers/keys/{keyId}/reveal': {
    kind: 'owned',
    as: 'developer',
    ids: ['key'],
    req: (i) => ({ params: { keyId: i.key! } }),
    expect: [404, 'api_key_not_found'],
  },
  'GET /v1/developers/logs': {
    kind: 'credential',
    reason: 'console session only (the session developer’s own logs)',
    expect: [401, 'invalid_developer_token'],
  },
  'GET /v1/merchant/dispatch-queue': {
    kind: 'credential',
    reason: "operators see every delivery; an API key only with a merchant's X-Merchant-Token, that merchant's own (checked below)",
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/dispatch-queue/{deliveryId}': {
    kind: 'credential',
    reason: "operators, or the delivery's merchant with its X-Merchant-Token; another merchant's token: 404 (checked below)",
    req: () => ({ params: { deliveryId: A.delivery } }),
    expect: [401, 'missing_registration_token'],
  },
  'POST /v1/merchant/dispatch-queue/retry': {
    kind: 'credential',
    reason: 'operators only',
    req: () => ({ body: {} }),
    expect: [401, 'invalid_supply_key'],
  },
  'POST /v1/merchant/register': {
    kind: 'credential',
    reason: "re-registering (taking over) A's merchant needs A's X-Merchant-Token; new registrations are the caller's own",
    req: () => ({ body: { merchant_id: A.merchant, agent_endpoint: 'http://127.0.0.1:9/x' } }),
    expect: [401, 'missing_registration_token'],
  },
  'POST /v1/merchant/heartbeat': {
    kind: 'credential',
    reason: "needs the merchant's registration token",
    req: () => ({ body: { merchant_id: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/{merchantId}': {
    kind: 'public',
    reason: 'registry lookup',
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [200],
  },
  'POST /v1/merchant/{merchantId}/deactivate': {
    kind: 'credential',
    reason: "needs the merchant's registration token",
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  'POST /v1/merchant/{merchantId}/feeds': {
    kind: 'credential',
    reason: "imports into the merchant's own catalog: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant }, body: { content: 'id,title,price\n1,x,1' } }),
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/{merchantId}/feeds': {
    kind: 'credential',
    reason: "the merchant's own registered feeds: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  // With another merchant's token: 403 (test/merchant-ids.test.ts).
  'GET /v1/merchant/{merchantId}/products': {
    kind: 'credential',
    reason: "the merchant's own products with both ids: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  // With its own token, a merchant naming another's feed id gets feed_not_found (test/feed-refresh.test.ts).
  'GET /v1/merchant/{merchantId}/feeds/{feedId}': {
    kind: 'credential',
    reason: "the merchant's own feed: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant, feedId: 'feed_x' } }),
    expect: [401, 'missing_registration_token'],
  },
  'DELETE /v1/merchant/{merchantId}/feeds/{feedId}': {
    kind: 'credential',
    reason: "removes the merchant's own feed: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant, feedId: 'feed_x' } }),
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/{merchantId}/feeds/{feedId}/runs': {
    kind: 'credential',
    reason: "the merchant's own feed runs: needs its registration token",
    req: () => ({ params: { merchantId: A.merchant, feedId: 'feed_x' } }),
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/{merchantId}/health': {
    kind: 'public',
    reason: 'registry lookup',
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [200, 503],
  },
  'GET /v1/merchant/{merchantId}/agent-readiness': {
    kind: 'public',
    reason: 'registry lookup',
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [200],
  },
  'POST /v1/agents/register': {
    kind: 'credential',
    reason: "re-registering A's agent needs A's X-Agent-Token; new registrations are the caller's own",
    req: () => ({ body: { agent_id: A.agent, agent_type: 'payment', endpoint: 'http://127.0.0.1:9/agent' } }),
    expect: [401, 'agent_token_required'],
  },
  'POST /v1/agents/import-card': { kind: 'self', reason: "creates the caller's own agent (an existing id needs its token, as register)" },
  'GET /v1/agents': { kind: 'public', reason: 'registry listing', req: () => ({}), expect: [200] },
  'GET /v1/agents/{agentId}': { kind: 'public', reason: 'registry lookup', req: () => ({ params: { agentId: A.agent } }), expect: [200] },
  'POST /v1/agents/{agentId}/heartbeat': {
    kind: 'credential',
    reason: "needs the agent's registration token",
    req: () => ({ params: { agentId: A.agent } }),
    expect: [401, 'agent_token_required'],
  },
  'POST /v1/agents/{agentId}/deactivate': {
    kind: 'credential',
    reason: "needs the agent's registration token",
    req: () => ({ params: { agentId: A.agent } }),
    expect: [401, 'agent_token_required'],
  },
  'POST /v1/intents': { kind: 'self', reason: "creates the caller's own intent" },
  'GET /v1/intents/{intentId}': {
    kind: 'owned',
    ids: ['intent'],
    req: (i) => ({ params: { intentId: i.intent! } }),
    expect: [404, 'intent_not_found'],
  },
  'GET /v1/intents/{intentId}/proposals': {
    kind: 'owned',
    ids: ['intent'],
    req: (i) => ({ params: { intentId: i.intent! } }),
    expect: [404, 'intent_not_found'],
  },
  'POST /v1/proposals': {
    kind: 'owned',
    ids: ['intent'],
    req: (i) => ({
      body: { merchant_agent_id: B.merchant, intent_id: i.intent, product_id: Number(A.product), offer_title: 'x', price: 1 },
      headers: { 'x-merchant-token': B.merchantToken },
    }),
    expect: [404, 'intent_not_found'],
  },
  'GET /v1/proposals/{proposalId}': {
    kind: 'owned',
    ids: ['proposal'],
    req: (i) => ({ params: { proposalId: i.proposal! } }),
    expect: [404, 'proposal_not_found'],
  },
  'POST /v1/match': { kind: 'owned', ids: ['intent'], req: (i) => ({ body: { intent_id: i.intent } }), expect: [404, 'intent_not_found'] },
  'GET /v1/match/{matchSessionId}': {
    kind: 'owned',
    ids: ['session'],
    req: (i) => ({ params: { matchSessionId: i.session! } }),
    expect: [404, 'match_not_found'],
  },
  'POST /v1/match/{matchSessionId}/accept': {
    kind: 'owned',
    ids: ['session'],
    req: (i) => ({ params: { matchSessionId: i.session! }, body: {} }),
    expect: [404, 'match_not_found'],
  },
  'GET /v1/match-tokens/{matchTokenId}': {
    kind: 'owned',
    ids: ['token'],
    req: (i) => ({ params: { matchTokenId: i.token! } }),
    expect: [404, 'match_token_not_found'],
  },
  // This operation's not-found is 409 match_token_invalid (its declared answer for an unknown token).
  'POST /v1/match-tokens/{matchTokenId}/payment-authorization': {
    kind: 'owned',
    ids: ['token'],
    req: (i) => ({ params: { matchTokenId: i.token! }, body: {} }),
    expect: [409, 'match_token_invalid'],
  },
  'GET /v1/payment-authorizations/{authorizationId}': {
    kind: 'owned',
    ids: ['authorization'],
    req: (i) => ({ params: { authorizationId: i.authorization! } }),
    expect: [404, 'payment_authorization_not_found'],
  },
  'GET /v1/recommend': { kind: 'self', reason: "creates the caller's own intent, proposals and session" },
  'GET /v1/cards/{recId}': {
    kind: 'public',
    reason: 'cards travel to shoppers by their unguessable rec_id',
    req: () => ({ params: { recId: A.recId } }),
    expect: [200],
  },
  'GET /v1/products/{productId}/card': {
    kind: 'public',
    reason: 'catalog',
    req: () => ({ params: { productId: A.product } }),
    expect: [200],
  },
  'GET /v1/creators/{username}/showcase': {
    kind: 'public',
    reason: 'catalog',
    req: () => ({ params: { username: A.creator } }),
    expect: [200, 404],
  },
  'GET /r/{recId}': {
    kind: 'public',
    reason: 'the shopper-facing click redirect',
    req: () => ({ params: { recId: A.recId } }),
    expect: [302],
  },
  'GET /v1/proof-feed': { kind: 'public', reason: 'catalog evidence', req: () => ({}), expect: [200] },
  'POST /v1/intent-mandates/sign': {
    kind: 'owned',
    ids: ['intent'],
    req: (i) => ({ body: { product_id: A.product, amount_limit: 1, intent_id: i.intent } }),
    expect: [404, 'intent_not_found'],
  },
  'POST /v1/agentic-checkout': {
    kind: 'owned',
    ids: ['intent', 'proposal', 'token'],
    req: (i) => ({
      body: {
        buyer_agent_id: 'buyer-b',
        intent_id: i.intent,
        proposal_id: i.proposal,
        match_token_id: i.token,
        amount: 1,
        currency: 'USD',
      },
    }),
    expect: [404, 'intent_not_found'],
  },
  'GET /v1/agentic-checkout/{checkoutId}': {
    kind: 'owned',
    ids: ['checkout'],
    req: (i) => ({ params: { checkoutId: i.checkout! } }),
    expect: [404, 'checkout_not_found'],
  },
  'POST /v1/agentic-checkout/{checkoutId}/confirm': {
    kind: 'owned',
    ids: ['checkout'],
    req: (i) => ({ params: { checkoutId: i.checkout! }, body: confirmBody() }),
    expect: [404, 'checkout_not_found'],
  },
  'POST /v1/commerce-runtime': { kind: 'self', reason: "creates the caller's own runtime and records" },
  'GET /v1/commerce-runtime/{runtimeId}': {
    kind: 'owned',
    ids: ['runtime'],
    req: (i) => ({ params: { runtimeId: i.runtime! } }),
    expect: [404, 'runtime_not_found'],
  },
  'POST /v1/decision-events': {
    kind: 'owned',
    ids: ['proposal'],
    req: (i) => ({ body: { event_type: 'pick', proposal_id: i.proposal, agent_id: 'b-agent' } }),
    expect: [404, 'proposal_not_found'],
  },
  // 200 either way: B's feed for A's shopper agent tells nothing of A's events (checked below too).
  'POST /v1/experience-feed': {
    kind: 'owned',
    ids: ['shopper'],
    req: (i) => ({ body: { agent_id: i.shopper, limit: 2 } }),
    expect: [200, ''],
  },
  'GET /v1/merchant/{merchantId}/sla': {
    kind: 'credential',
    reason: "operators read any merchant's SLA; an API key only with that merchant's X-Merchant-Token (checked below)",
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  'GET /v1/merchant/{merchantId}/reputation': {
    kind: 'credential',
    reason: 'operators only',
    req: () => ({ params: { merchantId: A.merchant } }),
    expect: [401, 'invalid_supply_key'],
  },
  'GET /v1/report/attribution': { kind: 'self', reason: "an API key's report counts its own developer's traffic only (checked below)" },
  'POST /v1/billing/settlement-preview': {
    kind: 'credential',
    reason: "an API key previews a merchant's settlement only with that merchant's X-Merchant-Token; operators preview any",
    req: () => ({ body: { merchant_id: A.merchant } }),
    expect: [401, 'missing_registration_token'],
  },
  'POST /v1/reconciliation/platform-affiliate/run': {
    kind: 'credential',
    reason: 'operators only',
    req: () => ({ body: {} }),
    expect: [401, 'invalid_supply_key'],
  },
  'GET /v1/reconciliation/runs/{runId}': {
    kind: 'credential',
    reason: 'operators only',
    req: () => ({ params: { runId: 'rec_x' } }),
    expect: [401, 'invalid_supply_key'],
  },
};

const routeKeys = () => buildRoutes().routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);

function urlOf(path: string, r: Req): string {
  let url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = r.params?.[name];
    if (v === undefined) throw new Error(`no value for {${name}} of ${path}`);
    return encodeURIComponent(v);
  });
  if (r.query) url += `?${r.query}`;
  return url;
}

async function send(dev: Onboarded, key: string, r: Req, as: 'apiKey' | 'developer' = 'apiKey'): Promise<HttpResult> {
  const [method, path] = key.split(' ') as [string, string];
  return call(api.url, method, urlOf(path, r), {
    token: as === 'developer' ? dev.developerToken : dev.apiKey,
    body: r.body,
    headers: r.headers,
  });
}

/** Ids of A's records that B did not name itself must never appear in what B is told. */
function assertNoLeak(res: HttpResult, sent: Req, key: string) {
  const named = JSON.stringify(sent);
  for (const [name, id] of Object.entries(A)) {
    if (['product', 'creator', 'merchant', 'agent', 'recId', 'jws', 'merchantToken'].includes(name) || named.includes(id)) continue;
    expect(res.text.includes(id), `${key} shows A's ${name} ${id}: ${res.text.slice(0, 300)}`).toBe(false);
  }
}

describe('tenancy: the route walk', () => {
  it('every route of the registry has an ownership decision (a new route must add one here)', () => {
    const keys = routeKeys();
    expect(
      keys.filter((k) => !(k in WALK)),
      'routes without an ownership decision',
    ).toEqual([]);
    expect(
      Object.keys(WALK).filter((k) => !keys.includes(k)),
      'decisions for routes that no longer exist',
    ).toEqual([]);
    for (const [k, e] of Object.entries(WALK)) if (e.kind !== 'owned') expect(e.reason.length, k).toBeGreaterThan(5);
  });

  it("B gets, on every route naming A's records, exactly what an id naming nothing gets (404 with the resource's code)", async () => {
    const ids: Record<string, string> = { ...A, key: a.keyId };
    const failures: string[] = [];
    for (const key of routeKeys()) {
      const e = WALK[key]!;
      if (e.kind !== 'owned') continue;
      const onA = e.req(ids);
      const unknown = e.req(Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, e.ids.includes(k) ? unknownLike(v) : v])));
      const [theirs, nothing] = [await send(b, key, onA, e.as), await send(b, key, unknown, e.as)];
      assertNoLeak(theirs, onA, key);
      if (theirs.status !== e.expect[0] || (e.expect[1] && theirs.body?.error !== e.expect[1]))
        failures.push(`${key}: B got ${theirs.status} ${theirs.text.slice(0, 200)}`);
      if (theirs.status !== nothing.status || theirs.body?.error !== nothing.body?.error)
        failures.push(`${key}: A's id ${theirs.status} ${theirs.body?.error} ≠ unknown id ${nothing.status} ${nothing.body?.error}`);
    }
    expect(failures).toEqual([]);
  });

  it('B gets the documented answer on routes its API key cannot use, and public routes answer B as they answer A', async () => {
    const failures: string[] = [];
    for (const key of routeKeys()) {
      const e = WALK[key]!;
      if (e.kind === 'credential') {
        const r = e.req?.() ?? {};
        const res = await send(b, key, r);
        assertNoLeak(res, r, key);
        // ACP paths answer ACP's flat errors: the code is `code` there.
        const code = res.body?.error ?? res.body?.code;
        if (res.status !== e.expect[0] || code !== e.expect[1]) failures.push(`${key}: ${res.status} ${res.text.slice(0, 200)}`);
      } else if (e.kind === 'public') {
        const [mine, theirs] = [await send(a, key, e.req()), await send(b, key, e.req())];
        if (!e.expect.includes(theirs.status) || theirs.status !== mine.status)
          failures.push(`${key}: A ${mine.status}, B ${theirs.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('A still gets 200 on its own records', async () => {
    for (const path of [
      `/v1/intents/${A.intent}`,
      `/v1/intents/${A.intent}/proposals`,
      `/v1/proposals/${A.proposal}`,
      `/v1/match/${A.session}`,
      `/v1/match-tokens/${A.token}`,
      `/v1/payment-authorizations/${A.authorization}`,
      `/v1/agentic-checkout/${A.checkout}`,
      `/v1/commerce-runtime/${A.runtime}`,
      `/v1/intents/${A.recIntent}`,
      `/v1/match/${A.recSession}`,
    ]) {
      const res = await req(a, 'GET', path);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
    }
    // Acting again on its own records still works (idempotent answers).
    expect((await req(a, 'POST', `/v1/match/${A.session}/accept`, { proposal_id: A.proposal })).body.match_token.match_token_id).toBe(
      A.token,
    );
    expect(
      (await req(a, 'POST', `/v1/match-tokens/${A.token}/payment-authorization`, {})).body.payment_authorization.authorization_id,
    ).toBe(A.authorization);
  });
});

describe('tenancy: what the walk cannot see from the status alone', () => {
  it("the owner sees a token's trace_ids; records carry the owner's developer_id", async () => {
    const mine = (await req(a, 'GET', `/v1/match-tokens/${A.token}`)).body.match_token;
    expect(mine.trace_ids).toMatchObject({ developer_id: a.developerId, api_key_id: a.keyId, match_session_id: A.session });
    for (const [table, col, id] of [
      ['intents', 'intent_id', A.intent],
      ['intents', 'intent_id', A.recIntent],
      ['match_sessions', 'match_session_id', A.session],
      ['match_sessions', 'match_session_id', A.recSession],
      ['match_tokens', 'match_token_id', A.token],
      ['payment_authorizations', 'authorization_id', A.authorization],
      ['agentic_checkouts', 'checkout_id', A.checkout],
      ['commerce_runtimes', 'runtime_id', A.runtime],
      ['intent_mandates', 'mandate_id', A.mandate],
      ['decision_events', 'feedback_id', A.event],
    ] as const) {
      const { rows } = await sql<{
        developer_id: string | null;
      }>`select developer_id from ${sql.table(table)} where ${sql.ref(col)} = ${id}`.execute(api.db);
      expect(rows[0]?.developer_id, table).toBe(a.developerId);
    }
  });

  it('a token without an owner (keyless portal demo) reads without trace_ids, and nobody can accept its session', async () => {
    const demo = await call(
      api.url,
      'GET',
      `/v1/recommend?${new URLSearchParams({ intent: 'hiking water bottle', channel: 'portal_demo', limit: '1' })}`,
    );
    expect(demo.status, demo.text).toBe(200);
    expect((await req(b, 'GET', `/v1/match/${demo.body.match_session_id}`)).status).toBe(200);
    expect((await req(b, 'GET', `/v1/intents/${demo.body.intent_id}`)).status).toBe(200);
    const accept = await req(a, 'POST', `/v1/match/${demo.body.match_session_id}/accept`, {});
    expect([accept.status, accept.body.error]).toEqual([404, 'match_not_found']);
    const match = await req(a, 'POST', '/v1/match', { intent_id: demo.body.intent_id });
    expect([match.status, match.body.error]).toEqual([404, 'intent_not_found']);
    // A token without an owner (as recorded before ownership was) is readable by id, its trace_ids are not.
    await api.db.updateTable('match_tokens').set({ developer_id: null }).where('match_token_id', '=', A.token).execute();
    try {
      const seen = (await req(b, 'GET', `/v1/match-tokens/${A.token}`)).body.match_token;
      expect(seen.trace_ids).toEqual({});
    } finally {
      await api.db.updateTable('match_tokens').set({ developer_id: a.developerId }).where('match_token_id', '=', A.token).execute();
    }
  });

  it("B's experience feed for A's shopper agent knows nothing of A's decision events", async () => {
    const theirs = (await req(b, 'POST', '/v1/experience-feed', { agent_id: A.shopper, limit: 2 })).body.feed;
    const mine = (await req(a, 'POST', '/v1/experience-feed', { agent_id: A.shopper, limit: 2 })).body.feed;
    expect(mine.taste_profile.derived.event_count).toBeGreaterThan(0);
    expect(theirs.taste_profile.derived.event_count).toBe(0);
  });

  it("a merchant reads, with its registration token, an intent that reached it and its own proposals; another merchant's token does not", async () => {
    const asMerchant = (token: string, path: string) =>
      call(api.url, 'GET', path, { token: b.apiKey, headers: { 'x-merchant-token': token } });
    // A's merchant proposed to A's intent: with its token, B's key (the merchant's operator) reads both.
    expect((await asMerchant(A.merchantToken, `/v1/intents/${A.intent}`)).status).toBe(200);
    expect((await asMerchant(A.merchantToken, `/v1/proposals/${A.proposal}`)).status).toBe(200);
    const listed = await asMerchant(A.merchantToken, `/v1/intents/${A.intent}/proposals`);
    expect(listed.body.proposals.map((p: { proposal_id: string }) => p.proposal_id)).toEqual([A.proposal]);
    // B's merchant was not sent A's intent.
    expect((await asMerchant(B.merchantToken, `/v1/intents/${A.intent}`)).body.error).toBe('intent_not_found');
    expect((await asMerchant(B.merchantToken, `/v1/proposals/${A.proposal}`)).body.error).toBe('proposal_not_found');
    expect((await asMerchant('mrt_not_a_token', `/v1/intents/${A.intent}`)).status).toBe(403);
  });

  it("a merchant reads its own deliveries (with their attempts) and SLA with its token; another merchant's are 404 or left out; operators see all", async () => {
    const asMerchant = (token: string, path: string) =>
      call(api.url, 'GET', path, { token: b.apiKey, headers: { 'x-merchant-token': token } });
    const asOperator = (path: string) => call(api.url, 'GET', path, { headers: { 'x-supply-key': TEST_SUPPLY_KEY } });
    const ids = (res: HttpResult) => res.body.deliveries.map((d: { delivery_id: string }) => d.delivery_id);
    // The delivery's own merchant: the delivery and every attempt, and it is listed.
    const own = await asMerchant(A.merchantToken, `/v1/merchant/dispatch-queue/${A.delivery}`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.delivery.merchant_id).toBe(A.merchant);
    expect(own.body.attempts.map((t: { status_code: number }) => t.status_code)).toEqual([503]);
    const ownList = await asMerchant(A.merchantToken, '/v1/merchant/dispatch-queue?limit=500');
    expect(ids(ownList)).toContain(A.delivery);
    expect(ownList.body.deliveries.every((d: { merchant_id: string }) => d.merchant_id === A.merchant)).toBe(true);
    expect(ownList.body.summary.pending).toBeGreaterThanOrEqual(1);
    // Another merchant: the delivery is an unknown id, and it is not listed, even when filtered for.
    const other = await asMerchant(B.merchantToken, `/v1/merchant/dispatch-queue/${A.delivery}`);
    const nothing = await asMerchant(B.merchantToken, `/v1/merchant/dispatch-queue/${unknownLike(A.delivery)}`);
    expect([other.status, other.body.error]).toEqual([404, 'delivery_not_found']);
    expect([nothing.status, nothing.body.error]).toEqual([404, 'delivery_not_found']);
    const otherList = await asMerchant(
      B.merchantToken,
      `/v1/merchant/dispatch-queue?${new URLSearchParams({ merchant_id: A.merchant, limit: '500' })}`,
    );
    expect(otherList.status, otherList.text).toBe(200);
    expect(otherList.body).toEqual({ summary: { pending: 0, inflight: 0, delivered: 0, dlq: 0 }, deliveries: [] });
    expect(otherList.text).not.toContain(A.intent);
    expect((await asMerchant('mrt_not_a_token', '/v1/merchant/dispatch-queue')).status).toBe(403);
    // Operators see every merchant's.
    expect((await asOperator(`/v1/merchant/dispatch-queue/${A.delivery}`)).status).toBe(200);
    expect(ids(await asOperator(`/v1/merchant/dispatch-queue?${new URLSearchParams({ merchant_id: A.merchant })}`))).toContain(A.delivery);
    // SLA: the merchant's own with its token; another merchant's token is refused (the SLA is not shown); operators read any.
    const sla = await asMerchant(A.merchantToken, `/v1/merchant/${A.merchant}/sla?days=1`);
    expect(sla.status, sla.text).toBe(200);
    expect(sla.body.merchant_id).toBe(A.merchant);
    const otherSla = await asMerchant(B.merchantToken, `/v1/merchant/${A.merchant}/sla?days=1`);
    expect([otherSla.status, otherSla.body.error]).toEqual([403, 'invalid_registration_token']);
    expect((await asOperator(`/v1/merchant/${A.merchant}/sla?days=1`)).status).toBe(200);
  });

  it('a merchant may propose to an intent dispatched to it or meeting its subscription, not to others', async () => {
    const product = Number(A.product);
    const body = (merchant: string, intent: string) => ({
      merchant_agent_id: merchant,
      intent_id: intent,
      product_id: product,
      offer_title: 'x',
      price: 1,
    });
    const tagged = (await ok(a, '/v1/intents', { raw_query: 'bottle', intent_tags: [`tag-${B.merchant}`] })).intent.intent_id;
    const refused = await req(b, 'POST', '/v1/proposals', body(B.merchant, tagged), { 'x-merchant-token': B.merchantToken });
    expect([refused.status, refused.body.error]).toEqual([404, 'intent_not_found']);
    // Subscribing to the intent's tag opens it.
    await ok(
      b,
      '/v1/merchant/register',
      { merchant_id: B.merchant, agent_endpoint: 'http://127.0.0.1:9/agent', subscription_tags: [`tag-${B.merchant}`] },
      { 'x-merchant-token': B.merchantToken },
    );
    expect((await req(b, 'POST', '/v1/proposals', body(B.merchant, tagged), { 'x-merchant-token': B.merchantToken })).status).toBe(201);
    // A delivery (the fan-out reached it) opens an intent whatever the tags.
    await ok(
      b,
      '/v1/merchant/register',
      { merchant_id: B.merchant, agent_endpoint: 'http://127.0.0.1:9/agent', subscription_tags: ['zzz-nothing'] },
      { 'x-merchant-token': B.merchantToken },
    );
    const dispatched = (await ok(a, '/v1/intents', { raw_query: 'bottle', intent_tags: ['zzz-elsewhere'] })).intent.intent_id;
    expect((await req(b, 'POST', '/v1/proposals', body(B.merchant, dispatched), { 'x-merchant-token': B.merchantToken })).status).toBe(404);
    await api.db
      .insertInto('deliveries')
      .values({
        delivery_id: `dlv_${uid('t')}`,
        intent_id: dispatched,
        merchant_id: B.merchant,
        state: 'delivered',
        endpoint: 'http://127.0.0.1:9/agent',
        payload: '{}',
      })
      .execute();
    expect((await req(b, 'POST', '/v1/proposals', body(B.merchant, dispatched), { 'x-merchant-token': B.merchantToken })).status).toBe(201);
    // …and then the merchant reads that intent with its token, though B's key alone does not.
    expect(
      (await call(api.url, 'GET', `/v1/intents/${dispatched}`, { token: b.apiKey, headers: { 'x-merchant-token': B.merchantToken } }))
        .status,
    ).toBe(200);
    expect((await req(b, 'GET', `/v1/intents/${dispatched}`)).status).toBe(404);
  });

  it("reports: an API key sees its own developer's traffic; settlement and reconciliation are operators' (or the merchant's own)", async () => {
    const mine = await req(a, 'GET', '/v1/report/attribution?days=1');
    const theirs = await req(b, 'GET', '/v1/report/attribution?days=1');
    const platform = await call(api.url, 'GET', '/v1/report/attribution?days=1', { headers: { 'x-supply-key': TEST_SUPPLY_KEY } });
    expect([mine.body.scope, theirs.body.scope, platform.body.scope]).toEqual(['developer', 'developer', 'platform']);
    expect(mine.body.totals.match_tokens).toBeGreaterThanOrEqual(1);
    expect(mine.body.totals.payment_authorizations).toBeGreaterThanOrEqual(1);
    expect(mine.body.totals.impressions).toBeGreaterThanOrEqual(1);
    expect(theirs.body.totals).toMatchObject({ match_tokens: 0, payment_authorizations: 0, attributed_orders: 0, unattributed_orders: 0 });
    expect(platform.body.totals.match_tokens).toBeGreaterThanOrEqual(mine.body.totals.match_tokens);
    // Settlement: A's merchant with its own token; another merchant's token is refused; operators see any merchant.
    const own = await req(
      a,
      'POST',
      '/v1/billing/settlement-preview',
      { merchant_id: A.merchant },
      { 'x-merchant-token': A.merchantToken },
    );
    expect(own.status, own.text).toBe(200);
    const other = await req(
      b,
      'POST',
      '/v1/billing/settlement-preview',
      { merchant_id: A.merchant },
      { 'x-merchant-token': B.merchantToken },
    );
    expect([other.status, other.body.error]).toEqual([403, 'invalid_registration_token']);
    const catalog = await req(b, 'POST', '/v1/billing/settlement-preview', { merchant_id: 'gateway-catalog' });
    expect(catalog.status).toBe(401);
    const operator = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
      body: { merchant_id: 'gateway-catalog' },
      headers: { 'x-supply-key': TEST_SUPPLY_KEY },
    });
    expect(operator.status, operator.text).toBe(200);
    // A key holding every scope ('*') is still not an operator.
    expect((await req(a, 'POST', '/v1/reconciliation/platform-affiliate/run', {})).status).toBe(401);
  });

  it('MCP get_match_session / accept_match and A2A tasks/get answer not-found for another developer', async () => {
    const mcp = (dev: Onboarded, name: string, args: Record<string, unknown>) =>
      call(api.url, 'POST', '/mcp', {
        token: dev.apiKey,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        headers: { accept: 'application/json, text/event-stream' },
      });
    for (const [name, args] of [
      ['get_match_session', { match_session_id: A.session }],
      ['accept_match', { match_session_id: A.session, proposal_id: A.proposal }],
    ] as const) {
      const theirs = await mcp(b, name, args);
      // A tool error is text holding {error, message} (no structuredContent: clients check that against the outputSchema).
      expect(theirs.body.result, name).toMatchObject({ isError: true });
      expect(JSON.parse(theirs.body.result.content[0].text), name).toMatchObject({ error: 'match_not_found' });
      expect(theirs.text).not.toContain(A.token);
    }
    const mine = await mcp(a, 'get_match_session', { match_session_id: A.session });
    expect(mine.body.result.isError ?? false).toBe(false);
    expect(mine.text).toContain(A.token);

    const rpc = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: A.runtime } };
    const theirTask = await call(api.url, 'POST', '/a2a', { token: b.apiKey, body: rpc });
    expect(theirTask.body.error).toMatchObject({ code: -32001 });
    const myTask = await call(api.url, 'POST', '/a2a', { token: a.apiKey, body: rpc });
    expect(myTask.body.result?.id).toBe(A.runtime);
  });
});
