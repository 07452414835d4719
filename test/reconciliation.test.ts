import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';
import { importAffiliateOrders } from '../src/supply/affiliate-orders';
import { registerOrderSource, stageRecords } from '../src/supply/affiliate-orders-source';
import { reconcileAffiliateOrders } from '../src/reconciliation/matching';
import type { ReconciliationWorkflow } from '../workflows/reconciliation.shared';
import { recordRunStarted } from '../src/reconciliation/runs';
import { windowEnding } from '../src/supply/window';
import { ensureReconciliationSchedule, reconciliationScheduleId } from '../src/reconciliation/schedule';
import { workflowIds } from '../src/temporal/names';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';
import { replayAndRecord as recordHistory } from './helpers/histories';

/**
 * Platform-affiliate reconciliation (docs/RECONCILIATION.md): the importer, a run over a hand-built
 * set with every discrepancy kind (through the API, the workflow and a real worker process), the
 * validation and auth errors, and the daily Schedule created at worker start.
 *
 * Isolation: every order is imported under a source name unique to this run, and the gateway
 * records are dated in a past window (`as_of`) no other test writes to.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/affiliate/', import.meta.url));
const HOUR = 3_600_000;
const uid = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const sourceName = (tag: string) => `test-${tag}-${uid}`;

let api: TestApi;
let worker: WorkerProcess;
let dev: Onboarded;
let tmp: string;

const supply = { 'x-supply-key': TEST_SUPPLY_KEY };
const runPost = (body: unknown, headers: Record<string, string> = supply) =>
  call(api.url, 'POST', '/v1/reconciliation/platform-affiliate/run', { body, headers });

beforeAll(async () => {
  api = await startTestApi();
  worker = startWorkerProcess(api);
  dev = await onboard(api.url, { scopes: ['reports'] });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'recon-test-'));
  await worker.ready;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('affiliate order import', () => {
  it('CSV: good rows stored in one batch, bad rows reported by line; the same file again adds nothing', async () => {
    const source = sourceName('csv');
    const report = await importAffiliateOrders(api.db, `${FIXTURES}report.csv`, source);
    expect(report.already_imported).toBe(false);
    expect(report.imported).toBe(4);
    expect(report.skipped.map((s) => s.line)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(report.skipped.map((s) => s.reason)).toEqual([
      'order_id is required',
      'amount must be a non-negative decimal with at most 2 decimals, got "ten"',
      'currency must be a 3-letter ISO 4217 code',
      'status must be completed, refunded or cancelled, got "shipped"',
      'ordered_at must be an ISO 8601 date-time',
      'expected 11 fields, found 10',
    ]);
    const rows = await api.db.selectFrom('affiliate_orders').selectAll().where('source', '=', source).orderBy('line').execute();
    expect(
      rows.map((r) => [r.order_id, r.line, r.amount_cents, r.currency, r.commission_cents, r.status, r.ordered_at.toISOString()]),
    ).toEqual([
      ['PO-1001', 2, 4990, 'USD', 250, 'completed', '2026-11-20T10:15:00.000Z'],
      ['PO-1002', 3, 12000, 'EUR', null, 'refunded', '2026-11-20T11:00:00.000Z'],
      ['PO-1003', 4, 1550, 'USD', 78, 'cancelled', '2026-11-20T10:00:00.000Z'],
      ['PO-1010', 11, 725, 'USD', null, 'completed', '2026-11-20T00:00:00.000Z'],
    ]);
    expect(rows[0]).toMatchObject({ rec_id: 'rec_fixture_1', product_id: 12, merchant_id: 'shop-a', match_token_id: null });
    expect(new Set(rows.map((r) => r.import_batch))).toEqual(new Set([report.import_batch]));

    const again = await importAffiliateOrders(api.db, `${FIXTURES}report.csv`, source);
    expect(again).toMatchObject({ already_imported: true, imported: 0, import_batch: report.import_batch });
    expect(await api.db.selectFrom('affiliate_orders').select('id').where('source', '=', source).execute()).toHaveLength(4);
  });

  it('JSON Lines through the CLI: amounts in minor or major units, bad lines reported, exit 0', async () => {
    const source = sourceName('jsonl');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bin/import-affiliate-orders.ts', `${FIXTURES}report.jsonl`, '--source', source],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: inject('databaseUrl') },
      },
    );
    expect(stdout).toContain('line 3: skipped: not valid JSON');
    expect(stdout).toContain('line 4: skipped: amount 5 and amount_cents 600 disagree');
    expect(stdout).toContain('line 5: skipped: not a JSON object');
    expect(stdout).toContain('line 6: skipped: amount must be a non-negative decimal with at most 2 decimals, got 12.345');
    expect(stdout).toMatch(/2 orders imported, 4 skipped/);
    const rows = await api.db.selectFrom('affiliate_orders').selectAll().where('source', '=', source).orderBy('line').execute();
    expect(rows.map((r) => [r.order_id, r.amount_cents, r.commission_cents, r.status])).toEqual([
      ['PO-2001', 1999, 100, 'completed'],
      ['2002', 500, null, 'completed'],
    ]);
  });
});

/** Gateway records dated `at`: a session, and per token a proposal (one live token per proposal and session). */
async function gatewayFixture(at: (hoursBeforeEnd: number) => Date) {
  const db = api.db;
  const product = await db.selectFrom('products').select('product_id').orderBy('product_id').limit(1).executeTakeFirstOrThrow();
  const intentId = `int_rc_${uid}`;
  const sessionId = `ms_rc_${uid}`;
  await db
    .insertInto('intents')
    .values({ intent_id: intentId, raw_query: 'reconciliation fixture' } as never)
    .execute();
  await db
    .insertInto('match_sessions')
    .values({ match_session_id: sessionId, intent_id: intentId, status: 'accepted', expires_at: at(0) } as never)
    .execute();
  const ids: Record<string, string> = {};
  const token = async (key: string, state: string, cents: number, currency: string, hours: number) => {
    const proposalId = `prop_rc_${key}_${uid}`;
    const tokenId = `mt_rc_${key}_${uid}`;
    await db
      .insertInto('proposals')
      .values({
        proposal_id: proposalId,
        merchant_agent_id: CATALOG_MERCHANT_ID,
        intent_id: intentId,
        product_id: product.product_id,
        offer_title: 'fixture',
        price_cents: cents,
        currency,
        inventory_status: 'in_stock',
        provenance: 'test',
        proposal_state: 'accepted',
      } as never)
      .execute();
    await db
      .insertInto('match_tokens')
      .values({
        match_token_id: tokenId,
        match_session_id: sessionId,
        intent_id: intentId,
        proposal_id: proposalId,
        acceptance_state: state,
        amount_cents: cents,
        currency,
        signed_token: 'unsigned-fixture',
        issued_at: at(hours + 1),
        expires_at: at(hours - 1),
        accepted_at: at(hours),
        updated_at: at(hours),
      } as never)
      .execute();
    ids[key] = tokenId;
    return { proposalId, tokenId };
  };
  const checkout = async (key: string, cents: number, tokenCents: number, hours: number) => {
    const { proposalId, tokenId } = await token(key, 'consumed', tokenCents, 'USD', hours);
    const checkoutId = `chk_rc_${key}_${uid}`;
    await db
      .insertInto('agentic_checkouts')
      .values({
        checkout_id: checkoutId,
        status: 'confirmed',
        buyer_agent_id: 'buyer',
        intent_id: intentId,
        proposal_id: proposalId,
        match_token_id: tokenId,
        merchant_id: CATALOG_MERCHANT_ID,
        amount_cents: cents,
        currency: 'USD',
        plan: '{}',
        workflow_id: `checkout-${checkoutId}`,
        expires_at: at(hours - 1),
        confirmed_at: at(hours),
        created_at: at(hours + 1),
        updated_at: at(hours),
      } as never)
      .execute();
    ids[`C${key.slice(1)}`] = checkoutId;
  };
  await token('T1', 'payment_authorized', 5000, 'USD', 12);
  await checkout('T2', 5500, 5000, 11); // the checkout total includes shipping
  await token('T3', 'payment_authorized', 3000, 'USD', 10);
  await token('T4', 'payment_authorized', 2000, 'EUR', 10);
  await token('T5', 'payment_authorized', 4000, 'USD', 9);
  await checkout('T6', 7000, 6500, 8);
  await token('T7', 'payment_authorized', 1000, 'USD', 7);
  await token('T8', 'issued', 1200, 'USD', 7);
  await token('T9', 'payment_authorized', 900, 'USD', 48); // paid before the window
  await token('T10', 'payment_authorized', 1500, 'USD', 6);
  await token('T14', 'consumed', 2500, 'USD', 5);
  const recId = `rec_rc_${uid}`;
  await db
    .insertInto('rec_cards')
    .values({ rec_id: recId, product_id: product.product_id, source: 'recommend', document: '{}' } as never)
    .execute();
  ids.R11 = recId;
  return ids;
}

describe('reconciliation runs', () => {
  it('a run over a hand-built set: each discrepancy kind and the matched orders, exact counts; the history replays', async () => {
    const asOf = new Date(Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 3000) * 86_400_000);
    const at = (h: number) => new Date(asOf.getTime() - h * HOUR);
    const g = await gatewayFixture(at);
    const o = (order_id: string, refs: Record<string, string>, amount: number, hours: number, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ order_id: `${order_id}-${uid}`, ...refs, amount, currency: 'USD', ordered_at: at(hours).toISOString(), ...extra });
    const report = [
      o('O1', { match_token_id: g.T1! }, 50, 11.5, { commission: 2.5 }), // matched by token
      o('O2', { checkout_id: g.C2! }, 55, 10.5), // matched by checkout (its total, not the token's amount)
      o('O3', { match_token_id: g.T3! }, 35, 9.5), // amount_mismatch: 30 expected
      o('O4', { match_token_id: g.T4! }, 20, 9.5), // amount_mismatch: EUR expected
      o('O7a', { match_token_id: g.T7! }, 10, 6.5), // matched, first claim
      o('O7b', { match_token_id: g.T7! }, 10, 6), // duplicate_order: claims T7 again
      o('O9', { match_token_id: g.T9! }, 9, 5), // matched: resolved by reference, whenever the token was paid
      o('O10', { match_token_id: g.T10! }, 15, 5), // matched, but listed twice → duplicate_order
      o('O10', { match_token_id: g.T10! }, 15, 5),
      o('O11', { rec_id: g.R11! }, 77.7, 4), // matched by rec_id (a card has no amount)
      o('O12', { match_token_id: `mt_nope_${uid}` }, 12, 4), // unmatched_platform_order: unknown reference
      o('O13', {}, 13, 3), // unmatched_platform_order: names nothing
      o('O14', { match_token_id: g.T14! }, 25, 4), // completed, then refunded: a status change, not a duplicate
      o('O14', { match_token_id: g.T14! }, 25, 4, { status: 'refunded' }),
      o('O2b', { match_token_id: g.T2! }, 55, 2), // duplicate_order: T2 is C2's token, already claimed by O2
      o('O15', { match_token_id: g.T5! }, 40, 30), // before the window: not read, so T5 stays unmatched
    ].join('\n');
    const source = sourceName('run');
    const file = path.join(tmp, 'run.jsonl');
    await writeFile(file, `${report}\n`);
    expect((await importAffiliateOrders(api.db, file, source)).imported).toBe(16);

    const res = await runPost({ days: 1, source, as_of: asOf.toISOString() });
    expect(res.status, res.text).toBe(200);
    const run = res.body.reconciliation;
    expect(run).toMatchObject({
      status: 'completed',
      trigger: 'api',
      source,
      window: { start: at(24).toISOString(), end: asOf.toISOString(), days: 1 },
      workflow_id: workflowIds.reconcileOnDemand(asOf.toISOString(), new Date(), source, 1),
      error: null,
    });
    expect(run.run_id).toMatch(/^rcn_/);
    expect(run.summary).toMatchObject({
      orders: { rows: 15, distinct: 13, completed: 12, refunded: 1, cancelled: 0 },
      outcomes: { matched: 7, amount_mismatch: 2, unmatched_platform_order: 2, duplicate_claim: 2 },
      matched_by: { checkout: 1, match_token: 5, rec_card: 1 },
      gateway_records: { expected: 9, claimed: 7, unclaimed: 2 },
      discrepancies: { unmatched_platform_order: 2, unmatched_gateway_record: 2, amount_mismatch: 2, duplicate_order: 3 },
      stored: { unmatched_platform_order: 2, unmatched_gateway_record: 2, amount_mismatch: 2, duplicate_order: 3 },
    });
    expect(run.summary.amounts).toEqual([
      {
        currency: 'USD',
        platform_orders: 361.7, // O1 50 + O2 55 + O3 35 + O4 20 + O7a 10 + O7b 10 + O9 9 + O10 15 + O11 77.7 + O12 12 + O13 13 + O2b 55
        matched: 216.7, // O1 50 + O2 55 + O7a 10 + O9 9 + O10 15 + O11 77.7
        commission: 2.5,
        refunded_or_cancelled: 25,
        mismatch_expected: 30,
        mismatch_actual: 35,
        unmatched_platform_orders: 12 + 13,
        unmatched_gateway_records: 40 + 70,
      },
    ]);
    const byOrder = (kind: string) => Object.fromEntries(run.discrepancies[kind].map((d: any) => [d.order_id ?? d.ref_id, d]));
    const id = (k: string) => `${k}-${uid}`;

    const mismatches = byOrder('amount_mismatch');
    expect(mismatches[id('O3')]).toMatchObject({
      ref_type: 'match_token',
      ref_id: g.T3,
      expected_amount: 30,
      actual_amount: 35,
      currency: 'USD',
    });
    expect(mismatches[id('O4')]).toMatchObject({
      ref_type: 'match_token',
      ref_id: g.T4,
      expected_amount: 20,
      actual_amount: 20,
      detail: { expected_currency: 'EUR', actual_currency: 'USD' },
    });

    const unmatchedOrders = byOrder('unmatched_platform_order');
    expect(unmatchedOrders[id('O12')].detail).toMatchObject({ reason: 'unknown_reference', named: { match_token_id: `mt_nope_${uid}` } });
    expect(unmatchedOrders[id('O13')].detail).toMatchObject({ reason: 'no_reference', named: {} });

    const unmatchedGateway = byOrder('unmatched_gateway_record');
    expect(Object.keys(unmatchedGateway).sort()).toEqual([g.C6, g.T5].sort());
    expect(unmatchedGateway[g.C6!]).toMatchObject({
      order_id: null,
      ref_type: 'checkout',
      expected_amount: 70,
      detail: { match_token_id: g.T6 },
    });
    expect(unmatchedGateway[g.T5!]).toMatchObject({ ref_type: 'match_token', expected_amount: 40, currency: 'USD' });

    const duplicates = run.discrepancies.duplicate_order;
    expect(duplicates).toHaveLength(3);
    expect(duplicates.find((d: any) => d.order_id === id('O7b'))).toMatchObject({
      ref_type: 'match_token',
      ref_id: g.T7,
      detail: { reason: 'reference_already_claimed', first_order_id: id('O7a') },
    });
    expect(duplicates.find((d: any) => d.order_id === id('O2b'))).toMatchObject({
      ref_type: 'checkout',
      ref_id: g.C2,
      detail: { reason: 'reference_already_claimed', first_order_id: id('O2') },
    });
    expect(duplicates.find((d: any) => d.order_id === id('O10'))).toMatchObject({
      ref_type: 'order',
      detail: { reason: 'listed_more_than_once', rows: 2, lines: [8, 9] },
    });

    // The stored run reads the same with the supply key; reconciliation is an operator power, which
    // no API key holds, not even one with the reports scope (docs/TENANCY.md).
    const stored = await call(api.url, 'GET', `/v1/reconciliation/runs/${run.run_id}`, { headers: supply });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.reconciliation).toEqual(run);
    const byKey = await call(api.url, 'GET', `/v1/reconciliation/runs/${run.run_id}`, { token: dev.apiKey });
    expect([byKey.status, byKey.body.error]).toEqual([401, 'invalid_supply_key']);
    const row = await api.db.selectFrom('reconciliation_runs').selectAll().where('run_id', '=', run.run_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'completed', trigger: 'api', days: 1, source });

    // The completed run replays against the current workflow code; recorded for the replay suite.
    await recordHistory(api.temporal!.client, run.workflow_id, 'reconciliation.json');
  });

  it('another order source plugs in by name (here: records fetched in memory, as a platform API client would)', async () => {
    const name = sourceName('memory');
    const window = windowEnding(new Date(), 1);
    const record = (order_id: string, cents: number, hoursAgo: number) => ({
      order_id,
      rec_id: null,
      match_token_id: null,
      checkout_id: null,
      product_id: null,
      merchant_id: null,
      amount_cents: cents,
      currency: 'usd',
      commission_cents: null,
      status: 'completed' as const,
      ordered_at: new Date(Date.now() - hoursAgo * HOUR),
    });
    registerOrderSource({
      name,
      stage: (trx, w) =>
        stageRecords(
          trx,
          [record(`m1-${uid}`, 100, 1), record(`m1-${uid}`, 100, 2)].filter((r) => r.ordered_at >= w.start && r.ordered_at < w.end),
        ),
    });
    const runId = `rcn_memory_${uid}`;
    await recordRunStarted(api.db, { runId, workflowId: 'in-process', trigger: 'api', source: name, window });
    const summary = await reconcileAffiliateOrders(api.db, { runId, source: name, window });
    expect(summary.orders).toMatchObject({ rows: 2, distinct: 1 });
    expect(summary.discrepancies).toMatchObject({ unmatched_platform_order: 1, duplicate_order: 1 });
    expect(summary.amounts.map((a) => a.currency)).toEqual(['USD']);
  });

  it('past the wait bound: 202 with the run id and a status URL that serves the run once finished', async () => {
    const res = await runPost({ days: 2, source: sourceName('csv') }, { ...supply, prefer: 'wait=0' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'running', run_id: expect.stringMatching(/^rcn_/) });
    expect(res.headers.get('location')).toBe(res.body.status_url);
    let status: number;
    let body: any;
    for (let i = 0; i < 100; i++) {
      ({ status, body } = await call(api.url, 'GET', res.body.status_url, { headers: supply }));
      if (status === 200 && body.reconciliation.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(body.reconciliation).toMatchObject({ run_id: res.body.run_id, status: 'completed', window: { days: 2 } });
  });

  it('days outside 1..30 → 400 invalid_days naming days; an unknown source or a future as_of → 400', async () => {
    for (const days of [0, 31, 1.5, '7', -1]) {
      const res = await runPost({ days });
      expect(res.status, JSON.stringify(days)).toBe(400);
      expect(res.body.error).toBe('invalid_days');
      expect(res.body.message).toMatch(/^Invalid days/);
    }
    expect((await runPost({ source: `never-imported-${uid}` })).body.error).toBe('invalid_source');
    expect((await runPost({ source: 'Not A Name' })).body.error).toBe('invalid_source');
    expect((await runPost({ as_of: new Date(Date.now() + HOUR).toISOString() })).body.error).toBe('invalid_as_of');
    expect((await runPost({ as_of: 'soon' })).body.error).toBe('invalid_as_of');
    expect((await call(api.url, 'GET', '/v1/reconciliation/runs/rcn_unknown', { headers: supply })).body.error).toBe(
      'reconciliation_run_not_found',
    );
  });

  it('401 without credentials or with a wrong supply key', async () => {
    const none = await runPost({ days: 1 }, {});
    expect([none.status, none.body.error]).toEqual([401, 'invalid_supply_key']);
    const byKey = await call(api.url, 'POST', '/v1/reconciliation/platform-affiliate/run', { token: dev.apiKey, body: { days: 1 } });
    expect([byKey.status, byKey.body.error]).toEqual([401, 'invalid_supply_key']);
    const wrong = await runPost({ days: 1 }, { 'x-supply-key': 'wrong-supply-key-000000' });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_supply_key']);
    expect((await call(api.url, 'GET', '/v1/reconciliation/runs/rcn_x')).status).toBe(401);
  });

  it('Temporal not connected → 503 temporal_unavailable', async () => {
    const offline = await startTestApi({ withTemporal: false, db: api.db });
    try {
      const res = await call(offline.url, 'POST', '/v1/reconciliation/platform-affiliate/run', { body: { days: 1 }, headers: supply });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('temporal_unavailable');
    } finally {
      await offline.close();
    }
  });
});

describe('daily Schedule', () => {
  it('exists after worker start, creating it again is a no-op, and a triggered run completes with a stored run row', async () => {
    const queue = api.config.TEMPORAL_TASK_QUEUE;
    const scheduleId = reconciliationScheduleId(queue);
    expect(scheduleId).toBe(`reconcile-daily-${queue}`);
    const handle = api.temporal!.client.schedule.getHandle(scheduleId);
    const before = await handle.describe();
    expect(before.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'reconciliation',
      taskQueue: queue,
      workflowId: `reconcile-${queue}`,
      args: [{ trigger: 'schedule', days: 1, source: 'platform_affiliate' }],
    });
    expect(before.spec.calendars).toMatchObject([{ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] }]);
    expect(before.policies.overlap).toBe('SKIP');
    expect(before.state.paused).toBe(false);

    expect(await ensureReconciliationSchedule(api.temporal!.client, queue)).toEqual({ scheduleId, created: false });
    const ids: string[] = [];
    for await (const s of api.temporal!.client.schedule.list()) if (s.scheduleId === scheduleId) ids.push(s.scheduleId);
    expect(ids.length).toBeLessThanOrEqual(1); // the list is eventually consistent; never two

    await handle.trigger();
    let row;
    for (let i = 0; i < 150 && row?.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      row = await api.db
        .selectFrom('reconciliation_runs')
        .selectAll()
        .where('workflow_id', 'like', `reconcile-${queue}-%`)
        .executeTakeFirst();
    }
    expect(row).toMatchObject({ status: 'completed', trigger: 'schedule', source: 'platform_affiliate', days: 1 });
    expect((await handle.describe()).info.recentActions.length).toBe(1);

    // What operators set survives a worker start: a paused schedule stays paused.
    await handle.pause('platform outage');
    await ensureReconciliationSchedule(api.temporal!.client, queue);
    expect((await handle.describe()).state).toMatchObject({ paused: true, note: 'platform outage' });
  });
});

describe('worker crash', () => {
  it('a worker killed in the middle of the matching activity: the next worker retries it after the heartbeat timeout; one result, nothing doubled', async () => {
    const source = sourceName('crash');
    const file = path.join(tmp, 'crash.jsonl');
    const orderedAt = new Date(Date.now() - HOUR).toISOString();
    await writeFile(file, `${JSON.stringify({ order_id: `crash-${uid}`, amount: 1, currency: 'USD', ordered_at: orderedAt })}\n`);
    await importAffiliateOrders(api.db, file, source);
    const runId = `rcn_crash_${uid}`;
    const asOf = new Date().toISOString();
    await recordRunStarted(api.db, {
      runId,
      workflowId: `reconcile-crash-${uid}`,
      trigger: 'api',
      source,
      window: windowEnding(new Date(asOf), 1),
    });

    // Holding the run row FOR UPDATE parks the activity at its first discrepancy insert (the foreign key check).
    const blocker = new pg.Client({ connectionString: inject('databaseUrl') });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('select 1 from reconciliation_runs where run_id = $1 for update', [runId]);
    const handle = await api.temporal!.client.workflow.start<ReconciliationWorkflow>('reconciliation', {
      workflowId: `reconcile-crash-${uid}`,
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      args: [{ trigger: 'api', days: 1, source, asOf, runId }],
    });
    try {
      // Polled from another session: inside the blocker's transaction pg_stat_activity is a snapshot.
      for (let i = 0; ; i++) {
        const { rows } =
          await sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into reconciliation_discrepancies%'`.execute(
            api.db,
          );
        if (rows.length) break;
        if (i > 150) throw new Error('the matching activity never reached the discrepancy insert');
        await new Promise((r) => setTimeout(r, 100));
      }
      await worker.kill();
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    worker = startWorkerProcess(api);
    await worker.ready;

    const result = await handle.result();
    expect(result).toMatchObject({ runId, status: 'completed', discrepancies: { unmatched_platform_order: 1 } });
    const attempts = (await handle.fetchHistory())
      .events!.filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    expect(attempts).toEqual([1, 2, 1]); // start run, matching (killed, retried), finish run
    const rows = await api.db
      .selectFrom('reconciliation_discrepancies')
      .select(['kind', 'order_id', 'ref_id'])
      .where('run_id', '=', runId)
      .execute();
    expect(rows.filter((r) => r.kind === 'unmatched_platform_order')).toEqual([
      { kind: 'unmatched_platform_order', order_id: `crash-${uid}`, ref_id: null },
    ]);
    // The gateway side of the window is shared with the other test files (their paid tokens), so
    // "nothing doubled" is: every stored discrepancy once, exactly as many as the run counted.
    expect(new Set(rows.map((r) => `${r.kind}|${r.order_id}|${r.ref_id}`)).size).toBe(rows.length);
    expect(rows.length).toBe(Object.values(result.discrepancies!).reduce((a, b) => a + b, 0));
    expect(await api.db.selectFrom('reconciliation_runs').select('status').where('run_id', '=', runId).executeTakeFirst()).toEqual({
      status: 'completed',
    });
  }, 120_000);
});
