import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../../src/db/connect';
import { workflowIds } from '../../src/temporal/names';
import { ucpIdempotencyKey } from '../../src/protocols/ucp/client';
import { call, type HttpResult } from '../helpers/http';
import { onboard, type Onboarded } from '../helpers/console';
import { answersWithin } from '../helpers/deadline';
import { MOCK_HANDLER, startUcpBusiness, TOKEN_OK, type UcpBusiness } from '../helpers/ucp-business';
import type { UcpSchemaVersion } from '../helpers/ucp-schemas';
import { stopHousekeeping, eventually, letters, startDeployment, type Deployment } from './deployment';

/**
 * Worker SIGKILL while it completes a UCP business's checkout session, in the split deployment (API
 * and worker processes): the confirm's local activity `authorizeAndHandOff` is mid-`complete` when its
 * worker dies; Temporal notices by the confirm's workflow task timeout and a new worker runs the
 * activity again, which sends the completion under the same Idempotency-Key
 * (`ucpIdempotencyKey(checkout_id, 'complete')`). The business (test/helpers/ucp-business.ts) either
 * holds the complete before acting on it, or places the order and then holds its answer; either
 * way it places exactly one order, the checkout is confirmed with that order, and the payment
 * authorization stands. The business validates every message against the official schemas and, with
 * `requireSignedRequests`, verifies every request's signature against the platform profile the API
 * publishes at its real address.
 */
let d: Deployment;
let db: Db;
let dev: Onboarded;
const businesses: UcpBusiness[] = [];

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(d.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(d.url, 'GET', path, { token: dev.apiKey });

const BUYER = { full_name: 'Ada Lovelace', email: 'ada@example.com' };
const ADDRESS = { name: 'Ada Lovelace', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };
const FLOWERS = [
  { id: 'bouquet_roses', title: 'Red Rose Bouquet', price: 3500, stock: 100 },
  { id: 'bouquet_tulips', title: 'Tulip Bouquet', price: 3000, stock: 100 },
];
const COMPLETE = 'POST /checkout-sessions/{id}/complete';

beforeAll(async () => {
  // Both processes sign as the platform with this key: the API publishes it in its platform profile
  // (at PUBLIC_BASE_URL, the API's real address), the worker signs the business calls with it.
  const ucpKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  d = await startDeployment({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    env: { UCP_SIGNING_KEY: ucpKey },
  });
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(d.url);
});
afterAll(async () => {
  for (const b of businesses) await b.close();
  await stopHousekeeping(d?.temporal, d?.taskQueue ?? '');
  await d?.close();
  await db?.destroy();
});

/** A Merchant Center feed of the business's catalog, its own ids as the feed ids. */
const feedOf = (items: typeof FLOWERS) =>
  [
    'id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand',
    ...items.map(
      (i) =>
        `${i.id}\t${i.title}\tFresh ${i.title.toLowerCase()}.\thttps://shop.example/p/${i.id}\thttps://shop.example/${i.id}.jpg\tin_stock\t${(i.price / 100).toFixed(2)} USD\tBloom`,
    ),
  ].join('\n');

/**
 * A UCP business on loopback, registered by URL (its profile discovered), its catalog imported, and a
 * planned checkout of `itemId` with its session open: intent → proposal → match → accept → plan.
 */
async function plannedUcpCheckout(version: UcpSchemaVersion, itemId: string) {
  const business = await startUcpBusiness({ version, catalog: FLOWERS, taxBps: 800, requireSignedRequests: true });
  businesses.push(business);
  const merchantId = `mer-ucp-${letters()}`;
  const reg = await post('/v1/merchant/register', {
    merchant_id: merchantId,
    agent_endpoint: business.url,
    protocol_version: 'ucp',
    subscription_tags: ['flowers'],
  });
  expect(reg.status, reg.text).toBe(200);
  expect(reg.body.merchant.protocol_profile).toMatchObject({ version, rest_endpoint: business.endpoint });
  const token = reg.body.registration_token as string;
  const feed = await post(`/v1/merchant/${merchantId}/feeds`, { content: feedOf(FLOWERS) }, { 'x-merchant-token': token });
  expect(feed.status, feed.text).toBe(200);
  const item = FLOWERS.find((i) => i.id === itemId)!;
  const product = await db
    .selectFrom('products')
    .select('product_id')
    .where('merchant_id', '=', merchantId)
    .where('external_id', '=', itemId)
    .executeTakeFirstOrThrow();

  const intent = await post('/v1/intents', { raw_query: 'a bouquet of flowers for a friend', intent_tags: ['flowers'] });
  expect(intent.status, intent.text).toBe(201);
  const intentId = intent.body.intent.intent_id as string;
  const proposal = await post(
    '/v1/proposals',
    {
      merchant_agent_id: merchantId,
      intent_id: intentId,
      product_id: product.product_id,
      offer_title: item.title,
      price: item.price / 100,
      shipping_commitment: { free: true },
    },
    { 'x-merchant-token': token },
  );
  expect(proposal.status, proposal.text).toBe(201);
  const proposalId = proposal.body.proposal.proposal_id as string;
  const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
  expect(session.status, session.text).toBe(201);
  const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  expect(accept.status, accept.text).toBe(200);
  const matchToken = accept.body.match_token as { match_token_id: string; signed_token: string };

  const planned = await post('/v1/agentic-checkout', {
    buyer_agent_id: 'buyer-agent-1',
    intent_id: intentId,
    proposal_id: proposalId,
    match_token_id: matchToken.match_token_id,
    amount: item.price / 100,
    currency: 'USD',
    buyer: BUYER,
    shipping_address: ADDRESS,
  });
  expect(planned.status, planned.text).toBe(201);
  const checkout = planned.body.checkout;
  // The business's own total: the item, its cheapest shipping (standard, 5.00) and 8% tax.
  const tax = Math.round((item.price * 800) / 10_000);
  expect(checkout.plan.totals).toEqual({
    subtotal_minor: item.price,
    shipping_minor: 500,
    tax_minor: tax,
    discount_minor: 0,
    total_minor: item.price + 500 + tax,
  });
  expect(checkout.merchant_session).toMatchObject({ protocol: 'ucp', session_id: expect.any(String) });
  return {
    business,
    merchantId,
    proposalId,
    matchToken,
    checkoutId: checkout.checkout_id as string,
    sessionId: checkout.merchant_session.session_id as string,
    amount: checkout.amount as number,
  };
}
type Planned = Awaited<ReturnType<typeof plannedUcpCheckout>>;

const confirmBody = (p: Planned) => ({
  consent: { granted: true, statement: `I agree to pay ${p.amount} USD for the bouquet.`, granted_at: new Date().toISOString() },
  match_token: p.matchToken.signed_token,
  proposal_id: p.proposalId,
  amount: p.amount,
  currency: 'USD',
  payment_credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
});

/**
 * Confirms, and SIGKILLs the only worker on the queue once `inFlight` says the business holds the
 * complete; then starts another. A confirm cut off or past its wait is repeated, as a client would
 * (it joins the same run).
 */
async function confirmThroughWorkerKill(p: Planned, inFlight: () => boolean): Promise<HttpResult> {
  const path = `/v1/agentic-checkout/${p.checkoutId}/confirm`;
  const confirming = post(path, confirmBody(p)).catch((err: Error) => ({
    status: 0,
    body: undefined,
    text: String(err),
    headers: new Headers(),
  }));
  await eventually('the business holds the complete', async () => inFlight(), 30_000, 20);
  const victim = d.workers.at(-1)!;
  await victim.kill();
  // Still in flight when the worker died: no answer went out to it.
  const atKill = (await get(`/v1/agentic-checkout/${p.checkoutId}`)).body.checkout;
  expect(atKill.status).not.toBe('confirmed');
  const next = d.startWorker();
  const first = await answersWithin('the confirm through the worker kill', confirming, 120_000);
  await answersWithin('the new worker', next, 120_000);
  if (first.status === 200) return first;
  console.log(`[faults] UCP worker SIGKILL mid-complete: first confirm answered ${first.status}; confirming again`);
  return answersWithin('the repeated confirm', post(path, confirmBody(p)), 120_000);
}

/** Everything that must hold once the confirm came back after the kill, whichever way the business held it. */
async function expectOneOrderConfirmed(p: Planned, confirmed: HttpResult) {
  const { business, checkoutId } = p;
  expect(confirmed.status, confirmed.text).toBe(200);
  const done = confirmed.body.checkout;
  expect(done).toMatchObject({ checkout_id: checkoutId, status: 'confirmed' });
  expect(done.order).toMatchObject({ status: 'placed', order_id: expect.stringMatching(/^ord_/) });
  const orderId = done.order.order_id as string;
  expect(done.receipt).toMatchObject({
    status: 'order_placed',
    merchant_id: p.merchantId,
    merchant_response: { status_code: 200, order_id: orderId, body: { protocol: 'ucp', session_id: p.sessionId, order_id: orderId } },
    amount: p.amount,
    currency: 'USD',
  });

  // ONE order at the business; one session, never canceled.
  expect(business.ordersPlaced()).toBe(1);
  expect(business.count('POST /checkout-sessions')).toBe(1);
  expect(business.count('POST /checkout-sessions/{id}/cancel')).toBe(0);
  // Every completion (before and after the kill) carried the one key of this checkout's complete, the same body.
  const key = ucpIdempotencyKey(checkoutId, 'complete');
  const completes = business.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/complete'));
  for (const r of completes) {
    expect(r.headers['idempotency-key']).toBe(key);
    expect(r.body).toEqual(completes[0]!.body);
  }
  expect(business.keyCount(key)).toBe(completes.length);
  expect(business.validationErrors).toEqual([]);
  expect(business.signatureErrors).toEqual([]);

  // The receipt's order is the business's own: its signed order event reaches this checkout.
  const shipped = await business.sendOrderEvent(orderId, 'shipped', `${d.url}/ucp/webhooks/orders`);
  expect(shipped.status).toBe(200);

  // The payment authorization stands (not voided): one, for this token, the checkout's.
  const fetched = (await get(`/v1/agentic-checkout/${checkoutId}`)).body.checkout;
  expect(fetched).toMatchObject({ status: 'confirmed', receipt: done.receipt, order: { order_id: orderId, status: 'shipped' } });
  const auths = await db
    .selectFrom('payment_authorizations')
    .select(['authorization_id', 'status', 'voided_at'])
    .where('match_token_id', '=', p.matchToken.match_token_id)
    .execute();
  expect(auths).toEqual([{ authorization_id: fetched.payment_authorization_id, status: 'authorized', voided_at: null }]);
  expect(done.receipt.payment_authorization_id).toBe(fetched.payment_authorization_id);
  expect((await get(`/v1/match-tokens/${p.matchToken.match_token_id}`)).body.match_token.acceptance_state).toBe('consumed');
  expect(
    await db.selectFrom('agentic_checkouts').select('checkout_id').where('match_token_id', '=', p.matchToken.match_token_id).execute(),
  ).toHaveLength(1);

  // The audit: each step once, in order; nothing failed, voided or canceled.
  const steps = (fetched.audit_trail as Array<{ step: string }>).map((a) => a.step).filter((s) => !s.startsWith('order_event_'));
  expect(steps).toEqual([
    'plan_created',
    'merchant_session_opened',
    'consent_recorded',
    'payment_authorized',
    'merchant_session_complete',
    'proposal_settled',
    'match_token_consumed',
    'confirmed',
  ]);
  const completion = fetched.audit_trail.find((a: any) => a.step === 'merchant_session_complete');
  // Written `sending` before the first complete went out, settled in place with the order the confirm took.
  expect(completion).toMatchObject({
    outcome: 'handed_off',
    detail: { session_id: p.sessionId, handler: MOCK_HANDLER.id, order_id: orderId, answered_at: expect.any(String) },
  });
  expect(fetched.audit_trail.filter((a: any) => a.step.startsWith('order_event_')).map((a: any) => a.outcome)).toEqual(['shipped']);

  // A confirm after the fact returns the stored result; nothing more reaches the business.
  const before = business.requests.length;
  const again = await post(`/v1/agentic-checkout/${checkoutId}/confirm`, confirmBody(p));
  expect(again.status, again.text).toBe(200);
  expect(again.body.checkout.receipt).toEqual(done.receipt);
  expect(business.requests.length).toBe(before);
  expect(business.ordersPlaced()).toBe(1);

  // Temporal: the run completed; the handoff is a local activity (no activity task), the dead worker
  // noticed by the confirm's workflow task timeout; the credential never entered the history.
  const handle = d.temporal.workflow.getHandle(workflowIds.checkout(checkoutId));
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  const history = await handle.fetchHistory();
  expect(history.events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
  const timedOut = history.events!.filter((e) => e.workflowTaskTimedOutEventAttributes).map((e) => e.workflowTaskTimedOutEventAttributes!);
  expect(timedOut.length).toBeGreaterThanOrEqual(1);
  expect(String(timedOut[0]!.timeoutType)).toMatch(/START_TO_CLOSE|^1$/);
  expect(JSON.stringify(history)).not.toContain(TOKEN_OK);
}

describe.each([
  { version: '2026-04-08' as const, signing: 'RFC 9421 signatures' },
  { version: '2026-01-11' as const, signing: 'detached JWS' },
])('a worker killed while a UCP business ($version, $signing) holds the complete, before acting on it', ({ version }) => {
  it('the new worker sends the complete again under the same Idempotency-Key: ONE order, confirmed, payment not voided, audit coherent', async () => {
    const p = await plannedUcpCheckout(version, 'bouquet_roses');
    p.business.hangNext('complete');
    const confirmed = await confirmThroughWorkerKill(p, () => p.business.count(COMPLETE) >= 1);
    // The key went out twice (the held request, then the new worker's); the business acted on the second.
    expect(p.business.keyCount(ucpIdempotencyKey(p.checkoutId, 'complete'))).toBeGreaterThanOrEqual(2);
    expect(p.business.count(COMPLETE)).toBeGreaterThanOrEqual(2);
    await expectOneOrderConfirmed(p, confirmed);
    // The hold went before the business acted: the retry was processed, not answered from its store.
    expect(p.business.replays).toBe(0);
  }, 180_000);
});

describe('a worker killed while a UCP business has placed the order and holds its answer', () => {
  it('the new worker finds the session completed and takes that order: ONE order, confirmed, payment not voided, audit coherent', async () => {
    const p = await plannedUcpCheckout('2026-04-08', 'bouquet_tulips');
    p.business.holdAnswerAfterActing('complete');
    const getsBefore = p.business.count('GET /checkout-sessions/{id}');
    // Killed once the business has acted (the order exists) and while its answer is held.
    const confirmed = await confirmThroughWorkerKill(p, () => p.business.ordersPlaced() >= 1);
    // The new worker read the session first (complete reads before it completes) and found the order:
    // the completion reached the business once; its Idempotency-Key would have answered the same order.
    expect(p.business.count('GET /checkout-sessions/{id}')).toBeGreaterThanOrEqual(getsBefore + 2);
    expect(p.business.count(COMPLETE)).toBe(1);
    await expectOneOrderConfirmed(p, confirmed);
  }, 180_000);
});
