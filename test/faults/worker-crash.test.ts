import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../../src/db/connect';
import { startMerchantAgent, type MerchantAgent } from '../../examples/merchant-agent/agent';
import { workflowIds } from '../../src/temporal/names';
import { call, type HttpResult } from '../helpers/http';
import { onboard, type Onboarded } from '../helpers/console';
import { closedPort } from '../helpers/loopback';
import { stockedProduct } from '../helpers/catalog';
import {
  buyable,
  checkoutBody,
  confirmBody,
  countingMerchant,
  eventually,
  letters,
  orderMerchant,
  sleep,
  startDeployment,
  type Buyable,
  type Deployment,
} from './deployment';

/**
 * Worker SIGKILL mid-runtime and mid-confirm, in the split deployment (API and worker processes): the
 * worker dies while a merchant holds its answer, a new worker starts, and the flow must finish with
 * every record written once, every attempt in the audit, one order per checkout at the merchant.
 *
 * Timing: a killed activity is retried once the server notices: the merchant query after its
 * start-to-close timeout (3 s deadline + 15 s); the checkout handoff, a local activity, after the confirm's
 * workflow task times out (10 s).
 */
let d: Deployment;
let db: Db;
let dev: Onboarded;
let product: { product_id: number; price_cents: number; title: string };

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(d.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(d.url, 'GET', path, { token: dev.apiKey });

/** SIGKILLs the only worker on the queue once `inFlight` says its activity is mid-call, and starts another. */
async function killWorkerWhen(inFlight: Promise<void>, what: string) {
  await Promise.race([inFlight, sleep(20_000).then(() => Promise.reject(new Error(`${what} never happened`)))]);
  await d.workers.at(-1)!.kill();
  void d.startWorker();
  return Date.now();
}

/**
 * Confirms a planned checkout and kills the worker while the merchant holds the handoff (`handoff`
 * resolves then); a confirm cut off by the kill is repeated, as a client would (it joins the same run).
 */
async function confirmThroughWorkerKill(checkoutId: string, b: Buyable, handoff: Promise<void>): Promise<HttpResult> {
  const path = `/v1/agentic-checkout/${checkoutId}/confirm`;
  const confirming = post(path, confirmBody(b)).catch((err: Error) => ({
    status: 0,
    body: undefined,
    text: String(err),
    headers: new Headers(),
  }));
  const killedAt = await killWorkerWhen(handoff, 'the merchant handoff');
  const first = await confirming;
  const done = first.status === 200 ? first : await post(path, confirmBody(b));
  console.log(`[faults] worker SIGKILL mid-confirm: first confirm ${first.status}, confirmed ${Date.now() - killedAt} ms after the kill`);
  return done;
}

async function plan(b: Buyable): Promise<string> {
  const created = await post('/v1/agentic-checkout', checkoutBody(b));
  expect(created.status, created.text).toBe(201);
  return created.body.checkout.checkout_id as string;
}

/** Every handoff attempt that may have reached the merchant is in the audit trail, written before sending. */
const handoffAttempts = (checkout: any) => checkout.audit_trail.filter((a: any) => a.step.startsWith('merchant_handoff_attempt_'));

beforeAll(async () => {
  d = await startDeployment({ databaseUrl: inject('databaseUrl'), temporalAddress: inject('temporalAddress') });
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(d.url);
  product = await stockedProduct(db);
});
afterAll(async () => {
  await d?.close();
  await db?.destroy();
});

describe('a worker killed mid-runtime (merchant query in flight)', () => {
  it('the runtime finishes with a match token; no step, intent, match session or token is duplicated', async () => {
    const tag = letters();
    const merchantId = `m-${tag}-only`;
    let first!: () => void;
    const queried = new Promise<void>((r) => (first = r));
    // Holds every answer 2 s: the first one is cut off by the kill.
    const merchant = await countingMerchant((body) => {
      first();
      return {
        proposals: [
          {
            product_id: product.product_id,
            offer_title: product.title,
            price: product.price_cents / 100,
            currency: 'USD',
            shipping_commitment: { max_days: 3 },
            _step: body?.data?.step_id,
          },
        ],
      };
    }, 2000);
    try {
      const reg = await post('/v1/merchant/register', {
        merchant_id: merchantId,
        agent_endpoint: merchant.server.url,
        subscription_tags: [tag],
      });
      expect(reg.status, reg.text).toBe(200);
      const res = await post(
        '/v1/commerce-runtime',
        { intent: { raw_query: `${tag} wireless headphones for my commute`, intent_tags: [tag] } },
        { prefer: 'wait=0' },
      );
      expect(res.status, res.text).toBe(202);
      const runtimeId = res.body.runtime_id as string;

      const killedAt = await killWorkerWhen(queried, 'the merchant query');
      const atKill = (await get(`/v1/commerce-runtime/${runtimeId}`)).body.runtime;
      expect(atKill.runtime_session.finished_at).toBeNull();

      const rt = await eventually(
        `runtime ${runtimeId} finished`,
        async () => {
          const g = await get(`/v1/commerce-runtime/${runtimeId}`);
          return g.body.runtime.runtime_session.finished_at ? g.body.runtime : null;
        },
        90_000,
      );
      console.log(`[faults] worker SIGKILL mid-runtime: finished ${Date.now() - killedAt} ms after the kill`);
      expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
      expect(rt.runtime_trace.audit_status).toBe('completed');
      expect(rt.match_token).toMatchObject({
        proposal_id: rt.proposal.proposal_id,
        match_session_id: rt.match_session.match_session_id,
        acceptance_state: 'accepted',
      });
      expect(rt.proposal.merchant_agent_id).toBe(merchantId);
      // The merchant was asked again after the restart (same step), and answered that time.
      expect(merchant.requests.length).toBeGreaterThanOrEqual(2);
      for (const b of merchant.requests)
        expect(b.body).toMatchObject({ type: 'runtime.query', data: { runtime_id: runtimeId, merchant_id: merchantId } });
      expect(merchant.byStep.size).toBe(1);

      // Steps: one row per index, in order, nothing repeated; the audit counts the one query.
      expect(rt.agent_steps.map((s: any) => [s.index, s.kind, s.status])).toEqual([
        [0, 'resolve_intent', 'succeeded'],
        [1, 'merchant_query', 'succeeded'],
        [2, 'rank', 'succeeded'],
        [3, 'mint_token', 'succeeded'],
      ]);
      const stepRows = await db.selectFrom('commerce_runtime_steps').select(['index']).where('runtime_id', '=', runtimeId).execute();
      expect(stepRows.map((s) => s.index).sort()).toEqual([0, 1, 2, 3]);
      expect(rt.runtime_trace.consumed).toMatchObject({ merchant_queries: 1, proposal_versions: 1 });

      // Exactly one intent, proposal, match session and match token for this runtime.
      const intents = await db
        .selectFrom('intents')
        .select('intent_id')
        .where(({ eb, ref }) => eb(eb.fn('jsonb_extract_path_text', [ref('workflow'), eb.val('runtime_id')]), '=', runtimeId))
        .execute();
      expect(intents.map((i) => i.intent_id)).toEqual([rt.intent.intent_id]);
      const proposals = await db.selectFrom('proposals').select('proposal_id').where('intent_id', '=', rt.intent.intent_id).execute();
      expect(proposals.map((p) => p.proposal_id)).toEqual([rt.proposal.proposal_id]);
      const sessions = await db
        .selectFrom('match_sessions')
        .select('match_session_id')
        .where('intent_id', '=', rt.intent.intent_id)
        .execute();
      expect(sessions.map((s) => s.match_session_id)).toEqual([rt.match_session.match_session_id]);
      const tokens = await db
        .selectFrom('match_tokens')
        .select('match_token_id')
        .where('match_session_id', '=', rt.match_session.match_session_id)
        .execute();
      expect(tokens.map((t) => t.match_token_id)).toEqual([rt.match_token.match_token_id]);
      // Terminal in Temporal as in Postgres.
      expect((await d.temporal.workflow.getHandle(`runtime-${runtimeId}`).describe()).status.name).toBe('COMPLETED');
    } finally {
      await merchant.server.close();
    }
  }, 120_000);
});

describe('a worker killed mid-confirm (merchant handoff in flight)', () => {
  it('confirmed once: one receipt, one payment authorization, one order at the merchant; every handoff attempt in the audit', async () => {
    const merchant = await orderMerchant(2000);
    try {
      const merchantId = `mer-${letters()}`;
      const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: merchant.url });
      expect(reg.status, reg.text).toBe(200);
      const b = await buyable(d.url, dev.apiKey, { id: merchantId, token: reg.body.registration_token }, product);
      const checkoutId = await plan(b);

      const confirmed = await confirmThroughWorkerKill(checkoutId, b, merchant.firstCall);
      expect(confirmed.status, confirmed.text).toBe(200);
      const done = confirmed.body.checkout;
      expect(done).toMatchObject({ checkout_id: checkoutId, status: 'confirmed' });
      expect(done.receipt).toMatchObject({
        status: 'order_placed',
        merchant_id: merchantId,
        merchant_response: { status_code: 200, order_id: 'ord-1' },
        amount: b.amount,
        currency: 'USD',
      });

      const fetched = (await get(`/v1/agentic-checkout/${checkoutId}`)).body.checkout;
      expect(fetched).toMatchObject({ status: 'confirmed', receipt: done.receipt });
      // A confirm after the fact returns the same stored result.
      const again = await post(`/v1/agentic-checkout/${checkoutId}/confirm`, confirmBody(b));
      expect(again.status).toBe(200);
      expect(again.body.checkout.receipt).toEqual(done.receipt);

      // Once each: consent, payment, settlement, confirmation.
      const steps = fetched.audit_trail.map((a: any) => a.step as string);
      for (const once of [
        'plan_created',
        'consent_recorded',
        'payment_authorized',
        'proposal_settled',
        'match_token_consumed',
        'confirmed',
      ]) {
        expect(
          steps.filter((s: string) => s === once),
          `${once} in ${steps.join(',')}`,
        ).toHaveLength(1);
      }
      const auths = await db
        .selectFrom('payment_authorizations')
        .selectAll()
        .where('match_token_id', '=', b.token.match_token_id)
        .execute();
      expect(auths).toHaveLength(1);
      expect(fetched.payment_authorization_id).toBe(auths[0]!.authorization_id);
      expect(
        await db.selectFrom('agentic_checkouts').select('checkout_id').where('match_token_id', '=', b.token.match_token_id).execute(),
      ).toHaveLength(1);
      expect((await get(`/v1/match-tokens/${b.token.match_token_id}`)).body.match_token.acceptance_state).toBe('consumed');

      // The merchant saw the handoff again after the restart, with the same key and body; one order.
      expect(merchant.requests.length).toBeGreaterThanOrEqual(2);
      for (const r of merchant.requests) {
        expect(r.headers['idempotency-key']).toBe(checkoutId);
        expect(r.headers['webhook-id']).toBe(checkoutId);
        expect(r.body).toEqual(merchant.requests[0]!.body);
      }
      expect([...merchant.orders.keys()]).toEqual([checkoutId]);
      expect(handoffAttempts(fetched)).toHaveLength(merchant.requests.length);
      expect((await d.temporal.workflow.getHandle(workflowIds.checkout(checkoutId)).describe()).status.name).toBe('COMPLETED');
    } finally {
      await merchant.server.close();
    }
    // A worker process starts here, bundling the workflow code first: room for a loaded machine.
  }, 90_000);
});

describe('a worker killed mid-handoff, the reference merchant agent (de-duplicates by Idempotency-Key)', () => {
  it('the merchant takes ONE order although the handoff reached it twice; the audit shows every attempt; the dead worker is noticed by the workflow task timeout', async () => {
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
      const b = await buyable(d.url, dev.apiKey, { id: merchantId, token: reg.body.registration_token }, product);
      const checkoutId = await plan(b);

      // The attempt is in the audit before the merchant answered.
      const sending = firstOrder.then(async () => {
        const during = (await get(`/v1/agentic-checkout/${checkoutId}`)).body.checkout.audit_trail;
        expect(during.map((a: any) => `${a.step}:${a.outcome}`)).toContain('merchant_handoff_attempt_1:sending');
      });
      const confirmed = await confirmThroughWorkerKill(checkoutId, b, sending);
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
      const attempts = handoffAttempts(done);
      expect(attempts.length).toBe(handoffs.length);
      expect(attempts[0]).toMatchObject({ step: 'merchant_handoff_attempt_1', outcome: 'sending' });
      expect(attempts.at(-1)).toMatchObject({ outcome: 'handed_off', detail: { order_id: 'shop-order-1' } });

      // The handoff is a local activity (workflows/checkout.ts, checkout-local-handoff): no activity task;
      // Temporal noticed the dead worker by the workflow task's start-to-close timeout (10 s), not the
      // handoff's 30 s, and the next worker ran the confirm's task again.
      const history = await d.temporal.workflow.getHandle(workflowIds.checkout(checkoutId)).fetchHistory();
      expect(history.events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
      const timedOut = history
        .events!.filter((e) => e.workflowTaskTimedOutEventAttributes)
        .map((e) => e.workflowTaskTimedOutEventAttributes!);
      expect(timedOut.length).toBeGreaterThanOrEqual(1);
      expect(String(timedOut[0]!.timeoutType)).toMatch(/START_TO_CLOSE|^1$/);
    } finally {
      for (const a of agents) await a.close();
    }
  }, 90_000);
});
