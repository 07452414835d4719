import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';

/**
 * Merchant SLA and reputation on a history written straight into the database, so every expected
 * number below is worked out by hand from rows whose times and states the test chose.
 */

let api: TestApi;
let dev: Onboarded;
let productId: number;

const uid = () => randomBytes(6).toString('hex');
const S = 1000;
const H = 3600 * S;
const D = 24 * H;
const NOW = Date.now();
const at = (ms: number) => new Date(ms);

const supply = (path: string, key: string | null = TEST_SUPPLY_KEY) =>
  call(api.url, 'GET', path, { headers: key ? { 'x-supply-key': key } : {} });

async function insertMerchant(slaSeconds?: number): Promise<string> {
  const merchantId = `m-ops-${uid()}`;
  await api.db
    .insertInto('merchants')
    .values({
      merchant_id: merchantId,
      agent_endpoint: 'https://merchant.example/hook',
      inventory_scope: JSON.stringify([]),
      a2a_capabilities: JSON.stringify({}),
      metadata: JSON.stringify({}),
      workflow_context: JSON.stringify(slaSeconds ? { proposal_response_sla_seconds: slaSeconds } : {}),
      trust_evidence_policy: JSON.stringify({}),
      agent_ready_profile: JSON.stringify({}),
      token_hash: `test-${uid()}`,
      webhook_secret_sealed: 'plain.whsec_test',
      registered_by_key_id: null,
    })
    .execute();
  return merchantId;
}

/** surge_started_at is set so no dispatcher in another test file picks these intents up. */
async function insertIntent(createdAt: number): Promise<string> {
  const intentId = `int_ops_${uid()}`;
  await api.db
    .insertInto('intents')
    .values({
      intent_id: intentId,
      raw_query: 'merchant ops fixture',
      surge_started_at: at(createdAt),
      created_at: at(createdAt),
      updated_at: at(createdAt),
    } as never)
    .execute();
  return intentId;
}

async function insertDelivery(
  merchantId: string,
  intentId: string,
  d: { state: 'delivered' | 'dlq' | 'pending'; createdAt: number; deliveredAt?: number; attempts: number },
) {
  await api.db
    .insertInto('deliveries')
    .values({
      delivery_id: `dlv_ops_${uid()}`,
      intent_id: intentId,
      merchant_id: merchantId,
      state: d.state,
      endpoint: 'https://merchant.example/hook',
      payload: '{}',
      attempts: d.attempts,
      replays: 0,
      next_attempt_at: null,
      last_attempt_at: null,
      delivered_at: d.deliveredAt === undefined ? null : at(d.deliveredAt),
      dlq_at: d.state === 'dlq' ? at(d.createdAt + H) : null,
      dlq_reason: d.state === 'dlq' ? 'test' : null,
      created_at: at(d.createdAt),
      updated_at: at(d.createdAt),
    })
    .execute();
}

async function insertProposal(
  merchantId: string,
  intentId: string,
  p: { createdAt: number; state: string; trust: number },
): Promise<string> {
  const proposalId = `prop_ops_${uid()}`;
  await api.db
    .insertInto('proposals')
    .values({
      proposal_id: proposalId,
      merchant_agent_id: merchantId,
      intent_id: intentId,
      product_id: productId,
      offer_title: 'fixture offer',
      price_cents: 4200,
      currency: 'USD',
      inventory_status: 'in_stock',
      provenance: 'test',
      proposal_state: p.state,
      trust_score: JSON.stringify({ score: p.trust }),
      created_at: at(p.createdAt),
      updated_at: at(p.createdAt),
    } as never)
    .execute();
  return proposalId;
}

async function insertToken(intentId: string, proposalId: string, acceptanceState: string) {
  const sessionId = `ms_ops_${uid()}`;
  await api.db
    .insertInto('match_sessions')
    .values({ match_session_id: sessionId, intent_id: intentId, status: 'accepted', expires_at: at(NOW + D) } as never)
    .execute();
  await api.db
    .insertInto('match_tokens')
    .values({
      match_token_id: `mt_ops_${uid()}`,
      match_session_id: sessionId,
      intent_id: intentId,
      proposal_id: proposalId,
      acceptance_state: acceptanceState,
      amount_cents: 4200,
      currency: 'USD',
      signed_token: 'test',
      issued_at: at(NOW - D),
      expires_at: at(NOW + D),
    } as never)
    .execute();
}

async function insertEvents(merchantId: string, createdAt: number, counts: Record<string, number>) {
  const rows = Object.entries(counts).flatMap(([eventType, n]) =>
    Array.from({ length: n }, () => ({
      feedback_id: `fb_ops_${uid()}`,
      event_type: eventType,
      merchant_id: merchantId,
      created_at: at(createdAt),
    })),
  );
  await api.db
    .insertInto('decision_events')
    .values(rows as never)
    .execute();
}

let merchant: string;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
  dev = await onboard(api.url);
  productId = (await api.db.selectFrom('products').select('product_id').orderBy('product_id').limit(1).executeTakeFirstOrThrow())
    .product_id;

  // A merchant that declares a 60 s proposal SLA. "In the window" is two days ago, "old" 40 days ago.
  merchant = await insertMerchant(60);
  const T0 = NOW - 2 * D;
  const OLD = NOW - 40 * D;

  // Four delivered dispatches answered after 30 s, 60 s, 90 s and never; d2 needed two attempts.
  const answers = [
    { latency: 30, attempts: 1, state: 'accepted', trust: 0.8, token: null },
    { latency: 60, attempts: 2, state: 'quoted', trust: 0.6, token: 'payment_authorized' },
    { latency: 90, attempts: 1, state: 'quoted', trust: 0.7, token: null },
  ] as const;
  for (const [i, a] of answers.entries()) {
    const intent = await insertIntent(T0 + i * H);
    const deliveredAt = T0 + i * H + 5 * S;
    await insertDelivery(merchant, intent, { state: 'delivered', createdAt: T0 + i * H, deliveredAt, attempts: a.attempts });
    const proposal = await insertProposal(merchant, intent, { createdAt: deliveredAt + a.latency * S, state: a.state, trust: a.trust });
    // A later second proposal for the same intent must not move the latency (the first one counts).
    if (i === 0) await insertProposal(merchant, intent, { createdAt: deliveredAt + 3 * H, state: 'settled', trust: 0.9 });
    if (a.token) await insertToken(intent, proposal, a.token);
  }
  const unanswered = await insertIntent(T0 + 4 * H);
  await insertDelivery(merchant, unanswered, { state: 'delivered', createdAt: T0 + 4 * H, deliveredAt: T0 + 4 * H + S, attempts: 1 });
  await insertDelivery(merchant, await insertIntent(T0 + 5 * H), { state: 'dlq', createdAt: T0 + 5 * H, attempts: 3 });
  await insertDelivery(merchant, await insertIntent(T0 + 6 * H), { state: 'pending', createdAt: T0 + 6 * H, attempts: 0 });
  // A proposal on an intent the merchant was never dispatched (it polled), expired; its token expired too.
  const polled = await insertIntent(T0 + 7 * H);
  const expired = await insertProposal(merchant, polled, { createdAt: T0 + 7 * H, state: 'expired', trust: 0.5 });
  await insertToken(polled, expired, 'expired');

  await insertEvents(merchant, T0, { fulfilled: 3, late_delivery: 1, pick: 1, confirm: 1, purchase: 1, complaint: 1, view: 2 });

  // 40 days ago: one dispatch answered after 10 s (accepted), two late deliveries and a nope.
  const oldIntent = await insertIntent(OLD);
  await insertDelivery(merchant, oldIntent, { state: 'delivered', createdAt: OLD, deliveredAt: OLD + 5 * S, attempts: 1 });
  await insertProposal(merchant, oldIntent, { createdAt: OLD + 5 * S + 10 * S, state: 'accepted', trust: 0.1 });
  await insertEvents(merchant, OLD, { late_delivery: 2, nope: 1 });
});

afterAll(async () => {
  await api?.close();
});

describe('GET /v1/merchant/{merchantId}/sla', () => {
  it('computes every metric of the default 30-day window by hand', async () => {
    const res = await supply(`/v1/merchant/${merchant}/sla`);
    expect(res.status, res.text).toBe(200);
    const { window, metrics } = res.body;
    expect(res.body.merchant_id).toBe(merchant);
    expect(window.days).toBe(30);
    expect(Date.parse(window.to) - Date.parse(window.from)).toBe(30 * D);

    // Latencies [30, 60, 90] s: p50 = 60; p90 by linear interpolation at rank (3 − 1) × 0.9 = 1.8
    // → 60 + 0.8 × (90 − 60) = 84; mean = (30 + 60 + 90) / 3 = 60. Within 60 s: 30 and 60 → 2 of 4 dispatched.
    expect(metrics.proposal_response).toEqual({
      n: 3,
      dispatched: 4,
      unanswered: 1,
      p50_seconds: 60,
      p90_seconds: 60 + 0.8 * (90 - 60),
      mean_seconds: (30 + 60 + 90) / 3,
      sla_seconds: 60,
      sla_source: 'declared',
      within_sla: 2,
      within_sla_share: 2 / 4,
    });
    // 4 delivered + 1 dlq (the pending one is left out); first attempt: 3 of the 4 delivered.
    expect(metrics.delivery_success).toEqual({
      n: 5,
      delivered: 4,
      dlq: 1,
      in_progress: 1,
      rate: 4 / 5,
      first_attempt_delivered: 3,
      first_attempt_share: 3 / 5,
    });
    // Five proposals: accepted (state), settled (state), quoted + payment_authorized token,
    // quoted, expired + expired token → 3 accepted of 5.
    expect(metrics.proposal_acceptance).toEqual({ n: 5, accepted: 3, rate: 3 / 5 });
    expect(metrics.on_time_fulfillment).toEqual({ n: 4, fulfilled: 3, late_delivery: 1, rate: 3 / 4 });
    expect(metrics.decision_feedback.n).toBe(3 + 1 + 1 + 1 + 1 + 1 + 2);
    expect(metrics.decision_feedback.counts).toMatchObject({
      fulfilled: 3,
      late_delivery: 1,
      pick: 1,
      confirm: 1,
      purchase: 1,
      complaint: 1,
      view: 2,
      nope: 0,
      remix: 0,
      return: 0,
      click: 0,
    });
  });

  it('a 60-day window takes in the older rows; a 1-day window has no samples and reports nulls', async () => {
    const wide = (await supply(`/v1/merchant/${merchant}/sla?days=60`)).body.metrics;
    // Latencies [10, 30, 60, 90]: p50 at rank 1.5 → (30 + 60) / 2 = 45; p90 at rank 2.7 → 60 + 0.7 × 30 = 81.
    expect(wide.proposal_response).toMatchObject({
      n: 4,
      dispatched: 5,
      p50_seconds: 45,
      p90_seconds: 81,
      mean_seconds: (10 + 30 + 60 + 90) / 4,
      within_sla: 3,
      within_sla_share: 3 / 5,
    });
    expect(wide.delivery_success).toMatchObject({ n: 6, rate: Math.round((5 / 6) * 10_000) / 10_000 });
    expect(wide.proposal_acceptance).toMatchObject({ n: 6, accepted: 4 });
    expect(wide.on_time_fulfillment).toEqual({ n: 6, fulfilled: 3, late_delivery: 3, rate: 3 / 6 });

    const empty = (await supply(`/v1/merchant/${merchant}/sla?days=1`)).body.metrics;
    expect(empty.proposal_response).toMatchObject({
      n: 0,
      dispatched: 0,
      p50_seconds: null,
      p90_seconds: null,
      mean_seconds: null,
      within_sla_share: null,
    });
    expect(empty.delivery_success).toMatchObject({ n: 0, rate: null, first_attempt_share: null });
    expect(empty.proposal_acceptance).toEqual({ n: 0, accepted: 0, rate: null });
    expect(empty.on_time_fulfillment.rate).toBeNull();
    expect(empty.decision_feedback.n).toBe(0);
  });

  it('without a declared SLA the dispatch default of 600 s applies and says so', async () => {
    const m = await insertMerchant();
    const body = (await supply(`/v1/merchant/${m}/sla`)).body;
    expect(body.metrics.proposal_response).toMatchObject({
      sla_seconds: 600,
      sla_source: 'dispatch_default',
      n: 0,
      within_sla_share: null,
    });
  });

  it('rejects days outside 1..90 with 400 invalid_query', async () => {
    for (const days of ['0', '91', 'x']) {
      const res = await supply(`/v1/merchant/${merchant}/sla?days=${days}`);
      expect(res.status, days).toBe(400);
      expect(res.body.error).toBe('invalid_query');
    }
  });
});

describe('GET /v1/merchant/{merchantId}/reputation', () => {
  it('scores the weighted sum computed by hand, stores it, and a second call adds to the history', async () => {
    const first = await supply(`/v1/merchant/${merchant}/reputation`);
    expect(first.status, first.text).toBe(200);
    const rep = first.body.reputation;
    // responsiveness 20 × 0.5 + delivery 15 × 0.8 + acceptance 20 × 0.6 + on-time 20 × 0.75
    // + feedback 10 × (pick + confirm + purchase = 3) / (3 + complaint 1) + trust 15 × mean(0.8, 0.9, 0.6, 0.7, 0.5)
    const expected = 20 * 0.5 + 15 * 0.8 + 20 * 0.6 + 20 * 0.75 + 10 * (3 / 4) + 15 * ((0.8 + 0.9 + 0.6 + 0.7 + 0.5) / 5);
    expect(expected).toBeCloseTo(67, 9);
    expect(rep.score).toBe(67);
    expect(rep).toMatchObject({ merchant_id: merchant, window_days: 30 });
    const byName = Object.fromEntries(rep.basis.components.map((c: any) => [c.name, c]));
    expect(byName.responsiveness).toMatchObject({ value: 0.5, n: 4, weight: 20, points: 10, prior_used: false });
    expect(byName.delivery_success).toMatchObject({ value: 0.8, n: 5, weight: 15, points: 12 });
    expect(byName.proposal_acceptance).toMatchObject({ value: 0.6, n: 5, weight: 20, points: 12 });
    expect(byName.on_time_fulfillment).toMatchObject({ value: 0.75, n: 4, weight: 20, points: 15 });
    expect(byName.customer_feedback).toMatchObject({ value: 0.75, n: 4, weight: 10, points: 7.5 });
    expect(byName.trust_evidence).toMatchObject({ value: 0.7, n: 5, weight: 15, points: 10.5 });
    expect(first.body.history).toEqual([]);
    expect(first.body.trend).toBeNull();

    const second = await supply(`/v1/merchant/${merchant}/reputation`);
    expect(second.status).toBe(200);
    expect(second.body.reputation.snapshot_id).not.toBe(rep.snapshot_id);
    expect(second.body.history.map((h: any) => h.snapshot_id)).toEqual([rep.snapshot_id]);
    expect(second.body.trend).toEqual({ previous_snapshot_id: rep.snapshot_id, previous_score: 67, delta: 0 });
    const stored = await api.db
      .selectFrom('merchant_reputation_snapshots')
      .select(['snapshot_id', 'score'])
      .where('merchant_id', '=', merchant)
      .execute();
    expect(stored.map((s) => s.snapshot_id).sort()).toEqual([rep.snapshot_id, second.body.reputation.snapshot_id].sort());

    // A 60-day window: responsiveness 3/5, delivery 5/6, acceptance 4/6, on-time 3/6,
    // feedback 3/(3 + complaint + nope), trust mean of the six proposals (0.1 added).
    const wide = await supply(`/v1/merchant/${merchant}/reputation?days=60`);
    const wideExpected =
      20 * (3 / 5) + 15 * (5 / 6) + 20 * (4 / 6) + 20 * (3 / 6) + 10 * (3 / 5) + 15 * ((0.8 + 0.9 + 0.6 + 0.7 + 0.5 + 0.1) / 6);
    expect(wide.body.reputation.score).toBe(Math.round(wideExpected));
    expect(wide.body.reputation.window_days).toBe(60);
    expect(wide.body.history.map((h: any) => h.snapshot_id)).toEqual([second.body.reputation.snapshot_id, rep.snapshot_id]);
  });

  it('a merchant with no history sits on the neutral prior (50) and every component says so', async () => {
    const m = await insertMerchant(30);
    const res = await supply(`/v1/merchant/${m}/reputation`);
    expect(res.status).toBe(200);
    expect(res.body.reputation.score).toBe(50);
    expect(res.body.reputation.basis.components).toHaveLength(6);
    for (const c of res.body.reputation.basis.components)
      expect(c).toMatchObject({ value: 0.5, n: 0, prior_used: true, points: c.weight * 0.5 });
  });
});

describe('supply-key access', () => {
  // The SLA is also the merchant's own to read with its X-Merchant-Token (test/tenancy.test.ts); reputation is operators' only.
  for (const [op, none, keyAlone] of [
    ['sla', 'unauthorized', 'missing_registration_token'],
    ['reputation', 'invalid_supply_key', 'invalid_supply_key'],
  ] as const) {
    it(`${op}: 401 without or with a wrong supply key, and for an API key alone; 404 for an unknown merchant`, async () => {
      const path = `/v1/merchant/${merchant}/${op}`;
      const answers = [await supply(path, null), await supply(path, 'wrong-key'), await call(api.url, 'GET', path, { token: dev.apiKey })];
      expect(answers.map((res) => [res.status, res.body.error])).toEqual([
        [401, none],
        [401, 'invalid_supply_key'],
        [401, keyAlone],
      ]);
      const unknown = await supply(`/v1/merchant/m-ops-unknown-${uid()}/${op}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('merchant_not_found');
    });
  }
});
