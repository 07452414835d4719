import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { readBody, startLoopback } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { CHECKOUT_WAIT } from '../src/checkout/client';
import { workerPolls } from '../src/temporal/wait';
import { answersWithin } from './helpers/deadline';
import { abandonCheckout, planCheckout } from '../src/checkout/checkouts';

/**
 * The checkout's plan and confirm wait on the workflow with a deadline (src/temporal/wait.ts,
 * `waitForAnswer`): with no worker polling the task queue they answer 503 `no_worker` with
 * Retry-After instead of holding the caller; past `Prefer: wait=N` they answer 202 with the status
 * URL. Real API, real Temporal dev server, a real worker started and stopped, a loopback merchant.
 */

let api: TestApi;
let dev: Onboarded;
let merchant: { close(): Promise<void>; url: string };
/**
 * Half the checkout's default wait: an answer later than this was held for the wait instead of
 * answered at once (it used to take ~78 s), however slow the machine (about a second when it works).
 */
const HELD_FOR_THE_WAIT_MS = (CHECKOUT_WAIT.defaultS * 1000) / 2;
let productId: number;
let priceCents: number;
let worker: { stop(): Promise<void> } | undefined;
const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: dev.apiKey, body, headers });

beforeAll(async () => {
  // No worker yet: the task queue is the API's own, so nothing polls it.
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true', DISPATCH_TIMEOUT_MS: '2000' } });
  dev = await onboard(api.url);
  merchant = await startLoopback(async (req, res) => {
    await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ order_id: 'ord-1', accepted: true }));
  });
  const p = await api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('inventory_qty', '>', 20)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirstOrThrow();
  productId = p.product_id;
  priceCents = p.price_cents;
});

/** A worker, once the server has seen it poll (a worker that has just started may not have polled yet). */
async function startPolling() {
  const started = await startTestWorker(api.config, api.db);
  for (const until = Date.now() + 15_000; !(await workerPolls(api.temporal!));) {
    if (Date.now() > until) throw new Error('the worker never polled within 15 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return started;
}

afterAll(async () => {
  await worker?.stop();
  await merchant?.close();
  await api?.close();
});

/** merchant → intent → proposal → match session → accept (no workflow involved). */
async function chain() {
  const merchant_id = uid('mer');
  const reg = await post('/v1/merchant/register', { merchant_id, agent_endpoint: `${merchant.url}/agent` });
  expect(reg.status, reg.text).toBe(200);
  const intent = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking' });
  expect(intent.status, intent.text).toBe(201);
  const intentId = intent.body.intent.intent_id as string;
  const proposal = await post(
    '/v1/proposals',
    {
      merchant_agent_id: merchant_id,
      intent_id: intentId,
      product_id: productId,
      offer_title: 'Trail bottle',
      price: priceCents / 100,
      shipping_commitment: { max_days: 3, cost: 4.5 },
    },
    { 'x-merchant-token': reg.body.registration_token },
  );
  expect(proposal.status, proposal.text).toBe(201);
  const proposalId = proposal.body.proposal.proposal_id as string;
  const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
  expect(session.status, session.text).toBe(201);
  const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  expect(accept.status, accept.text).toBe(200);
  const token = accept.body.match_token;
  const plan = {
    buyer_agent_id: 'buyer-agent-1',
    intent_id: intentId,
    proposal_id: proposalId,
    match_token_id: token.match_token_id as string,
    amount: (priceCents + 450) / 100,
    currency: 'USD',
    shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
  };
  const confirm = {
    consent: { granted: true, statement: 'I agree to buy the Trail bottle for the plan total.', granted_at: new Date().toISOString() },
    match_token: token.signed_token as string,
    proposal_id: proposalId,
    amount: (priceCents + 450) / 100,
    currency: 'USD',
  };
  return { plan, confirm };
}

describe('checkout waits have deadlines', () => {
  it('plan with no worker polling: 503 no_worker with Retry-After at once, nothing left holding the token; with a worker the same plan is 201', async () => {
    const c = await chain();
    // The worker-presence check answers at once; before, the call was held ~78 s.
    const res = await answersWithin('the plan with no worker', post('/v1/agentic-checkout', c.plan), HELD_FOR_THE_WAIT_MS);
    expect(res.status, res.text).toBe(503);
    expect(res.body.error).toBe('no_worker');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);

    worker = await startPolling();
    const again = await post('/v1/agentic-checkout', c.plan);
    expect(again.status, again.text).toBe(201);
    expect(again.body.checkout.status).toBe('awaiting_confirmation');
  });

  it('a plan that reaches a worker after its caller got 503 no_worker is refused, one that got in first is failed: the token stays free', async () => {
    // The two orders the 503 can race with the run's start, played against Postgres directly.
    const c = await chain();
    const late = uid('chk');
    await abandonCheckout(api.db, late, 'no worker polls the task queue; the caller got 503 no_worker');
    const refused = await planCheckout(api.db, { ...c.plan, checkoutId: late, workflowId: `checkout-${late}` }, 600, api.url);
    expect(refused).toMatchObject({ ok: false, rejection: { status: 409, code: 'checkout_abandoned' } });

    const early = uid('chk');
    const planned = await planCheckout(api.db, { ...c.plan, checkoutId: early, workflowId: `checkout-${early}` }, 600, api.url);
    expect(planned.ok).toBe(true);
    await abandonCheckout(api.db, early, 'no worker polls the task queue; the caller got 503 no_worker');
    const row = await api.db
      .selectFrom('agentic_checkouts')
      .select(['status', 'failure'])
      .where('checkout_id', '=', early)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', failure: { code: 'no_worker' } });
    const again = uid('chk');
    const replanned = await planCheckout(api.db, { ...c.plan, checkoutId: again, workflowId: `checkout-${again}` }, 600, api.url);
    expect(replanned.ok, JSON.stringify(replanned)).toBe(true);
  });

  it('confirm after the worker stopped: answered within Prefer: wait (202 + status URL, or 503 no_worker); once a worker polls again the confirm completes', async () => {
    worker ??= await startPolling();
    const c = await chain();
    const planned = await post('/v1/agentic-checkout', c.plan);
    expect(planned.status, planned.text).toBe(201);
    const id = planned.body.checkout.checkout_id as string;
    await worker.stop();
    worker = undefined;

    const res = await answersWithin(
      'the confirm with Prefer: wait=3 and no worker',
      post(`/v1/agentic-checkout/${id}/confirm`, c.confirm, { prefer: 'wait=3' }),
      HELD_FOR_THE_WAIT_MS,
    );
    expect([202, 503], res.text).toContain(res.status);
    if (res.status === 202) {
      expect(res.body).toEqual({ checkout_id: id, status: 'pending', status_url: `/v1/agentic-checkout/${id}` });
      expect(res.headers.get('location')).toBe(`/v1/agentic-checkout/${id}`);
    } else {
      expect(res.body.error).toBe('no_worker');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // A retried confirm joins the first (or makes it) once a worker polls: one confirmed checkout.
    worker = await startPolling();
    const done = await post(`/v1/agentic-checkout/${id}/confirm`, c.confirm);
    expect(done.status, done.text).toBe(200);
    expect(done.body.checkout).toMatchObject({ checkout_id: id, status: 'confirmed' });
    const status = await call(api.url, 'GET', `/v1/agentic-checkout/${id}`, { token: dev.apiKey });
    expect(status.body.checkout.status).toBe('confirmed');
  });
});
