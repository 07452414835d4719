import { generateKeyPairSync } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { compactVerify, createLocalJWKSet } from 'jose';
import { workflowIds } from '../src/temporal/names';
import { call } from './helpers/http';
import { answersWithin } from './helpers/deadline';
import { onboard, type Onboarded } from './helpers/console';
import { json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { stockedProduct } from './helpers/catalog';
import { sql } from 'kysely';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createRuntimeDeps, rankRuntimeProposals, resolveRuntimeIntent } from '../src/runtime/steps';
import { queryMerchantAgents } from '../src/runtime/merchant-query';
import { BUDGET_DEFAULTS } from '../src/schemas/runtime';
import { insertRuntime } from '../src/runtime/store';
import { ensureSystemChores, runChore, systemChoresWorkflowId } from '../src/housekeeping/chores';
import { replayAndRecord as recordHistory } from './helpers/histories';
import { startMerchantAgent } from '../examples/merchant-agent/agent';

/**
 * Commerce runtime end to end (docs/RUNTIME.md): the real API starts `runtime-<id>` on Temporal, a
 * real worker runs the loop, and merchant agents are loopback HTTP servers that answer well, hang
 * past their 3 s deadline, or lie about the price.
 */
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ENV = { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: signingKey };

let api: TestApi;
let dev: Onboarded;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let product: { product_id: number; price_cents: number; title: string };
const servers: LoopbackServer[] = [];

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (path: string) => call(api.url, 'GET', path, { token: dev.apiKey });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A merchant agent on loopback: `answer` gives the JSON body, or 'hang' (never answers). */
async function merchantAgent(answer: (body: any) => unknown | 'hang') {
  const bodies: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  const server = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    bodies.push({ headers: req.headers, body });
    const a = answer(body);
    if (a === 'hang') return;
    json(res, 200, a);
  });
  servers.push(server);
  return { server, bodies };
}

async function register(merchantId: string, endpoint: string, tags: string[]) {
  const res = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: endpoint, subscription_tags: tags });
  expect(res.status, res.text).toBe(200);
}

const offer = (price: number) => ({
  proposals: [{ product_id: product.product_id, offer_title: product.title, price, currency: 'USD', shipping_commitment: { max_days: 3 } }],
});
const catalogPrice = () => product.price_cents / 100;

/** Three merchants on a fresh tag, in merchant_id order: a-good, b-slow, c-liar. */
async function threeMerchants(opts: { liarPrice?: number } = {}) {
  const tag = letters();
  const good = await merchantAgent(() => offer(catalogPrice()));
  const slow = await merchantAgent(() => 'hang');
  const liar = await merchantAgent(() => offer(opts.liarPrice ?? Math.round(catalogPrice() * 10) / 100)); // 90 % below catalog
  const ids = { good: `m-${tag}-a-good`, slow: `m-${tag}-b-slow`, liar: `m-${tag}-c-liar` };
  await register(ids.good, good.server.url, [tag]);
  await register(ids.slow, slow.server.url, [tag]);
  await register(ids.liar, liar.server.url, [tag]);
  return { tag, ids, good, slow, liar };
}

const intentBody = (tag: string) => ({ raw_query: `${tag} wireless headphones for my commute`, intent_tags: [tag] });

beforeAll(async () => {
  api = await startTestApi({ env: ENV });
  dev = await onboard(api.url);
  product = await stockedProduct(api.db);
  worker = await startTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db);
});

afterAll(async () => {
  await stopTheLoop();
  await worker?.stop();
  await Promise.all(servers.map((s) => s.close()));
  await api?.close();
});

/**
 * One pass of the runtime reconciler through the task queue's system-chores loop (started here as a
 * worker boot starts it), answered by its `runChore` Update; the loop is stopped after the test.
 */
async function reconcileThroughTheLoop() {
  await ensureSystemChores(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
  onTestFinished(stopTheLoop);
  return runChore(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE, 'runtimeReconcile');
}
async function stopTheLoop() {
  await api?.temporal?.client.workflow
    .getHandle(systemChoresWorkflowId(api.config.TEMPORAL_TASK_QUEUE))
    .terminate('test over')
    .catch(() => undefined);
}

describe('POST /v1/commerce-runtime (docs/RUNTIME.md)', () => {
  it('runs the loop over 3 merchant agents: the honest one is chosen, the slow one times out, the liar loses on trust', async () => {
    const { tag, ids, good, slow, liar } = await threeMerchants();
    const memory = [{ ref_id: 'mem-1', kind: 'preference', uri: 'memory://user/42/prefs', summary: 'prefers over-ear' }];
    const res = await post('/v1/commerce-runtime', {
      intent: intentBody(tag),
      runtime_session: { entry_agent_id: 'shopper-agent-1', mode: 'assisted' },
      commerce_memory_refs: memory,
      skill_refs: ['skill://compare-prices'],
      proposal: { metadata: { cart_ref: 'cart-7' } },
    });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_session).toMatchObject({ entry_agent_id: 'shopper-agent-1', mode: 'assisted', stage: 'awaiting_user_confirmation' });
    expect(rt.runtime_session.workflow_id).toBe(workflowIds.runtime(rt.runtime_session.runtime_id));
    expect(rt.commerce_budget).toEqual({
      max_agent_iterations: 8,
      max_merchant_queries: 5,
      max_proposal_versions: 3,
      require_user_confirmation_before_payment: true,
    });
    expect(rt.commerce_memory_refs).toEqual(memory);
    expect(rt.skill_refs).toEqual(['skill://compare-prices']);
    expect(rt.runtime_trace).toMatchObject({
      audit_status: 'completed',
      current_step: 5,
      consumed: { iterations: 6, merchant_queries: 3, proposal_versions: 2 },
    });

    // The steps, in order, each with what it consumed.
    expect(rt.agent_steps.map((s: any) => [s.index, s.kind, s.agent_id, s.status])).toEqual([
      [0, 'resolve_intent', 'shopper-agent-1', 'succeeded'],
      [1, 'merchant_query', ids.good, 'succeeded'],
      [2, 'merchant_query', ids.slow, 'timeout'],
      [3, 'merchant_query', ids.liar, 'succeeded'],
      [4, 'rank', 'gateway-matcher', 'succeeded'],
      [5, 'mint_token', 'gateway-matcher', 'succeeded'],
    ]);
    expect(rt.agent_steps[2].error).toMatch(/^timeout/);
    expect(rt.agent_steps[1].budget_consumed).toEqual({ iterations: 1, merchant_queries: 1, proposal_versions: 1 });
    expect(rt.agent_steps[3].output_summary).toMatch(/high risk: price is 90% below catalog/);
    for (const s of rt.agent_steps) expect(s.finished_at >= s.started_at).toBe(true);

    // Each merchant got the intent with a deadline; the honest merchant's proposal was chosen over the cheaper liar.
    for (const m of [good, slow, liar]) {
      expect(m.bodies).toHaveLength(1);
      expect(m.bodies[0]!.body).toMatchObject({
        type: 'runtime.query',
        data: { runtime_id: rt.runtime_session.runtime_id, intent: { intent_id: rt.intent.intent_id } },
      });
      expect(m.bodies[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    }
    expect(rt.proposal).toMatchObject({ merchant_agent_id: ids.good, price: catalogPrice(), proposal_state: 'pending_confirmation' });
    expect(rt.proposal.metadata).toMatchObject({
      runtime_id: rt.runtime_session.runtime_id,
      runtime_shell: { metadata: { cart_ref: 'cart-7' } },
    });
    const liarRanked = rt.match_session.ranked_proposals.find((p: any) => p.merchant_agent_id === ids.liar);
    expect(liarRanked.breakdown.trust.value).toBeLessThan(
      rt.match_session.ranked_proposals.find((p: any) => p.merchant_agent_id === ids.good).breakdown.trust.value,
    );
    expect(rt.match_token).toMatchObject({
      proposal_id: rt.proposal.proposal_id,
      match_session_id: rt.match_session.match_session_id,
      acceptance_state: 'accepted',
    });

    // Every linked record is readable through its own endpoint.
    expect((await get(`/v1/intents/${rt.intent.intent_id}`)).body.intent.workflow).toMatchObject({
      runtime_id: rt.runtime_session.runtime_id,
    });
    // The runtime queried the merchants itself: Intent.Surge does not fan the intent out again.
    expect(
      await api.db.selectFrom('intents').select('answered_by').where('intent_id', '=', rt.intent.intent_id).executeTakeFirstOrThrow(),
    ).toEqual({ answered_by: 'commerce_runtime' });
    expect((await get(`/v1/proposals/${rt.proposal.proposal_id}`)).body.proposal.proposal_id).toBe(rt.proposal.proposal_id);
    expect((await get(`/v1/match/${rt.match_session.match_session_id}`)).status).toBe(200);
    const token = (await get(`/v1/match-tokens/${rt.match_token.match_token_id}`)).body.match_token;
    expect(token.acceptance_state).toBe('accepted');
    // The worker signed the token with the key the API publishes.
    const jwks = (await call(api.url, 'GET', '/.well-known/jwks.json')).body;
    const verified = await compactVerify(token.signed_token, createLocalJWKSet(jwks));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toMatchObject({
      proposal_id: rt.proposal.proposal_id,
      amount: catalogPrice(),
    });
    // GET reads the same runtime from the database.
    const again = await get(`/v1/commerce-runtime/${rt.runtime_session.runtime_id}`);
    expect(again.status).toBe(200);
    expect(again.body.runtime).toEqual(rt);
    // The run's result (the UI's Result panel) names what it chose: product, merchant and price.
    const run = api.temporal!.client.workflow.getHandle(rt.runtime_session.workflow_id);
    expect(await run.result()).toMatchObject({
      stage: 'awaiting_user_confirmation',
      proposalId: rt.proposal.proposal_id,
      chosen: { product: rt.proposal.offer_title, merchant_id: ids.good, price: catalogPrice(), currency: rt.proposal.currency },
    });

    // The completed run's history replays against the current workflow code; it is kept for the replay test.
    await recordHistory(api.temporal!.client, rt.runtime_session.workflow_id, 'commerce-runtime.json');
  });

  it('max_merchant_queries 1 with 3 merchants: one query, then ranks what it has', async () => {
    const { tag, ids, slow, liar } = await threeMerchants();
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag), commerce_budget: { max_merchant_queries: 1 } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_trace.audit_status).toBe('budget_exhausted:max_merchant_queries');
    expect(rt.runtime_trace.consumed.merchant_queries).toBe(1);
    expect(rt.agent_steps.filter((s: any) => s.kind === 'merchant_query').map((s: any) => s.agent_id)).toEqual([ids.good]);
    expect(slow.bodies).toHaveLength(0);
    expect(liar.bodies).toHaveLength(0);
    expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
    expect(rt.match_token.proposal_id).toBe(rt.proposal.proposal_id);
  });

  it('max_agent_iterations 2: resolve and one query, then stops with the best proposal so far', async () => {
    const { tag, ids } = await threeMerchants();
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag), commerce_budget: { max_agent_iterations: 2 } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_trace).toMatchObject({
      audit_status: 'budget_exhausted:max_agent_iterations',
      current_step: 1,
      consumed: { iterations: 2 },
    });
    expect(rt.runtime_session.stage).toBe('stopped');
    expect(rt.agent_steps).toHaveLength(2);
    expect(rt.proposal.merchant_agent_id).toBe(ids.good);
    expect(rt.match_session).toBeNull();
    expect(rt.match_token).toBeNull();
  });

  it('max_proposal_versions 1: the first proposal is kept, collecting stops', async () => {
    const { tag, ids, slow } = await threeMerchants();
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag), commerce_budget: { max_proposal_versions: 1 } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_trace.audit_status).toBe('budget_exhausted:max_proposal_versions');
    expect(rt.runtime_trace.consumed.proposal_versions).toBe(1);
    expect(slow.bodies).toHaveLength(0);
    expect(rt.proposal.merchant_agent_id).toBe(ids.good);
    expect(rt.match_token).not.toBeNull();
  });

  it('merchants asked at once, steps as one at a time: a first merchant offering 2 of max_proposal_versions 2 ends collecting; only its round was asked', async () => {
    const tag = letters();
    const ids = [`m-${tag}-a`, `m-${tag}-b`, `m-${tag}-c`];
    const two = await merchantAgent(() => ({ proposals: [...offer(catalogPrice()).proposals, ...offer(catalogPrice() + 1).proposals] }));
    const second = await merchantAgent(() => offer(catalogPrice()));
    const third = await merchantAgent(() => offer(catalogPrice()));
    for (const [i, m] of [two, second, third].entries()) await register(ids[i]!, m.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag), commerce_budget: { max_proposal_versions: 2 } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_trace).toMatchObject({
      audit_status: 'budget_exhausted:max_proposal_versions',
      consumed: { merchant_queries: 1, proposal_versions: 2 },
    });
    expect(rt.agent_steps.filter((s: any) => s.kind === 'merchant_query').map((s: any) => [s.index, s.agent_id])).toEqual([[1, ids[0]]]);
    // One round of two merchants (the proposal versions left), each told that budget: the second
    // merchant's answer is not recorded (one at a time it would not have been asked), the third was not asked.
    expect(two.bodies.map((b) => b.body.data.max_proposals)).toEqual([2]);
    expect(second.bodies).toHaveLength(1);
    expect(third.bodies).toHaveLength(0);

    // The step retried (its activity run again): the recorded step answers, no merchant is asked again.
    const steps = createRuntimeDeps({ db: api.db, config: api.config });
    const again = await queryMerchantAgents(steps, {
      runtimeId: rt.runtime_session.runtime_id,
      index: 1,
      intentId: rt.intent.intent_id,
      merchantIds: ids,
      maxProposals: 2,
      deadlineMs: 3000,
    });
    expect(again).toEqual([{ status: 'succeeded', proposalIds: expect.any(Array), dropped: 0 }]);
    expect(again[0]!.proposalIds).toHaveLength(2);
    expect([two.bodies.length, second.bodies.length, third.bodies.length]).toEqual([1, 1, 0]);
  });

  it('merchants asked in rounds: one proposing nothing leaves the budget to the next, which is asked in a second round', async () => {
    const tag = letters();
    const ids = [`m-${tag}-a`, `m-${tag}-b`, `m-${tag}-c`];
    const empty = await merchantAgent(() => ({ proposals: [] }));
    const second = await merchantAgent(() => offer(catalogPrice()));
    const third = await merchantAgent(() => offer(catalogPrice()));
    for (const [i, m] of [empty, second, third].entries()) await register(ids[i]!, m.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag), commerce_budget: { max_proposal_versions: 1 } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_trace).toMatchObject({
      audit_status: 'budget_exhausted:max_proposal_versions',
      consumed: { merchant_queries: 2, proposal_versions: 1 },
    });
    expect(rt.agent_steps.filter((s: any) => s.kind === 'merchant_query').map((s: any) => [s.index, s.agent_id, s.status])).toEqual([
      [1, ids[0], 'succeeded'],
      [2, ids[1], 'succeeded'],
    ]);
    expect([empty.bodies.length, second.bodies.length, third.bodies.length]).toEqual([1, 1, 0]);
    expect(rt.proposal.merchant_agent_id).toBe(ids[1]);
  });

  it('a merchant agent that does not answer runtime queries is a skipped step, not a failure: the reference agent (202 ignored) and one answering 501', async () => {
    const tag = letters();
    const ids = { good: `m-${tag}-a-good`, reference: `m-${tag}-b-ref`, unimplemented: `m-${tag}-c-501`, broken: `m-${tag}-d-broken` };
    const good = await merchantAgent(() => offer(catalogPrice()));
    await register(ids.good, good.server.url, [tag]);
    // The reference merchant agent takes Intent.Surge deliveries and acknowledges any other event with 202.
    const reg = await post('/v1/merchant/register', {
      merchant_id: ids.reference,
      agent_endpoint: 'http://127.0.0.1:9/later',
      subscription_tags: [tag],
    });
    expect(reg.status, reg.text).toBe(200);
    const reference = await startMerchantAgent({
      merchantId: ids.reference,
      merchantToken: reg.body.registration_token,
      webhookSecret: reg.body.webhook_secret,
      apiKey: dev.apiKey,
      productId: product.product_id,
      price: catalogPrice(),
    });
    onTestFinished(() => reference.close());
    const moved = await post(
      '/v1/merchant/register',
      { merchant_id: ids.reference, agent_endpoint: reference.url },
      { 'x-merchant-token': reg.body.registration_token },
    );
    expect(moved.status, moved.text).toBe(200);
    const unimplemented = await startLoopback(async (req, res) => {
      await readBody(req);
      json(res, 501, { error: 'not_implemented' });
    });
    servers.push(unimplemented);
    await register(ids.unimplemented, unimplemented.url, [tag]);
    // Off the contract (no product named): that one is a failure still.
    const broken = await merchantAgent(() => ({ proposals: [{ offer_title: 'something', price: 10, currency: 'USD' }] }));
    await register(ids.broken, broken.server.url, [tag]);

    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag) });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    const queries = rt.agent_steps.filter((s: any) => s.kind === 'merchant_query');
    expect(queries.map((s: any) => [s.agent_id, s.status])).toEqual([
      [ids.good, 'succeeded'],
      [ids.reference, 'skipped'],
      [ids.unimplemented, 'skipped'],
      [ids.broken, 'failed'],
    ]);
    const [, ignored, notImplemented, offContract] = queries;
    expect(ignored).toMatchObject({ error: null, budget_consumed: { iterations: 1, merchant_queries: 1, proposal_versions: 0 } });
    expect(ignored.output_summary).toBe(
      'not answered: it acknowledged the query (HTTP 202) without proposals; the merchant agent does not answer runtime queries',
    );
    expect(notImplemented).toMatchObject({ error: null });
    expect(notImplemented.output_summary).toMatch(/^not answered: it answered HTTP 501 Not Implemented;/);
    expect(offContract.error).toMatch(/^invalid_answer: proposals\.0/);
    // The reference agent was asked and said it ignores the event type; the run ended normally.
    expect(reference.events).toEqual([expect.objectContaining({ outcome: 'ignored', httpStatus: 202, reason: 'type runtime.query' })]);
    expect(rt.runtime_trace.audit_status).toBe('completed');
    expect(rt.proposal.merchant_agent_id).toBe(ids.good);
  });

  it('require_user_confirmation_before_payment false: goes on to authorize payment', async () => {
    const tag = letters();
    const good = await merchantAgent(() => offer(catalogPrice()));
    await register(`m-${tag}-only`, good.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', {
      intent: intentBody(tag),
      commerce_budget: { require_user_confirmation_before_payment: false },
    });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.runtime_session.stage).toBe('payment_authorized');
    expect(rt.agent_steps.at(-1)).toMatchObject({ kind: 'authorize_payment', status: 'succeeded' });
    expect(rt.match_token.acceptance_state).toBe('payment_authorized');
    expect(rt.proposal.proposal_state).toBe('accepted');
    expect((await get(`/v1/match-tokens/${rt.match_token.match_token_id}`)).body.match_token.acceptance_state).toBe('payment_authorized');
  });

  it('the catalog answers when no merchant subscribes', async () => {
    const res = await post('/v1/commerce-runtime', { intent: { raw_query: `${product.title}`, intent_tags: [letters()] } });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.agent_steps.map((s: any) => s.kind)).toEqual(['resolve_intent', 'catalog_query', 'rank', 'mint_token']);
    expect(rt.proposal).toMatchObject({ merchant_agent_id: 'gateway-catalog', provenance: 'catalog' });
    expect(rt.match_token).not.toBeNull();
  });

  it('202 with Prefer: wait=0, then GET shows the final state', async () => {
    const tag = letters();
    const good = await merchantAgent(() => offer(catalogPrice()));
    await register(`m-${tag}-only`, good.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag) }, { prefer: 'wait=0' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'running', status_url: `/v1/commerce-runtime/${res.body.runtime_id}` });
    expect(res.headers.get('location')).toBe(res.body.status_url);
    const deadline = Date.now() + 20_000;
    let rt;
    for (;;) {
      const g = await get(res.body.status_url);
      expect(g.status).toBe(200);
      rt = g.body.runtime;
      if (rt.runtime_session.finished_at || Date.now() > deadline) break;
      await sleep(200);
    }
    expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
    expect(rt.runtime_trace.audit_status).toBe('completed');
    expect(rt.match_token).not.toBeNull();
  });

  it('400 missing_intent, 400 invalid budget (naming the field), 401, 404', async () => {
    for (const body of [{}, { intent: null }, { commerce_budget: { max_agent_iterations: 3 } }]) {
      const res = await post('/v1/commerce-runtime', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('missing_intent');
    }
    const noBody = await call(api.url, 'POST', '/v1/commerce-runtime', { token: dev.apiKey });
    expect(noBody.body.error).toBe('missing_intent');
    for (const [field, value] of [
      ['max_agent_iterations', 0],
      ['max_merchant_queries', 21],
      ['max_proposal_versions', 1.5],
      ['max_agent_iterations', 51],
    ] as const) {
      const res = await post('/v1/commerce-runtime', { intent: { raw_query: 'socks' }, commerce_budget: { [field]: value } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_payload');
      expect(res.body.fields).toContain(`commerce_budget.${field}`);
    }
    expect((await call(api.url, 'POST', '/v1/commerce-runtime', { body: { intent: { raw_query: 'socks' } } })).status).toBe(401);
    expect(
      (await call(api.url, 'POST', '/v1/commerce-runtime', { token: 'nope', body: { intent: { raw_query: 'socks' } } })).body.error,
    ).toBe('invalid_api_key');
    expect((await get('/v1/commerce-runtime/rt_missing')).body.error).toBe('runtime_not_found');
  });

  it('503 temporal_unavailable without Temporal (nothing stored)', async () => {
    const bare = await startTestApi({ withTemporal: false, env: ENV, db: api.db });
    try {
      const before = await api.db
        .selectFrom('commerce_runtimes')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const res = await call(bare.url, 'POST', '/v1/commerce-runtime', { token: dev.apiKey, body: { intent: { raw_query: 'socks' } } });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('temporal_unavailable');
      const after = await api.db
        .selectFrom('commerce_runtimes')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(after.n).toBe(before.n);
    } finally {
      await bare.close();
    }
  });
});

describe('exactly-once steps, visible failures, the reconciler', () => {
  it('a retried step finds what its first attempt did: the query step lost after its proposals were stored is recorded without asking the merchant again', async () => {
    const tag = letters();
    const good = await merchantAgent(() => offer(catalogPrice()));
    const merchantId = `m-${tag}-once`;
    await register(merchantId, good.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag) });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    const runtimeId = rt.runtime_session.runtime_id as string;
    const steps = createRuntimeDeps({ db: api.db, config: api.config });
    const asked = good.bodies.length;

    // A worker died after the query stored its proposal but before its step was written.
    await api.db.deleteFrom('commerce_runtime_steps').where('runtime_id', '=', runtimeId).where('index', '=', 1).execute();
    const retried = await queryMerchantAgents(steps, {
      runtimeId,
      index: 1,
      intentId: rt.intent.intent_id,
      merchantIds: [merchantId],
      maxProposals: 5,
      deadlineMs: 3000,
    });
    expect(retried).toEqual([{ status: 'succeeded', proposalIds: [rt.proposal.proposal_id], dropped: 0 }]);
    expect(good.bodies.length).toBe(asked);
    const again = (await get(`/v1/commerce-runtime/${runtimeId}`)).body.runtime;
    expect(again.agent_steps.map((s: any) => [s.index, s.kind, s.status])).toEqual(
      rt.agent_steps.map((s: any) => [s.index, s.kind, s.status]),
    );
    expect(again.runtime_trace.consumed).toEqual(rt.runtime_trace.consumed);
    // Once more (the step is recorded now): the same answer, still one row, the merchant still not asked.
    expect(
      await queryMerchantAgents(steps, {
        runtimeId,
        index: 1,
        intentId: rt.intent.intent_id,
        merchantIds: [merchantId],
        maxProposals: 5,
        deadlineMs: 3000,
      }),
    ).toEqual(retried);
    expect(good.bodies.length).toBe(asked);

    // The resolve and rank steps, retried: the same intent and match session, nothing new.
    const resolved = await resolveRuntimeIntent(steps, { runtimeId, index: 0 });
    expect(resolved.intentId).toBe(rt.intent.intent_id);
    await api.db.updateTable('commerce_runtimes').set({ match_session_id: null }).where('runtime_id', '=', runtimeId).execute();
    const ranked = await rankRuntimeProposals(steps, {
      runtimeId,
      index: 2,
      intentId: rt.intent.intent_id,
      proposalIds: [rt.proposal.proposal_id],
    });
    expect(ranked.matchSessionId).toBe(rt.match_session.match_session_id);
    expect(
      await api.db
        .selectFrom('intents')
        .select('intent_id')
        .where(sql<boolean>`workflow->>'runtime_id' = ${runtimeId}`)
        .execute(),
    ).toHaveLength(1);
    expect(
      await api.db.selectFrom('match_sessions').select('match_session_id').where('intent_id', '=', rt.intent.intent_id).execute(),
    ).toHaveLength(1);
  });

  it('a business failure ends the workflow Failed (typed with the error code, reason and next action in details); its memo carries the business keys', async () => {
    const runtimeId = `rt_missing${letters()}`;
    const handle = await api.temporal!.client.workflow.start('commerceRuntime', {
      workflowId: workflowIds.runtime(runtimeId),
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      args: [{ runtimeId, budget: BUDGET_DEFAULTS, merchantDeadlineMs: 3000 }],
      memo: { runtime_id: runtimeId },
    });
    const err = await handle.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('runtime_not_found');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.details?.[0]).toMatchObject({
      runtime_id: runtimeId,
      stage: 'resolving_intent',
      next_action: expect.any(String),
      reason: expect.stringContaining(runtimeId),
    });
    const d = await handle.describe();
    expect(d.status.name).toBe('FAILED');
    // The operators' filter finds it.
    const found = await eventuallyList(`WorkflowId = '${workflowIds.runtime(runtimeId)}' AND ExecutionStatus = 'Failed'`);
    expect(found).toBe(1);

    // A run through the API carries its business keys in the memo, the intent added once resolved.
    const res = await post('/v1/commerce-runtime', { intent: intentBody(letters()) });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    const memo = (await api.temporal!.client.workflow.getHandle(rt.runtime_session.workflow_id).describe()).memo;
    expect(memo).toMatchObject({
      runtime_id: rt.runtime_session.runtime_id,
      developer_id: dev.developerId,
      entry_agent_id: 'api-caller',
      intent_id: rt.intent.intent_id,
    });
  });

  it('the runtime-reconcile chore closes a row whose workflow was terminated, and one whose workflow never started', async () => {
    const tag = letters();
    const hang = await merchantAgent(() => 'hang');
    await register(`m-${tag}-hang`, hang.server.url, [tag]);
    const res = await post('/v1/commerce-runtime', { intent: intentBody(tag) }, { prefer: 'wait=0' });
    expect(res.status, res.text).toBe(202);
    const terminated = res.body.runtime_id as string;
    await api.temporal!.client.workflow.getHandle(workflowIds.runtime(terminated)).terminate('operator test');
    const orphan = `rt_orphan${letters()}`;
    await insertRuntime(api.db, {
      runtimeId: orphan,
      entryAgentId: 'api-caller',
      mode: 'assisted',
      budget: BUDGET_DEFAULTS,
      memoryRefs: [],
      skillRefs: [],
      request: {},
      developerId: dev.developerId,
      keyId: null,
    });
    // Old enough for the reconciler: 2 minutes (terminated) and 20 minutes (never started).
    await api.db
      .updateTable('commerce_runtimes')
      .set({ started_at: sql`now() - interval '2 minutes'` })
      .where('runtime_id', '=', terminated)
      .execute();
    await api.db
      .updateTable('commerce_runtimes')
      .set({ started_at: sql`now() - interval '20 minutes'` })
      .where('runtime_id', '=', orphan)
      .execute();

    const reconciled = await reconcileThroughTheLoop();
    expect(reconciled).toMatchObject({ chore: 'runtimeReconcile', checked: expect.any(Number), closed: expect.any(Number) });
    // Closed by this pass, or by the loop's own first tick just before it (one chore at a time).
    const rows = await api.db
      .selectFrom('commerce_runtimes')
      .select(['runtime_id', 'stage', 'finished_at', 'runtime_trace'])
      .where('runtime_id', 'in', [terminated, orphan])
      .orderBy('runtime_id')
      .execute();
    const byId = new Map(rows.map((r) => [r.runtime_id, r]));
    expect(byId.get(terminated)).toMatchObject({ stage: 'failed', runtime_trace: { audit_status: 'failed:workflow_terminated' } });
    expect(byId.get(orphan)).toMatchObject({ stage: 'failed', runtime_trace: { audit_status: 'failed:workflow_not_started' } });
  });
});

describe('payment a runtime authorizes: only what can be handed off, and voided when no checkout takes it up', () => {
  it('a catalog product whose seller has no agent: the authorize step is skipped, the run awaits the user, the token stays accepted', async () => {
    const res = await post('/v1/commerce-runtime', {
      intent: { raw_query: `${product.title}`, intent_tags: [letters()] },
      commerce_budget: { require_user_confirmation_before_payment: false },
    });
    expect(res.status, res.text).toBe(201);
    const rt = res.body.runtime;
    expect(rt.proposal).toMatchObject({ merchant_agent_id: 'gateway-catalog' });
    expect(rt.runtime_session.stage).toBe('awaiting_user_confirmation');
    expect(rt.agent_steps.at(-1)).toMatchObject({ kind: 'authorize_payment', status: 'skipped' });
    expect(rt.match_token.acceptance_state).toBe('accepted');
    const auths = await api.db
      .selectFrom('payment_authorizations')
      .select('authorization_id')
      .where('match_token_id', '=', rt.match_token.match_token_id)
      .execute();
    expect(auths).toEqual([]);
    await recordHistory(api.temporal!.client, rt.runtime_session.workflow_id, 'commerce-runtime-authorize-skipped.json');
  });

  it('the runtime-reconcile chore voids an authorization whose token expired without a checkout (payment_voided), and keeps one a live checkout holds', async () => {
    const authorizedRun = async () => {
      const tag = letters();
      const good = await merchantAgent(() => offer(catalogPrice()));
      await register(`m-${tag}-only`, good.server.url, [tag]);
      const res = await post('/v1/commerce-runtime', {
        intent: intentBody(tag),
        commerce_budget: { require_user_confirmation_before_payment: false },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.runtime.runtime_session.stage).toBe('payment_authorized');
      return res.body.runtime;
    };
    const [stranded, held] = [await authorizedRun(), await authorizedRun()];
    // The held token's authorization is taken up by a checkout still awaiting the user's confirmation.
    const plan = await post('/v1/agentic-checkout', {
      buyer_agent_id: 'buyer-held',
      intent_id: held.intent.intent_id,
      proposal_id: held.proposal.proposal_id,
      match_token_id: held.match_token.match_token_id,
      amount: catalogPrice(),
      currency: 'USD',
    });
    expect(plan.status, plan.text).toBe(201);
    // Both tokens past their lifetime.
    const tokens = [stranded.match_token.match_token_id, held.match_token.match_token_id];
    await api.db
      .updateTable('match_tokens')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('match_token_id', 'in', tokens)
      .execute();

    // What the sweep must void: every token expired when it ran (other test files' tokens keep expiring after).
    const { rows: clock } = await sql<{ at: Date }>`select now() as at`.execute(api.db);
    const sweptFrom = clock[0]!.at;
    // The pass run now, waited for to its end (bounded): it voids in its own transactions, one by one.
    const reconciled = await answersWithin('the reconcile chore', reconcileThroughTheLoop(), 60_000);
    expect(reconciled).toMatchObject({ chore: 'runtimeReconcile', voided: expect.any(Number) });
    const auth = await api.db
      .selectFrom('payment_authorizations')
      .selectAll()
      .where('match_token_id', '=', tokens[0]!)
      .executeTakeFirstOrThrow();
    expect(auth.status).toBe('voided');
    expect(auth.void_reason).toBe('match_token_expired_without_checkout');
    const after = (await get(`/v1/commerce-runtime/${stranded.runtime_session.runtime_id}`)).body.runtime;
    expect(after.match_token.acceptance_state).toBe('expired');
    expect(after.proposal.proposal_state).toBe('pending_confirmation');
    expect(after.agent_steps.at(-1)).toMatchObject({ kind: 'payment_voided', status: 'succeeded', agent_id: 'gateway-reconciler' });
    expect(after.agent_steps.at(-1).output_summary).toContain('voided');
    // The held one is untouched: its checkout still holds the authorization (and voids it itself if it fails).
    const heldAuth = await api.db
      .selectFrom('payment_authorizations')
      .select('status')
      .where('match_token_id', '=', tokens[1]!)
      .executeTakeFirstOrThrow();
    expect(heldAuth.status).toBe('authorized');
    const heldToken = await api.db
      .selectFrom('match_tokens')
      .select('acceptance_state')
      .where('match_token_id', '=', tokens[1]!)
      .executeTakeFirstOrThrow();
    expect(heldToken.acceptance_state).toBe('payment_authorized');
    // No token that had expired when the sweep ran is left payment_authorized without a live checkout.
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from match_tokens t where t.acceptance_state = 'payment_authorized' and t.expires_at <= ${sweptFrom}
      and not exists (select 1 from agentic_checkouts c where c.match_token_id = t.match_token_id and c.status in ('awaiting_confirmation', 'confirming'))`.execute(
      api.db,
    );
    expect(rows[0]!.n).toBe(0);
  });
});

async function eventuallyList(query: string): Promise<number> {
  for (let i = 0; i < 40; i++) {
    let n = 0;
    for await (const _ of api.temporal!.client.workflow.list({ query })) n++;
    if (n) return n;
    await sleep(250);
  }
  return 0;
}
