import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WorkflowNotFoundError } from '@temporalio/client';
import { startMerchantAgent, type MerchantAgent } from '../examples/merchant-agent/agent';
import { workflowIds } from '../src/temporal/names';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { startWorkerProcess } from './helpers/worker-process';
import { startTestWorker } from './helpers/worker';
import { replayAndRecord as recordHistory } from './helpers/histories';

/**
 * Intent.Surge dispatch end to end: the real API starts the fan-out on Temporal, a real worker runs
 * it, and merchants are real HTTP servers on loopback that verify, fail, hang, go away and recover.
 * Three attempts 0.2 s apart and a 0.8 s answer deadline stand in for the production schedule.
 */
const DISPATCH_ENV = { ALLOW_PRIVATE_ENDPOINTS: 'true', DISPATCH_RETRY_SCHEDULE: '0,0.2,0.2', DISPATCH_TIMEOUT_MS: '800' };

let api: TestApi;
let dev: Onboarded;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let productId: number;
const servers: Array<{ close(): Promise<void> }> = [];

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const post = (base: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(base, 'POST', path, { token: dev.apiKey, body, headers });
const supply = (base: string, method: string, path: string, body?: unknown, key = TEST_SUPPLY_KEY) =>
  call(base, method, path, { body, headers: key ? { 'x-supply-key': key } : {} });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function registerMerchant(base: string, endpoint: string, extra: Record<string, unknown> = {}) {
  const merchant_id = `m-${letters()}`;
  const res = await post(base, '/v1/merchant/register', { merchant_id, agent_endpoint: endpoint, ...extra });
  expect(res.status, res.text).toBe(200);
  return { id: merchant_id, token: res.body.registration_token as string, secret: res.body.webhook_secret as string };
}

async function createIntent(base: string, rawQuery: string) {
  const res = await post(base, '/v1/intents', { raw_query: rawQuery });
  expect(res.status, res.text).toBe(201);
  return res.body.intent as { intent_id: string; intent_tags: string[] };
}

/** Polls the queue (bounded) until every delivery of the intent has left pending/inflight. */
async function settledQueue(base: string, intentId: string, expected: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const q = await supply(base, 'GET', `/v1/merchant/dispatch-queue?intent_id=${intentId}`);
    expect(q.status).toBe(200);
    const { pending, inflight, delivered, dlq } = q.body.summary;
    if (pending + inflight === 0 && delivered + dlq === expected) return q.body;
    if (Date.now() > deadline) throw new Error(`queue for ${intentId} not settled: ${JSON.stringify(q.body.summary)}`);
    await sleep(150);
  }
}

async function attemptsOf(base: string, deliveryId: string) {
  const res = await supply(base, 'GET', `/v1/merchant/dispatch-queue/${deliveryId}`);
  expect(res.status).toBe(200);
  return res.body as { delivery: any; attempts: any[] };
}

/** A finished run replays and is kept as this release's shape (test/helpers/histories.ts). */
const replayAndRecord = (workflowId: string, file: string) => recordHistory(api.temporal!.client, workflowId, file);

/** A merchant endpoint that reads the body and answers with what `answer` says for the n-th request. */
async function scriptedMerchant(
  answer: (n: number, req: http.IncomingMessage, body: string) => { status: number; headers?: Record<string, string> } | 'hang',
) {
  const bodies: Array<{ headers: http.IncomingHttpHeaders; body: string; status: number | 'hang' }> = [];
  const server = await startLoopback(async (req, res) => {
    const body = await readBody(req);
    const a = answer(bodies.length + 1, req, body);
    bodies.push({ headers: req.headers, body, status: a === 'hang' ? 'hang' : a.status });
    if (a === 'hang') return; // never answers; the gateway's deadline must cut it off
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end('{}');
  });
  servers.push(server);
  return { server, bodies, url: `${server.url}/hook` };
}

beforeAll(async () => {
  api = await startTestApi({ env: DISPATCH_ENV });
  dev = await onboard(api.url);
  const p = await api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('price_cents', '<', 10_000)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirstOrThrow();
  productId = p.product_id;
  // (the API listens on an ephemeral port, so the reply URL in payloads is set from where it really is)
  worker = await startTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db);
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(servers.map((s) => s.close()));
  await api?.close();
});

describe('Intent.Surge fan-out and delivery (docs/DISPATCH.md)', () => {
  it('fans out to the 3 matching merchants only; each verifies the signature and answers with a proposal', async () => {
    const tag = letters();
    // Two reference agents (verify with standardwebhooks, de-duplicate, propose) and one raw verifier.
    const agents: MerchantAgent[] = [];
    const merchants: Array<{ id: string; token: string; secret: string }> = [];
    for (let i = 0; i < 2; i++) {
      const m = await registerMerchant(api.url, 'http://127.0.0.1:9/later', {
        subscription_tags: [tag, 'gifts'],
        regions: i ? ['CA'] : [],
      });
      const agent = await startMerchantAgent({
        merchantId: m.id,
        merchantToken: m.token,
        webhookSecret: m.secret,
        apiKey: dev.apiKey,
        productId,
        price: 42,
      });
      servers.push(agent);
      agents.push(agent);
      // Point the merchant at its agent (updating a registration needs its token).
      const upd = await post(
        api.url,
        '/v1/merchant/register',
        { merchant_id: m.id, agent_endpoint: agent.url },
        { 'x-merchant-token': m.token },
      );
      expect(upd.status, upd.text).toBe(200);
      merchants.push(m);
    }
    const raw = await scriptedMerchant(() => ({ status: 204 }));
    const rawMerchant = await registerMerchant(api.url, raw.url, { subscription_tags: [tag] });
    // Not matching: another tag; the right tag but another region.
    const other = await scriptedMerchant(() => ({ status: 200 }));
    await registerMerchant(api.url, other.url, { subscription_tags: [`${tag}x`] });
    await registerMerchant(api.url, other.url, { subscription_tags: [tag], regions: ['GB'] });

    const intent = await createIntent(api.url, `${tag} gift box for my sister in Canada`);
    const queue = await settledQueue(api.url, intent.intent_id, 3);
    expect(queue.summary).toEqual({ pending: 0, inflight: 0, delivered: 3, dlq: 0 });
    expect(queue.deliveries.map((d: any) => d.merchant_id).sort()).toEqual([...merchants.map((m) => m.id), rawMerchant.id].sort());
    expect(other.bodies).toHaveLength(0);
    for (const d of queue.deliveries) {
      expect(d).toMatchObject({
        state: 'delivered',
        attempts: 1,
        // Delivered at the first attempt, which the fan-out sends itself: no run of its own.
        workflow_id: `surge-${intent.intent_id}`,
        last_attempt: { attempt: 1, outcome: 'delivered' },
      });
    }

    // The raw endpoint checks the Standard Webhooks signature with the library's own verifier.
    expect(raw.bodies).toHaveLength(1);
    const got = raw.bodies[0]!;
    const verified = new Webhook(rawMerchant.secret).verify(got.body, got.headers as Record<string, string>) as any;
    expect(verified).toMatchObject({
      type: 'intent.surge',
      data: { merchant_id: rawMerchant.id, intent: { intent_id: intent.intent_id }, reply: { proposals_url: `${api.url}/v1/proposals` } },
    });
    expect(got.headers['webhook-id']).toBe(verified.data.delivery_id);
    expect(() => new Webhook(merchants[0]!.secret).verify(got.body, got.headers as Record<string, string>)).toThrow();

    // The reference agents answered by proposing through the API.
    for (const agent of agents) {
      const [event] = await agent.waitForProposals(1);
      expect(event, JSON.stringify(event)).toMatchObject({
        outcome: 'accepted',
        intentId: intent.intent_id,
        proposal: { outcome: 'submitted', status: 201 },
      });
    }
    const proposals = await call(api.url, 'GET', `/v1/intents/${intent.intent_id}/proposals`, { token: dev.apiKey });
    expect(proposals.body.proposals.map((p: any) => p.merchant_agent_id).sort()).toEqual(merchants.map((m) => m.id).sort());

    // Operators find the fan-out in Temporal by intent; a delivery delivered at its first attempt
    // (sent by the fan-out) never got a run of its own.
    const handle = api.temporal!.client.workflow.getHandle(workflowIds.surge(intent.intent_id));
    expect(await handle.result()).toEqual({ intentId: intent.intent_id, deliveries: 3 });
    const desc = await handle.describe();
    expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['IntentId', intent.intent_id],
        ['FlowStage', 'dispatched'],
      ]),
    );
    for (const d of queue.deliveries) {
      await expect(api.temporal!.client.workflow.getHandle(workflowIds.delivery(d.delivery_id, 0)).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    }
  });

  it('filters by category tags only when both the merchant and the intent state them', async () => {
    const tag = letters();
    const sink = await scriptedMerchant(() => ({ status: 200 }));
    const shoes = await registerMerchant(api.url, sink.url, { subscription_tags: [tag], category_tags: ['Footwear'] });
    const kitchen = await registerMerchant(api.url, sink.url, { subscription_tags: [tag], category_tags: ['kitchen'] });
    const any = await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
    const stated = await createIntent(api.url, `${tag} footwear for hiking`);
    const unstated = await createIntent(api.url, `${tag} something nice`);
    const merchantsOf = async (intentId: string, n: number) =>
      (await settledQueue(api.url, intentId, n)).deliveries.map((d: any) => d.merchant_id).sort();
    expect(await merchantsOf(stated.intent_id, 2)).toEqual([shoes.id, any.id].sort());
    expect(await merchantsOf(unstated.intent_id, 3)).toEqual([shoes.id, kitchen.id, any.id].sort());
  });

  it('retries a merchant that fails twice: delivered on attempt 3, same webhook-id, every attempt recorded', async () => {
    const tag = letters();
    const flaky = await scriptedMerchant((n) => ({ status: n <= 2 ? 503 : 200 }));
    await registerMerchant(api.url, flaky.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} desk lamp`);
    const [d] = (await settledQueue(api.url, intent.intent_id, 1)).deliveries;
    expect(d).toMatchObject({ state: 'delivered', attempts: 3 });
    const { attempts } = await attemptsOf(api.url, d.delivery_id);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, 503, 'failed'],
      [2, 503, 'failed'],
      [3, 200, 'delivered'],
    ]);
    for (const a of attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    expect(new Set(flaky.bodies.map((b) => b.headers['webhook-id']))).toEqual(new Set([d.delivery_id]));
    expect(new Set(flaky.bodies.map((b) => b.body)).size).toBe(1); // the payload is the same on every attempt

    // The run took over after the fan-out's first attempt; its history, and the fan-out's, replay
    // deterministically against the current workflow code.
    expect(d.workflow_id).toBe(`delivery-${d.delivery_id}`);
    // Its result says which intent went to which merchant, and the merchant's last answer.
    expect(await api.temporal!.client.workflow.getHandle(d.workflow_id).result()).toEqual({
      deliveryId: d.delivery_id,
      state: 'delivered',
      attempts: 3,
      intentId: intent.intent_id,
      merchantId: d.merchant_id,
      statusCode: 200,
    });
    await replayAndRecord(d.workflow_id, 'delivery-after-first-attempt.json');
    await replayAndRecord(workflowIds.surge(intent.intent_id), 'intent-surge.json');
  });

  it("sends the first page's head from a local activity in the fan-out's first workflow task, the rest of the page from the page activity", async () => {
    const tag = letters();
    const sink = await scriptedMerchant(() => ({ status: 200 }));
    const { FIRST_PAGE_HEAD, SURGE_PAGE_SIZE } = await import('../workflows/dispatch.shared');
    const n = FIRST_PAGE_HEAD + 2;
    for (let i = 0; i < n; i++) await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} camping stove`);
    const queue = await settledQueue(api.url, intent.intent_id, n);
    expect(queue.summary).toEqual({ pending: 0, inflight: 0, delivered: n, dlq: 0 });
    expect(sink.bodies).toHaveLength(n);
    expect(new Set(sink.bodies.map((b) => b.headers['webhook-id'])).size).toBe(n);

    const handle = api.temporal!.client.workflow.getHandle(workflowIds.surge(intent.intent_id));
    expect(await handle.result()).toEqual({ intentId: intent.intent_id, deliveries: n });
    const { events } = await handle.fetchHistory();
    const decode = (p: { data?: Uint8Array | null } | undefined) => JSON.parse(Buffer.from(p!.data!).toString());
    // The head: a local activity's marker, written by the first workflow task (no activity task before it).
    const marker = events!.findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    const scheduled = events!.findIndex((e) => e.activityTaskScheduledEventAttributes);
    expect(marker).toBeGreaterThan(0);
    expect(scheduled).toBeGreaterThan(marker);
    expect(events!.slice(0, marker).filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    // The rest of the first page: one page activity after the head's last merchant, for the page's remainder.
    const activities = events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(activities).toHaveLength(1);
    const rest = activities[0]!.activityTaskScheduledEventAttributes!;
    expect(rest.activityType?.name).toBe('deliverSurgePage');
    const [intentId, after, limit] = rest.input!.payloads!.map(decode);
    expect(intentId).toBe(intent.intent_id);
    expect(after).toEqual(expect.any(String));
    expect(limit).toBe(SURGE_PAGE_SIZE - FIRST_PAGE_HEAD);
    // The surge's workflow task timeout bounds how long a worker killed mid-head goes unnoticed.
    const started = events![0]!.workflowExecutionStartedEventAttributes!;
    expect(Number(started.workflowTaskTimeout?.seconds)).toBe(10);
    await replayAndRecord(handle.workflowId, 'intent-surge-paged.json');
  });

  it('dead-letters: a merchant that always fails (schedule exhausted), one that hangs (timeout), one that answers 410 (at once)', async () => {
    const tag = letters();
    const failing = await scriptedMerchant(() => ({ status: 500 }));
    const hanging = await scriptedMerchant(() => 'hang');
    const gone = await scriptedMerchant(() => ({ status: 410 }));
    const redirecting = await scriptedMerchant(() => ({ status: 302, headers: { location: 'https://example.com/' } }));
    const ids = {
      failing: (await registerMerchant(api.url, failing.url, { subscription_tags: [tag] })).id,
      hanging: (await registerMerchant(api.url, hanging.url, { subscription_tags: [tag] })).id,
      gone: (await registerMerchant(api.url, gone.url, { subscription_tags: [tag] })).id,
      redirecting: (await registerMerchant(api.url, redirecting.url, { subscription_tags: [tag] })).id,
    };
    const intent = await createIntent(api.url, `${tag} camping stove`);
    const queue = await settledQueue(api.url, intent.intent_id, 4);
    expect(queue.summary).toMatchObject({ delivered: 0, dlq: 4 });
    const by = Object.fromEntries(queue.deliveries.map((d: any) => [d.merchant_id, d]));

    expect(by[ids.failing]).toMatchObject({ state: 'dlq', attempts: 3, last_attempt: { status_code: 500, outcome: 'failed' } });
    expect(by[ids.failing].dlq_reason).toMatch(/retry schedule exhausted after 3 attempt/);
    expect(failing.bodies).toHaveLength(3);

    expect(by[ids.hanging]).toMatchObject({ state: 'dlq', attempts: 3, last_attempt: { status_code: null, outcome: 'failed' } });
    expect(by[ids.hanging].last_attempt.error).toMatch(/^timeout/);
    expect(by[ids.hanging].last_attempt.latency_ms).toBeGreaterThanOrEqual(700);

    expect(by[ids.gone]).toMatchObject({ state: 'dlq', attempts: 1, last_attempt: { status_code: 410, outcome: 'gone' } });
    expect(by[ids.gone].dlq_reason).toMatch(/410/);
    expect(gone.bodies).toHaveLength(1);

    // A redirect is a failure, never followed.
    expect(by[ids.redirecting]).toMatchObject({ state: 'dlq', attempts: 3, last_attempt: { status_code: 302 } });

    // Each dead-lettered run ended Failed (type delivery_dead_lettered, why and what next in details), so
    // operators find it with ExecutionStatus = "Failed"; the memo names the business keys.
    const failed = api.temporal!.client.workflow.getHandle(by[ids.failing].workflow_id);
    const err: any = await failed.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err?.cause?.type).toBe('delivery_dead_lettered');
    expect(err.cause.details[0]).toMatchObject({
      delivery_id: by[ids.failing].delivery_id,
      merchant_id: ids.failing,
      attempts: 3,
      status_code: 500,
    });
    expect(err.cause.details[0].next_action).toMatch(/dispatch-queue\/retry/);
    const desc = await failed.describe();
    expect(desc.status.name).toBe('FAILED');
    expect(desc.memo).toMatchObject({ delivery_id: by[ids.failing].delivery_id, intent_id: intent.intent_id, merchant_id: ids.failing });
    const listFailed = async () => {
      const found: string[] = [];
      for await (const w of api.temporal!.client.workflow.list({
        query: `WorkflowType = "delivery" AND ExecutionStatus = "Failed" AND IntentId = "${intent.intent_id}"`,
      }))
        found.push(w.workflowId);
      return found.sort();
    };
    const expectedFailed = Object.values(by)
      .map((d: any) => d.workflow_id)
      .sort();
    for (let i = 0; i < 60 && (await listFailed()).length < expectedFailed.length; i++) await sleep(250);
    expect(await listFailed()).toEqual(expectedFailed);

    const dlqOnly = await supply(api.url, 'GET', `/v1/merchant/dispatch-queue?state=dlq&merchant_id=${ids.gone}`);
    expect(dlqOnly.body.deliveries.map((d: any) => d.merchant_id)).toEqual([ids.gone]);
    expect(dlqOnly.body.summary).toEqual({ pending: 0, inflight: 0, delivered: 0, dlq: 1 });
    await replayAndRecord(by[ids.failing].workflow_id, 'delivery-dead-lettered.json');
  });

  it('a webhook secret the worker cannot open (wrong KEY_ENCRYPTION_KEY) dead-letters unsent, saying why', async () => {
    const tag = letters();
    const sink = await scriptedMerchant(() => ({ status: 200 }));
    const m = await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
    await api.db
      .updateTable('merchants')
      .set({ webhook_secret_sealed: 'v1.sealed-with-another-key' })
      .where('merchant_id', '=', m.id)
      .execute();
    const intent = await createIntent(api.url, `${tag} water bottle`);
    const [d] = (await settledQueue(api.url, intent.intent_id, 1)).deliveries;
    expect(d).toMatchObject({ state: 'dlq', attempts: 0 });
    expect(d.dlq_reason).toMatch(/webhook secret unreadable/);
    expect(sink.bodies).toHaveLength(0);
  });

  it('honours 429 Retry-After over a shorter schedule step', async () => {
    const tag = letters();
    const limited = await scriptedMerchant((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    await registerMerchant(api.url, limited.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} phone case`);
    const [d] = (await settledQueue(api.url, intent.intent_id, 1)).deliveries;
    const { attempts } = await attemptsOf(api.url, d.delivery_id);
    expect(attempts.map((a) => [a.status_code, a.retry_after_s])).toEqual([
      [429, 1],
      [200, null],
    ]);
    expect(Date.parse(attempts[1].attempted_at) - Date.parse(attempts[0].attempted_at)).toBeGreaterThanOrEqual(950);
  });

  it('replays the dead-letter queue after the merchant recovers: delivered once by the replay itself, never a second delivered copy; a replay that fails again gets its run', async () => {
    const tag = letters();
    let down = true;
    const oks: string[] = [];
    const recovering = await scriptedMerchant((_n, req) => {
      if (down) return { status: 500 };
      oks.push(String(req.headers['webhook-id']));
      return { status: 200 };
    });
    const stillDown = await scriptedMerchant(() => ({ status: 500 }));
    const healthy = await scriptedMerchant(() => ({ status: 200 }));
    const m = await registerMerchant(api.url, recovering.url, { subscription_tags: [tag] });
    const m2 = await registerMerchant(api.url, stillDown.url, { subscription_tags: [tag] });
    await registerMerchant(api.url, healthy.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} yoga mat`);
    const before = await settledQueue(api.url, intent.intent_id, 3);
    const dead = before.deliveries.find((d: any) => d.merchant_id === m.id);
    const dead2 = before.deliveries.find((d: any) => d.merchant_id === m2.id);
    const done = before.deliveries.find((d: any) => d.merchant_id !== m.id && d.merchant_id !== m2.id);
    expect([dead.state, dead2.state]).toEqual(['dlq', 'dlq']);
    expect(done.state).toBe('delivered');

    // A delivered delivery is not replayable; an unknown one does not exist.
    expect((await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { delivery_id: done.delivery_id })).body).toMatchObject({
      error: 'delivery_not_in_dlq',
      state: 'delivered',
    });
    expect((await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { delivery_id: 'dlv_nope' })).status).toBe(404);
    expect((await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { state: 'pending' })).status).toBe(400);

    down = false;
    const retry = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', {});
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toMatchObject({ state: 'dlq', status: 'scheduled', merchant_id: null });
    expect(retry.body.scheduled).toBe(retry.body.replays.length);
    // Delivered by the replay's own attempt: the answer says so and names the replay workflow, which
    // exists; no run was started for it.
    const replayRun = await api.temporal!.client.workflow.getHandle(retry.body.replay_workflow_id).describe();
    const mine = retry.body.replays.find((r: any) => r.delivery_id === dead.delivery_id);
    expect(mine).toEqual({
      delivery_id: dead.delivery_id,
      merchant_id: m.id,
      outcome: 'delivered',
      state: 'delivered',
      attempts: 4,
      reason: null,
      status_code: 200,
      next_attempt_at: null,
      workflow_id: retry.body.replay_workflow_id,
      run_id: replayRun.runId,
    });
    await expect(api.temporal!.client.workflow.getHandle(workflowIds.delivery(dead.delivery_id, 1)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    // Failed again: its run takes over from the next attempt on the schedule (by the time the call
    // answers, the run may be retrying, sending or have dead-lettered it again), and the answer says why.
    const theirs = retry.body.replays.find((r: any) => r.delivery_id === dead2.delivery_id);
    expect(theirs).toMatchObject({ merchant_id: m2.id, workflow_id: `delivery-${dead2.delivery_id}-replay-1`, run_id: expect.any(String) });
    expect(['retrying', 'sending', 'dead_lettered']).toContain(theirs.outcome);
    if (theirs.outcome !== 'sending') expect(theirs.reason).toMatch(/500/);
    expect(retry.body.summary).toMatch(/^Replayed \d+ deliveries from the dead-letter queue: \d+ delivered/);

    const after = await settledQueue(api.url, intent.intent_id, 3);
    const replayed = after.deliveries.find((d: any) => d.delivery_id === dead.delivery_id);
    expect(replayed).toMatchObject({
      state: 'delivered',
      replays: 1,
      attempts: 4,
      // The queue names the workflow that delivered it: the replay workflow (no replay run exists).
      workflow_id: retry.body.replay_workflow_id,
      last_attempt: { attempt: 4, replay: 1, outcome: 'delivered' },
    });
    expect(oks).toEqual([dead.delivery_id]);
    expect((await attemptsOf(api.url, dead.delivery_id)).attempts.map((a) => [a.attempt, a.replay, a.outcome])).toEqual([
      [1, 0, 'failed'],
      [2, 0, 'failed'],
      [3, 0, 'failed'],
      [4, 1, 'delivered'],
    ]);
    // The one that failed again: attempt 4 from the replay, 5 and 6 from its run, then Failed where operators look.
    const again2 = after.deliveries.find((d: any) => d.delivery_id === dead2.delivery_id);
    expect(again2).toMatchObject({ state: 'dlq', replays: 1, attempts: 6, workflow_id: `delivery-${dead2.delivery_id}-replay-1` });
    expect((await attemptsOf(api.url, dead2.delivery_id)).attempts.map((a) => [a.attempt, a.replay])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1],
      [5, 1],
      [6, 1],
    ]);
    expect(stillDown.bodies).toHaveLength(6);
    expect(new Set(stillDown.bodies.map((b) => b.headers['webhook-id']))).toEqual(new Set([dead2.delivery_id]));
    // (The queue says dlq once the run's attempt is recorded; the run closes just after.)
    const handle2 = api.temporal!.client.workflow.getHandle(theirs.workflow_id);
    await handle2.result().catch(() => undefined);
    const run2 = await handle2.describe();
    expect(run2.status.name).toBe('FAILED');

    // Replaying again finds nothing of this intent's to send: the delivered stays delivered, sent once.
    const again = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { delivery_id: dead.delivery_id });
    expect(again.status).toBe(409);
    await sleep(500);
    expect(oks).toEqual([dead.delivery_id]);
    expect(healthy.bodies).toHaveLength(1);
    await replayAndRecord(retry.body.replay_workflow_id, 'dlq-replay.json');
  });

  it("replays one merchant's dead letters only (merchant_id): delivered in the queue, the delivery and the search attribute of the workflow that delivered it; a filter that matches nothing starts nothing", async () => {
    const tag = letters();
    let down = true;
    const recovering = await scriptedMerchant(() => ({ status: down ? 500 : 200 }));
    const stillDown = await scriptedMerchant(() => ({ status: 500 }));
    const healthy = await scriptedMerchant(() => ({ status: 200 }));
    const a = await registerMerchant(api.url, recovering.url, { subscription_tags: [tag] });
    const b = await registerMerchant(api.url, stillDown.url, { subscription_tags: [tag] });
    const c = await registerMerchant(api.url, healthy.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} rain jacket`);
    const before = await settledQueue(api.url, intent.intent_id, 3);
    const of = (id: string) => before.deliveries.find((d: any) => d.merchant_id === id);
    expect([of(a.id).state, of(b.id).state, of(c.id).state]).toEqual(['dlq', 'dlq', 'delivered']);
    expect(stillDown.bodies).toHaveLength(3);

    // Another merchant's delivery is not among this merchant's dead letters.
    const mismatched = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', {
      delivery_id: of(b.id).delivery_id,
      merchant_id: a.id,
    });
    expect(mismatched.status).toBe(404);
    expect(mismatched.body).toMatchObject({ error: 'delivery_not_found' });

    // Merchant a has recovered: its dead letters are replayed, b's are not touched.
    down = false;
    const retry = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { merchant_id: a.id });
    expect(retry.status, retry.text).toBe(200);
    const replayWorkflowId = retry.body.replay_workflow_id as string;
    expect(retry.body).toMatchObject({ state: 'dlq', status: 'scheduled', merchant_id: a.id, scheduled: 1, remaining: 0 });
    expect(retry.body.replays).toEqual([
      expect.objectContaining({
        delivery_id: of(a.id).delivery_id,
        merchant_id: a.id,
        outcome: 'delivered',
        state: 'delivered',
        status_code: 200,
        workflow_id: replayWorkflowId,
      }),
    ]);
    expect(retry.body.summary).toBe(
      `Replayed 1 delivery of merchant ${a.id} from the dead-letter queue: 1 delivered (see replays for each one's outcome and workflow). No delivery of merchant ${a.id} is dead-lettered now.`,
    );
    expect(stillDown.bodies).toHaveLength(3);
    expect((await attemptsOf(api.url, of(b.id).delivery_id)).delivery).toMatchObject({ state: 'dlq', replays: 0 });

    // Delivered everywhere: the queue, the delivery, and the workflow the queue names, which exists.
    const listed = await supply(api.url, 'GET', `/v1/merchant/dispatch-queue?merchant_id=${a.id}`);
    expect(listed.body.deliveries).toEqual([expect.objectContaining({ state: 'delivered', workflow_id: replayWorkflowId })]);
    expect(listed.body.summary).toEqual({ pending: 0, inflight: 0, delivered: 1, dlq: 0 });
    const one = await attemptsOf(api.url, of(a.id).delivery_id);
    expect(one.delivery).toMatchObject({ state: 'delivered', replays: 1, workflow_id: replayWorkflowId });
    const run = await api.temporal!.client.workflow.getHandle(replayWorkflowId).describe();
    expect(run.status.name).toBe('COMPLETED');
    // Its search attributes say so (visibility is eventually consistent: polled, bounded).
    const listWorkflows = async (query: string) => {
      const ids: string[] = [];
      for await (const w of api.temporal!.client.workflow.list({ query })) ids.push(w.workflowId);
      return ids;
    };
    const deliveredQuery = `WorkflowId = "${replayWorkflowId}" AND DeliveryState = "delivered" AND MerchantId = "${a.id}"`;
    for (let i = 0; i < 60 && (await listWorkflows(deliveredQuery)).length === 0; i++) await sleep(250);
    expect(await listWorkflows(deliveredQuery)).toEqual([replayWorkflowId]);

    // Nothing of a's is dead-lettered now: the same call starts nothing and says so.
    const again = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { merchant_id: a.id });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({
      state: 'dlq',
      status: 'nothing_to_replay',
      scheduled: 0,
      replay_workflow_id: null,
      merchant_id: a.id,
      remaining: 0,
      summary: `No delivery of merchant ${a.id} is dead-lettered: nothing was replayed and no workflow was started.`,
      replays: [],
    });
    // A merchant with no dead letter, and one that is not registered, match nothing either.
    expect((await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { merchant_id: c.id })).body).toMatchObject({
      status: 'nothing_to_replay',
      replay_workflow_id: null,
    });
    const unknown = await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { merchant_id: `m-${letters()}` });
    expect(unknown.body).toMatchObject({ status: 'nothing_to_replay', replay_workflow_id: null, scheduled: 0 });
    expect(unknown.body.summary).toMatch(/^No merchant m-\w+ is registered: nothing was replayed and no workflow was started\.$/);
    // No replay workflow was started by those calls: merchant a's only one is the one listed above, c has none.
    expect(await listWorkflows(`WorkflowType = "dlqReplay" AND MerchantId = "${a.id}"`)).toEqual([replayWorkflowId]);
    expect(await listWorkflows(`WorkflowType = "dlqReplay" AND MerchantId = "${c.id}"`)).toEqual([]);
    expect(recovering.bodies.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(healthy.bodies).toHaveLength(1);
    // A replay that delivered writes DeliveryState: this shape is kept for the replay test too.
    await replayAndRecord(replayWorkflowId, 'dlq-replay-merchant-delivered.json');
  });

  it('a replay batch re-run after a worker crash sends again what was cut off mid-send, under the same webhook-id, and nothing twice', async () => {
    const tag = letters();
    let down = true;
    const merchant = await scriptedMerchant(() => ({ status: down ? 500 : 200 }));
    const m = await registerMerchant(api.url, merchant.url, { subscription_tags: [tag] });
    const intent = await createIntent(api.url, `${tag} tent`);
    const [dead] = (await settledQueue(api.url, intent.intent_id, 1)).deliveries;
    expect(dead).toMatchObject({ merchant_id: m.id, state: 'dlq', attempts: 3 });
    const { claimForReplay } = await import('../src/dispatch/deliveries');
    const { sendReplays } = await import('../src/dispatch/replay');
    const claimed = await claimForReplay(api.db, { deliveryId: dead.delivery_id, limit: 1, replayWorkflowId: 'dlq-replay-test' });
    expect(claimed).toMatchObject([{ delivery_id: dead.delivery_id, first_attempt: 4, replay: 1 }]);
    // The crashed batch had marked the replay attempt in flight (as attemptDelivery does) and died mid-send.
    await api.db.updateTable('deliveries').set({ state: 'inflight', attempts: 4 }).where('delivery_id', '=', dead.delivery_id).execute();
    down = false;
    const started: string[] = [];
    const deps = {
      attempt: { db: api.db, keyEncryptionKey: api.config.KEY_ENCRYPTION_KEY, allowPrivateEndpoints: true, timeoutMs: 800 },
      policy: { schedule: [0, 0.2, 0.2], attemptTimeoutMs: 800 },
      startRun: async (d: { delivery_id: string; workflow_id: string }) => {
        started.push(d.workflow_id);
        return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: 'r' };
      },
      progress: () => {},
      signal: new AbortController().signal,
    };
    const replayRun = { workflow_id: 'dlq-replay-test', run_id: 'run-1' };
    const told = { delivery_id: dead.delivery_id, ...replayRun, state: 'delivered', by_replay_workflow: true };
    expect(await sendReplays(deps, claimed, replayRun)).toEqual([told]);
    // Run again (the activity retried once more): delivered stays delivered, not sent again, told the same.
    expect(await sendReplays(deps, claimed, replayRun)).toEqual([told]);
    expect(started).toEqual([]);
    // The run the fan-out started for the dead letter, were its attempt to come only now, sends nothing beside the replay.
    const { attemptDelivery } = await import('../src/dispatch/attempt');
    expect(
      await attemptDelivery(deps.attempt, {
        deliveryId: dead.delivery_id,
        attempt: 3,
        replay: 0,
        schedule: [0],
        scheduleIndex: 0,
        random: 0.5,
      }),
    ).toMatchObject({ state: 'dlq', outcome: 'skipped' });
    expect(merchant.bodies.map((b) => [b.status, b.headers['webhook-id']])).toEqual([
      [500, dead.delivery_id],
      [500, dead.delivery_id],
      [500, dead.delivery_id],
      [200, dead.delivery_id],
    ]);
    const { attempts } = await attemptsOf(api.url, dead.delivery_id);
    expect(attempts.map((a) => [a.attempt, a.replay, a.outcome])).toEqual([
      [1, 0, 'failed'],
      [2, 0, 'failed'],
      [3, 0, 'failed'],
      [4, 1, 'delivered'],
    ]);
  });

  it('a fan-out page cut off between its sends and their batch record re-sends them under the same webhook-ids and counts each once, in statements per page, not per attempt', async () => {
    const tag = letters();
    const sink = await scriptedMerchant(() => ({ status: 200 }));
    // More merchants than the first page's head, so the head and the rest of the page are both sent.
    const { deliverSurgePage } = await import('../src/dispatch/surge-page');
    const { FIRST_PAGE_HEAD } = await import('../workflows/dispatch.shared');
    const n = FIRST_PAGE_HEAD + 5;
    for (let i = 0; i < n; i++) await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
    // The intent is stored without its fan-out (no worker runs this page: the test does, twice).
    const { createIntent: storeIntent } = await import('../src/matching/intents');
    const { IntentCreateBody } = await import('../src/schemas/intents');
    const intent = await storeIntent(api.db, IntentCreateBody.parse({ raw_query: `${tag} bike lights` }), {});
    expect(intent.intent_tags).toContain(tag);
    // (Marked started, so the API's sweep does not start a fan-out of it meanwhile.)
    await api.db.updateTable('intents').set({ surge_started_at: new Date() }).where('intent_id', '=', intent.intent_id).execute();

    // The worker "dies" when the page's first batch record is written: every statement up to it ran, the sends went out.
    let statements = 0;
    let records = 0;
    const recordsAttempts = (node: unknown) => /insert into "?delivery_attempts/i.test(JSON.stringify(node));
    const counting = (crash: boolean) =>
      api.db.withPlugin({
        transformQuery: ({ node }) => {
          statements++;
          if (recordsAttempts(node)) records++;
          if (crash && recordsAttempts(node)) throw new Error('worker killed before the batch record');
          return node;
        },
        transformResult: async ({ result }) => result,
      });
    const deps = (db: typeof api.db) => ({
      attempt: { db, keyEncryptionKey: api.config.KEY_ENCRYPTION_KEY, allowPrivateEndpoints: true, timeoutMs: 800 },
      policy: { schedule: [0, 0.2, 0.2], attemptTimeoutMs: 800 },
      startRun: async (): Promise<never> => {
        throw new Error('no run: every delivery is delivered by the page');
      },
      progress: () => {},
      signal: new AbortController().signal,
      publicBaseUrl: api.url,
    });
    const page = { intentId: intent.intent_id, after: null, limit: 200 };
    await expect(deliverSurgePage(deps(counting(true)), page)).rejects.toThrow(/worker killed/);
    expect(sink.bodies).toHaveLength(n);
    const cut = await api.db.selectFrom('deliveries').selectAll().where('intent_id', '=', intent.intent_id).execute();
    expect(cut).toHaveLength(n);
    // In flight at attempt 1, nothing recorded: the durable record says "send again".
    for (const d of cut) expect(d).toMatchObject({ state: 'inflight', attempts: 1 });
    const ids = cut.map((d) => d.delivery_id);
    expect(await api.db.selectFrom('delivery_attempts').select('delivery_id').where('delivery_id', 'in', ids).execute()).toEqual([]);

    // The page's re-run (Temporal retries the activity): each delivery sent again under its webhook-id, recorded once.
    statements = 0;
    records = 0;
    expect(await deliverSurgePage(deps(counting(false)), page)).toEqual({ deliveries: n, delivered: n, runs: 0, next: null });
    // Statements per page, not per attempt: for the head and for the rest, the intent, its merchants, the
    // insert (which creates nothing now) and the read of the rows recorded before; and the batch records,
    // each of one attempt or more (no read, mark or record per attempt).
    expect(statements - records).toBe(8);
    expect(records).toBeGreaterThanOrEqual(1);
    expect(records).toBeLessThanOrEqual(n);
    expect(sink.bodies).toHaveLength(2 * n);
    const sentIds = sink.bodies.map((b) => String(b.headers['webhook-id']));
    expect(sentIds.slice(n).sort()).toEqual([...ids].sort());
    expect(sentIds.slice(0, n).sort()).toEqual([...ids].sort());
    // Each body is the delivery's stored payload, signed under the merchant's secret as any attempt is.
    for (const b of sink.bodies.slice(n)) expect(JSON.parse(b.body).data.delivery_id).toBe(b.headers['webhook-id']);
    const rows = await api.db.selectFrom('deliveries').selectAll().where('intent_id', '=', intent.intent_id).execute();
    for (const d of rows) expect(d).toMatchObject({ state: 'delivered', attempts: 1 });
    const recorded = await api.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', ids).execute();
    expect(recorded).toHaveLength(n);
    for (const a of recorded) expect(a).toMatchObject({ attempt: 1, replay: 0, outcome: 'delivered', status_code: 200 });

    // Run once more: everything is delivered, nothing is sent.
    expect(await deliverSurgePage(deps(api.db), page)).toEqual({ deliveries: n, delivered: 0, runs: 0, next: null });
    expect(sink.bodies).toHaveLength(2 * n);
  });

  it("the queue endpoints need the supply key or a merchant's token (401), and validate their input", async () => {
    for (const [key, error] of [
      ['', 'unauthorized'],
      ['wrong-key', 'invalid_supply_key'],
    ] as const) {
      expect((await supply(api.url, 'GET', '/v1/merchant/dispatch-queue', undefined, key)).body).toMatchObject({ error });
      expect((await supply(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', {}, key)).status).toBe(401);
      expect((await supply(api.url, 'GET', '/v1/merchant/dispatch-queue/dlv_x', undefined, key)).status).toBe(401);
    }
    // An API key reads a merchant's own deliveries only with its X-Merchant-Token (test/tenancy.test.ts).
    expect((await call(api.url, 'GET', '/v1/merchant/dispatch-queue', { token: dev.apiKey })).body).toMatchObject({
      error: 'missing_registration_token',
    });
    expect((await call(api.url, 'POST', '/v1/merchant/dispatch-queue/retry', { token: dev.apiKey, body: {} })).body).toMatchObject({
      error: 'invalid_supply_key',
    });
    expect((await supply(api.url, 'GET', '/v1/merchant/dispatch-queue?state=lost')).status).toBe(400);
    expect((await supply(api.url, 'GET', '/v1/merchant/dispatch-queue?limit=0')).status).toBe(400);
    expect((await supply(api.url, 'GET', '/v1/merchant/dispatch-queue/dlv_missing')).body).toMatchObject({ error: 'delivery_not_found' });
  });
});

describe('a worker killed in the middle of a fan-out', () => {
  let api2: TestApi;

  beforeAll(async () => {
    api2 = await startTestApi({ env: DISPATCH_ENV });
  });
  afterAll(() => api2?.close());

  it('every delivery still ends delivered, none lost, none recorded delivered twice', async () => {
    const tag = letters();
    const seen: string[] = [];
    // One slow sink behind 40 merchants (answers after 0.6 s, within the 0.8 s deadline), so the kill lands while deliveries are in flight.
    const sink: LoopbackServer = await startLoopback((req, res) => {
      seen.push(String(req.headers['webhook-id']));
      req.resume();
      setTimeout(() => json(res, 200, { ok: true }), 600);
    });
    servers.push(sink);
    const merchants = [];
    for (let i = 0; i < 40; i++) merchants.push(await registerMerchant(api2.url, `${sink.url}/m${i}`, { subscription_tags: [tag] }));

    let w = startWorkerProcess(api2, DISPATCH_ENV);
    const intent = await createIntent(api2.url, `${tag} espresso grinder`);
    const deadline = Date.now() + 60_000;
    while (seen.length < 5 && Date.now() < deadline) await sleep(20);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    await w.kill();
    const deliveredAtKill = await api2.db
      .selectFrom('deliveries')
      .select('delivery_id')
      .where('intent_id', '=', intent.intent_id)
      .where('state', '=', 'delivered')
      .execute();
    w = startWorkerProcess(api2, DISPATCH_ENV);
    try {
      const queue = await settledQueue(api2.url, intent.intent_id, 40, 60_000);
      expect(queue.summary).toEqual({ pending: 0, inflight: 0, delivered: 40, dlq: 0 });
      expect(deliveredAtKill.length).toBeLessThan(40);
      // Every merchant got its delivery; a send cut off by the kill may arrive twice with the same webhook-id.
      expect(new Set(seen)).toEqual(new Set(queue.deliveries.map((d: any) => d.delivery_id)));
      const delivered = await api2.db
        .selectFrom('delivery_attempts')
        .select(['delivery_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('outcome', '=', 'delivered')
        .where(
          'delivery_id',
          'in',
          queue.deliveries.map((d: any) => d.delivery_id),
        )
        .groupBy('delivery_id')
        .execute();
      expect(delivered).toHaveLength(40);
      for (const row of delivered) expect(Number(row.n)).toBe(1);
    } finally {
      await w.stop();
    }
  });
});

describe('fan-out start and paging', () => {
  it('a replay needs Temporal: 503 temporal_unavailable from an API process without it', async () => {
    const offline = await startTestApi({ env: DISPATCH_ENV, withTemporal: false, db: api.db });
    try {
      const res = await supply(offline.url, 'POST', '/v1/merchant/dispatch-queue/retry', {});
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'temporal_unavailable' });
    } finally {
      await offline.close();
    }
  });

  it('an intent stored while Temporal was unreachable gets its fan-out from the sweep, once', async () => {
    const offline = await startTestApi({ env: DISPATCH_ENV, withTemporal: false, db: api.db });
    try {
      const tag = letters();
      const sink = await scriptedMerchant(() => ({ status: 200 }));
      await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
      const intent = await createIntent(offline.url, `${tag} travel pillow`);
      const row = await api.db
        .selectFrom('intents')
        .select('surge_started_at')
        .where('intent_id', '=', intent.intent_id)
        .executeTakeFirstOrThrow();
      expect(row.surge_started_at).toBeNull();

      const { startMissedSurges } = await import('../src/dispatch/client');
      const logger = api.deps.logger;
      expect(await startMissedSurges(api.temporal!, api.db, logger, { olderThanS: 0, limit: 1000 })).toBeGreaterThanOrEqual(1);
      await settledQueue(api.url, intent.intent_id, 1);
      // A second sweep (or a retried create) starts nothing new.
      await startMissedSurges(api.temporal!, api.db, logger, { olderThanS: 0, limit: 1000 });
      const after = await api.db
        .selectFrom('intents')
        .select('surge_started_at')
        .where('intent_id', '=', intent.intent_id)
        .executeTakeFirstOrThrow();
      expect(after.surge_started_at).not.toBeNull();
      expect(sink.bodies).toHaveLength(1);
    } finally {
      await offline.close();
    }
  });

  it('pages through merchants and renews its history (continue-as-new) without losing or repeating one', async () => {
    const offline = await startTestApi({ env: DISPATCH_ENV, withTemporal: false, db: api.db });
    try {
      const tag = letters();
      const sink = await scriptedMerchant(() => ({ status: 200 }));
      for (let i = 0; i < 53; i++) await registerMerchant(api.url, sink.url, { subscription_tags: [tag] });
      const intent = await createIntent(offline.url, `${tag} picnic blanket`);
      // Pages of 2 → 27 pages → one continue-as-new after the 25th.
      const handle = await api.temporal!.client.workflow.start('intentSurge', {
        workflowId: workflowIds.surge(intent.intent_id),
        taskQueue: api.config.TEMPORAL_TASK_QUEUE,
        args: [{ intentId: intent.intent_id, pageSize: 2 }],
      });
      expect(await handle.result()).toEqual({ intentId: intent.intent_id, deliveries: 53 });
      const desc = await handle.describe();
      expect(desc.runId).not.toBe(handle.firstExecutionRunId);
      const queue = await settledQueue(api.url, intent.intent_id, 53);
      expect(queue.summary.delivered).toBe(53);
      expect(new Set(sink.bodies.map((b) => b.headers['webhook-id'])).size).toBe(53);
      expect(sink.bodies).toHaveLength(53);
    } finally {
      await offline.close();
    }
  });
});

describe('endpoint safety at connect time (docs/CONTRACT.md#endpoint-safety)', () => {
  it('a delivery whose endpoint resolves to loopback is dead-lettered unsent when private endpoints are not allowed', async () => {
    const offline = await startTestApi({ env: DISPATCH_ENV, withTemporal: false, db: api.db });
    try {
      const tag = letters();
      const sink = await scriptedMerchant(() => ({ status: 200 }));
      // Registered while allowed (as a hostname could resolve publicly then and privately later).
      const m = await registerMerchant(api.url, sink.url.replace('127.0.0.1', 'localhost'), { subscription_tags: [tag] });
      const intent = await createIntent(offline.url, `${tag} bike light`);
      const { openSurgePage } = await import('../src/dispatch/deliveries');
      const { attemptDelivery } = await import('../src/dispatch/attempt');
      // The fan-out's page, recorded as the fan-out records it (in flight at its first attempt).
      const page = await openSurgePage(api.db, { intentId: intent.intent_id, after: null, limit: 10, publicBaseUrl: api.url });
      expect(page.deliveries.map((d) => d.merchant_id)).toEqual([m.id]);
      const result = await attemptDelivery(
        { db: api.db, keyEncryptionKey: api.config.KEY_ENCRYPTION_KEY, allowPrivateEndpoints: false, timeoutMs: 800 },
        { deliveryId: page.deliveries[0]!.delivery_id, attempt: 1, replay: 0, schedule: [0, 0.2, 0.2], scheduleIndex: 0, random: 0.5 },
      );
      expect(result).toMatchObject({ state: 'dlq', outcome: 'unsafe_endpoint' });
      expect(sink.bodies).toHaveLength(0);
      const { delivery } = await attemptsOf(api.url, page.deliveries[0]!.delivery_id);
      expect(delivery).toMatchObject({ state: 'dlq', last_attempt: { outcome: 'unsafe_endpoint' } });
      expect(delivery.dlq_reason).toMatch(/unsafe_endpoint/);
    } finally {
      await offline.close();
    }
  });
});
