import { generateKeyPairSync } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { closedPort, json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startMerchantAgent, type MerchantAgent } from '../examples/merchant-agent/agent';
import { workflowIds } from '../src/temporal/names';
import { startTestApi, type TestApi } from './helpers/stack';
import { stockedProduct } from './helpers/catalog';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

/**
 * Durability of the two long flows (issue: "worker killed and restarted mid-runtime and mid-checkout
 * with the flows finishing and nothing duplicated"). The worker runs as a child process (as in
 * test/dispatch.test.ts); it is SIGKILLed while a merchant agent holds its answer, a new worker is
 * started, and the flow must finish with every record written once.
 *
 * Timing: a killed activity is retried once the server notices: the merchant query after its
 * start-to-close timeout (3 s deadline + 15 s), the checkout handoff after its 5 s heartbeat
 * timeout, so each test takes ~10-30 s.
 */
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ENV = { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: signingKey };

let api: TestApi;
let dev: Onboarded;
let product: { product_id: number; price_cents: number; title: string };
const servers: LoopbackServer[] = [];
const workers: WorkerProcess[] = [];

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) => call(api.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(api.url, 'GET', path, { token: dev.apiKey });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function worker(): WorkerProcess {
  const w = startWorkerProcess(api, ENV);
  workers.push(w);
  return w;
}

/**
 * A loopback merchant agent that records every request and holds its first answer `holdMs`
 * (`firstCall` resolves when that first request arrived, i.e. while it is being held).
 */
async function slowFirstMerchant(answer: (body: any, n: number) => unknown, holdMs = 2000) {
  const bodies: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  let arrived!: () => void;
  const firstCall = new Promise<void>((r) => (arrived = r));
  const server = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    bodies.push({ headers: req.headers, body });
    const n = bodies.length;
    if (n === 1) {
      arrived();
      setTimeout(() => {
        if (!res.destroyed) json(res, 200, answer(body, n));
      }, holdMs);
    } else {
      json(res, 200, answer(body, n));
    }
  });
  servers.push(server);
  return { server, bodies, firstCall };
}

beforeAll(async () => {
  api = await startTestApi({ env: ENV });
  dev = await onboard(api.url);
  product = await stockedProduct(api.db);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(servers.map((s) => s.close()));
  await api?.close();
});

describe('a worker killed mid-runtime (merchant query in flight)', () => {
  it('the runtime finishes with a match token; no step, intent, match session or token is duplicated', async () => {
    const tag = letters();
    const merchantId = `m-${tag}-only`;
    const merchant = await slowFirstMerchant(() => ({
      proposals: [{ product_id: product.product_id, offer_title: product.title, price: product.price_cents / 100, currency: 'USD', shipping_commitment: { max_days: 3 } }],
    }));
    const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: merchant.server.url, subscription_tags: [tag] });
    expect(reg.status, reg.text).toBe(200);

    let w = worker();
    try {
      await w.ready;
      const res = await post('/v1/commerce-runtime', { intent: { raw_query: `${tag} wireless headphones for my commute`, intent_tags: [tag] } }, { prefer: 'wait=0' });
      expect(res.status, res.text).toBe(202);
      const runtimeId = res.body.runtime_id as string;

      // Kill while the merchant holds its answer: the query activity dies mid-call.
      await Promise.race([merchant.firstCall, sleep(20_000).then(() => Promise.reject(new Error('the merchant was never queried')))]);
      await w.kill();
      const atKill = (await get(`/v1/commerce-runtime/${runtimeId}`)).body.runtime;
      expect(atKill.runtime_session.finished_at).toBeNull();
      w = worker();

      const deadline = Date.now() + 45_000;
      let rt;
      for (;;) {
        const g = await get(`/v1/commerce-runtime/${runtimeId}`);
        expect(g.status).toBe(200);
        rt = g.body.runtime;
        if (rt.runtime_session.finished_at) break;
        if (Date.now() > deadline) throw new Error(`runtime ${runtimeId} not finished: ${JSON.stringify(rt.runtime_session)}`);
        await sleep(250);
      }

      expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
      expect(rt.runtime_trace.audit_status).toBe('completed');
      expect(rt.match_token).not.toBeNull();
      expect(rt.match_token).toMatchObject({ proposal_id: rt.proposal.proposal_id, match_session_id: rt.match_session.match_session_id, acceptance_state: 'accepted' });
      expect(rt.proposal.merchant_agent_id).toBe(merchantId);
      // The merchant was asked again after the restart (same step), and answered that time.
      expect(merchant.bodies.length).toBeGreaterThanOrEqual(2);
      for (const b of merchant.bodies) expect(b.body).toMatchObject({ type: 'runtime.query', data: { runtime_id: runtimeId, merchant_id: merchantId } });
      expect(new Set(merchant.bodies.map((b) => b.body.data.step_id)).size).toBe(1);

      // Steps: one row per index, in order, nothing repeated.
      const indexes = rt.agent_steps.map((s: any) => s.index);
      expect(indexes).toEqual([...new Set(indexes)]);
      expect(rt.agent_steps.map((s: any) => [s.index, s.kind, s.status])).toEqual([
        [0, 'resolve_intent', 'succeeded'],
        [1, 'merchant_query', 'succeeded'],
        [2, 'rank', 'succeeded'],
        [3, 'mint_token', 'succeeded'],
      ]);
      const stepRows = await api.db.selectFrom('commerce_runtime_steps').select(['index']).where('runtime_id', '=', runtimeId).execute();
      expect(stepRows.map((s) => s.index).sort()).toEqual([0, 1, 2, 3]);
      expect(rt.runtime_trace.consumed).toMatchObject({ merchant_queries: 1, proposal_versions: 1 });

      // Exactly one intent, proposal, match session and match token for this runtime.
      const intents = await api.db.selectFrom('intents').select('intent_id').where(({ eb, ref }) => eb(eb.fn('jsonb_extract_path_text', [ref('workflow'), eb.val('runtime_id')]), '=', runtimeId)).execute();
      expect(intents.map((i) => i.intent_id)).toEqual([rt.intent.intent_id]);
      const proposals = await api.db.selectFrom('proposals').select('proposal_id').where('intent_id', '=', rt.intent.intent_id).execute();
      expect(proposals.map((p) => p.proposal_id)).toEqual([rt.proposal.proposal_id]);
      const sessions = await api.db.selectFrom('match_sessions').select('match_session_id').where('intent_id', '=', rt.intent.intent_id).execute();
      expect(sessions.map((s) => s.match_session_id)).toEqual([rt.match_session.match_session_id]);
      const tokens = await api.db.selectFrom('match_tokens').select('match_token_id').where('match_session_id', '=', rt.match_session.match_session_id).execute();
      expect(tokens.map((t) => t.match_token_id)).toEqual([rt.match_token.match_token_id]);
    } finally {
      // The next test's kill must hit the only worker on the queue.
      await w.stop();
    }
  }, 60_000);
});

describe('a worker killed mid-checkout (merchant handoff in flight)', () => {
  it('the confirm answers 200 confirmed with one receipt and one payment authorization; every handoff carries Idempotency-Key = checkout id', async () => {
    let w = worker();
    try {
      const merchant = await slowFirstMerchant((_body, n) => ({ order_id: `ord-${n}`, accepted: true }));
      const merchantId = `mer-${letters()}`;
      const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: `${merchant.server.url}/agent` });
      expect(reg.status, reg.text).toBe(200);
      const intent = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking' });
      expect(intent.status, intent.text).toBe(201);
      const intentId = intent.body.intent.intent_id as string;
      const priceCents = product.price_cents;
      const proposal = await post(
        '/v1/proposals',
        { merchant_agent_id: merchantId, intent_id: intentId, product_id: product.product_id, offer_title: 'Trail bottle', price: priceCents / 100, shipping_commitment: { max_days: 3, cost: 4.5 } },
        { 'x-merchant-token': reg.body.registration_token },
      );
      expect(proposal.status, proposal.text).toBe(201);
      const proposalId = proposal.body.proposal.proposal_id as string;
      const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
      expect(session.status, session.text).toBe(201);
      const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
      expect(accept.status, accept.text).toBe(200);
      const token = accept.body.match_token;

      await w.ready;
      const amount = (priceCents + 450) / 100;
      const created = await post('/v1/agentic-checkout', {
        buyer_agent_id: 'buyer-agent-1',
        intent_id: intentId,
        proposal_id: proposalId,
        match_token_id: token.match_token_id,
        amount,
        currency: 'USD',
        shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
      });
      expect(created.status, created.text).toBe(201);
      const checkoutId = created.body.checkout.checkout_id as string;
      const confirmBody = {
        consent: { granted: true, statement: 'I agree to buy the Trail bottle for the plan total.', granted_at: new Date().toISOString() },
        match_token: token.signed_token,
        proposal_id: proposalId,
        amount,
        currency: 'USD',
      };
      const confirmPath = `/v1/agentic-checkout/${checkoutId}/confirm`;

      // The confirm waits on the workflow; kill the worker while the merchant holds the handoff.
      const confirming = post(confirmPath, confirmBody).catch((err: Error) => ({ status: 0, body: undefined, text: String(err), headers: new Headers() }));
      await Promise.race([merchant.firstCall, sleep(20_000).then(() => Promise.reject(new Error('the merchant never got the handoff')))]);
      await w.kill();
      w = worker();

      let confirmed = await confirming;
      if (confirmed.status !== 200) {
        // The first confirm may have been cut off; a repeated confirm joins the same run.
        confirmed = await post(confirmPath, confirmBody);
      }
      expect(confirmed.status, confirmed.text).toBe(200);
      const done = confirmed.body.checkout;
      expect(done).toMatchObject({ checkout_id: checkoutId, status: 'confirmed' });
      expect(done.receipt).toMatchObject({ status: 'handed_off', merchant_id: merchantId, merchant_response: { status_code: 200 }, amount, currency: 'USD' });

      const fetched = await get(`/v1/agentic-checkout/${checkoutId}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body.checkout).toMatchObject({ status: 'confirmed', receipt: done.receipt });
      // A confirm after the fact returns the same stored result.
      const again = await post(confirmPath, confirmBody);
      expect(again.status).toBe(200);
      expect(again.body.checkout.receipt).toEqual(done.receipt);

      // Once each: consent, payment, settlement, confirmation.
      const steps = fetched.body.checkout.audit_trail.map((a: any) => a.step as string);
      for (const once of ['plan_created', 'consent_recorded', 'payment_authorized', 'proposal_settled', 'match_token_consumed', 'confirmed']) {
        expect(steps.filter((s: string) => s === once), `${once} in ${steps.join(',')}`).toHaveLength(1);
      }
      const auths = await api.db.selectFrom('payment_authorizations').selectAll().where('match_token_id', '=', token.match_token_id).execute();
      expect(auths).toHaveLength(1);
      expect(fetched.body.checkout.payment_authorization_id).toBe(auths[0]!.authorization_id);
      const rows = await api.db.selectFrom('agentic_checkouts').select('checkout_id').where('match_token_id', '=', token.match_token_id).execute();
      expect(rows).toHaveLength(1);
      expect((await get(`/v1/match-tokens/${token.match_token_id}`)).body.match_token.acceptance_state).toBe('consumed');

      // The merchant saw the handoff again after the restart, always with the same key and body.
      expect(merchant.bodies.length).toBeGreaterThanOrEqual(2);
      for (const b of merchant.bodies) {
        expect(b.headers['idempotency-key']).toBe(checkoutId);
        expect(b.headers['webhook-id']).toBe(checkoutId);
        expect(b.body).toEqual(merchant.bodies[0]!.body);
      }
      expect(done.receipt.merchant_response.order_id).toBe(`ord-${merchant.bodies.length}`);
      // Every handoff that reached the merchant has its attempt in the audit trail (written before sending).
      const attempts = fetched.body.checkout.audit_trail.filter((a: any) => a.step.startsWith('merchant_handoff_attempt_'));
      expect(attempts).toHaveLength(merchant.bodies.length);
    } finally {
      await w.stop();
    }
    // Two worker processes start here, each bundling the workflow code first: room for a loaded machine.
  }, 120_000);
});

describe('a worker killed mid-handoff, the reference merchant agent (de-duplicates by Idempotency-Key)', () => {
  it('the merchant takes ONE order although the handoff reached it twice; the audit shows every attempt; the dead worker is noticed by the heartbeat timeout', async () => {
    let w = worker();
    const agents: MerchantAgent[] = [];
    try {
      // The agent needs the webhook secret (from registration), registration needs the agent's URL: pick a free port first.
      const port = await closedPort();
      const merchantId = `mer-${letters()}`;
      const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: `http://127.0.0.1:${port}/intents` });
      expect(reg.status, reg.text).toBe(200);
      let arrived!: () => void;
      const firstOrder = new Promise<void>((r) => (arrived = r));
      let calls = 0;
      const agent = await startMerchantAgent({
        port,
        merchantId,
        merchantToken: reg.body.registration_token,
        webhookSecret: reg.body.webhook_secret,
        apiKey: dev.apiKey,
        // Taking the first order is slow: the worker is killed while the merchant holds it.
        acceptOrder: async () => {
          calls++;
          arrived();
          await sleep(3000);
          return { order_id: `shop-order-${calls}` };
        },
      });
      agents.push(agent);

      const intent = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking' });
      expect(intent.status, intent.text).toBe(201);
      const intentId = intent.body.intent.intent_id as string;
      const proposal = await post(
        '/v1/proposals',
        { merchant_agent_id: merchantId, intent_id: intentId, product_id: product.product_id, offer_title: 'Trail bottle', price: product.price_cents / 100, shipping_commitment: { max_days: 3, free: true } },
        { 'x-merchant-token': reg.body.registration_token },
      );
      expect(proposal.status, proposal.text).toBe(201);
      const proposalId = proposal.body.proposal.proposal_id as string;
      const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
      expect(session.status, session.text).toBe(201);
      const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
      expect(accept.status, accept.text).toBe(200);
      const token = accept.body.match_token;

      await w.ready;
      const amount = product.price_cents / 100;
      const created = await post('/v1/agentic-checkout', { buyer_agent_id: 'buyer-agent-1', intent_id: intentId, proposal_id: proposalId, match_token_id: token.match_token_id, amount, currency: 'USD' });
      expect(created.status, created.text).toBe(201);
      const checkoutId = created.body.checkout.checkout_id as string;
      const confirmPath = `/v1/agentic-checkout/${checkoutId}/confirm`;
      const confirmBody = { consent: { granted: true, statement: 'I agree to buy the Trail bottle.' }, match_token: token.signed_token, proposal_id: proposalId, amount, currency: 'USD' };

      const confirming = post(confirmPath, confirmBody).catch((err: Error) => ({ status: 0, body: undefined, text: String(err), headers: new Headers() }));
      await Promise.race([firstOrder, sleep(20_000).then(() => Promise.reject(new Error('the merchant never got the handoff')))]);
      // The attempt is in the audit before the merchant answered.
      const during = (await get(`/v1/agentic-checkout/${checkoutId}`)).body.checkout.audit_trail;
      expect(during.map((a: any) => `${a.step}:${a.outcome}`)).toContain('merchant_handoff_attempt_1:sending');
      await w.kill();
      w = worker();

      let confirmed = await confirming;
      if (confirmed.status !== 200) confirmed = await post(confirmPath, confirmBody);
      expect(confirmed.status, confirmed.text).toBe(200);
      const done = confirmed.body.checkout;
      expect(done.status).toBe('confirmed');

      // The merchant: two handoffs (same key), one order, and the receipt names that order.
      const handoffs = agent.events.filter((e) => e.outcome === 'order' || e.outcome === 'duplicate_order');
      expect(handoffs.length).toBeGreaterThanOrEqual(2);
      expect(agent.orders()).toHaveLength(1);
      expect(calls).toBe(1);
      expect(agent.orders()[0]).toMatchObject({ idempotency_key: checkoutId, checkout_id: checkoutId, order_id: 'shop-order-1' });
      expect(done.receipt.merchant_response.order_id).toBe('shop-order-1');

      // The audit: every attempt that may have reached the merchant, the cut-off one still `sending`.
      const attempts = done.audit_trail.filter((a: any) => a.step.startsWith('merchant_handoff_attempt_'));
      expect(attempts.length).toBe(handoffs.length);
      expect(attempts[0]).toMatchObject({ step: 'merchant_handoff_attempt_1', outcome: 'sending' });
      expect(attempts.at(-1)).toMatchObject({ outcome: 'handed_off', detail: { order_id: 'shop-order-1' } });

      // Temporal noticed the dead worker by the heartbeat timeout, not the 30 s start-to-close timeout.
      const history = await api.temporal!.client.workflow.getHandle(workflowIds.checkout(checkoutId)).fetchHistory();
      const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!);
      const handoffStart = started.find((a) => (a.attempt ?? 1) > 1)!;
      expect(handoffStart).toBeDefined();
      expect(String(handoffStart.lastFailure?.timeoutFailureInfo?.timeoutType)).toMatch(/HEARTBEAT|^4$/);
    } finally {
      for (const a of agents) await a.close();
      await w.stop();
    }
    // Two worker processes start here, each bundling the workflow code first: room for a loaded machine.
  }, 120_000);
});
