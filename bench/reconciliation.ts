/**
 * Platform-affiliate reconciliation of 100,000 affiliate orders against 100,000 attributed records
 * (issue 8). Target: ≤ 30 s. A scratch database gets, by set-based SQL, 100,000 paid match tokens
 * (30,000 of them consumed by a confirmed agentic checkout whose total adds shipping), 20,000 expired
 * tokens, 10,000 cards, all in the last day; a 100,000-line CSV report is written and imported with
 * the importer (timed too). The mix: 92,000 orders naming a checkout or a token (1 in 50 with a wrong
 * amount, 1 in 40 refunded), 4,000 by rec_id, 2,000 naming nothing known, 1,000 second claims on a
 * token, 1,000 lines repeating an order — so 8,000 gateway records stay unclaimed.
 *
 * Timed: the matching function the activity runs (--runs times, median), then the same run through
 * the `reconciliation` workflow on a Temporal dev server with an in-process worker (the difference is
 * the workflow overhead).
 *
 *   npm run bench:reconciliation [-- --runs 3]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { freePort } from '../src/net';
import { importAffiliateOrders } from '../src/supply/affiliate-orders';
import { reconcileAffiliateOrders } from '../src/reconciliation/matching';
import type { ReconciliationSummary } from '../src/schemas/reconciliation';
import { recordRunStarted } from '../src/reconciliation/runs';
import { windowEnding } from '../src/supply/window';
import { connectTemporal } from '../src/temporal/client';
import { startDevServer } from '../src/temporal/dev-server';
import type { ReconciliationWorkflow } from '../workflows/reconciliation.shared';
import { createWorker } from '../worker/run';
import { machine, percentile } from './harness';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const N = 100_000;
const CHECKOUTS = 30_000;
const SOURCE = 'bench';

/** Token i: paid (i - 1) % 1380 minutes + 30 min ago, so everything sits inside the last day. */
async function loadGateway(db: Db): Promise<void> {
  const paidAt = (i: string) => sql.raw(`now() - interval '30 minutes' - ((${i} - 1) % 1380) * interval '1 minute'`);
  const steps: Array<[string, ReturnType<typeof sql>]> = [
    ['product', sql`insert into products (product_id, title, price_cents, source) values (1, 'Bench product', 5000, 'seed')`],
    ['intent', sql`insert into intents (intent_id, raw_query) values ('int_bench', 'bench')`],
    [
      'proposals',
      sql`insert into proposals (proposal_id, merchant_agent_id, intent_id, product_id, offer_title, price_cents, currency, inventory_status, provenance, proposal_state)
      select 'prop_' || p, ${CATALOG_MERCHANT_ID}, 'int_bench', 1, 'offer', 5000, 'USD', 'in_stock', 'bench', 'accepted' from generate_series(1, 100) p`,
    ],
    [
      'match sessions',
      sql`insert into match_sessions (match_session_id, intent_id, status, expires_at)
      select 'ms_' || s, 'int_bench', 'accepted', now() + interval '1 day' from generate_series(1, 1200) s`,
    ],
    // One live token per (session, proposal): 1,000 sessions × 100 proposals.
    [
      'paid tokens',
      sql`insert into match_tokens (match_token_id, match_session_id, intent_id, proposal_id, acceptance_state, amount_cents, currency, signed_token, issued_at, expires_at, accepted_at, updated_at)
      select 'mt_' || i, 'ms_' || ((i - 1) / 100 + 1), 'int_bench', 'prop_' || ((i - 1) % 100 + 1),
             case when i <= ${CHECKOUTS} then 'consumed' else 'payment_authorized' end, 1000 + i % 9000, 'USD', 'bench',
             ${paidAt('i')} - interval '1 minute', ${paidAt('i')} + interval '29 minutes', ${paidAt('i')}, ${paidAt('i')}
      from generate_series(1, ${N}) i`,
    ],
    [
      'expired tokens',
      sql`insert into match_tokens (match_token_id, match_session_id, intent_id, proposal_id, acceptance_state, amount_cents, currency, signed_token, issued_at, expires_at, updated_at)
      select 'mt_x' || i, 'ms_' || (1000 + (i - 1) / 100 + 1), 'int_bench', 'prop_' || ((i - 1) % 100 + 1), 'expired', 1000, 'USD', 'bench',
             now() - interval '3 hours', now() - interval '2 hours', now() - interval '2 hours'
      from generate_series(1, 20000) i`,
    ],
    [
      'payment authorizations',
      sql`insert into payment_authorizations (authorization_id, match_token_id, proposal_id, amount_cents, currency, authorized_at)
      select 'pa_' || i, 'mt_' || i, 'prop_' || ((i - 1) % 100 + 1), 1000 + i % 9000, 'USD', ${paidAt('i')} from generate_series(1, ${N}) i`,
    ],
    [
      'confirmed checkouts',
      sql`insert into agentic_checkouts (checkout_id, status, buyer_agent_id, intent_id, proposal_id, match_token_id, merchant_id, amount_cents, currency, plan, workflow_id, expires_at, confirmed_at)
      select 'chk_' || i, 'confirmed', 'buyer', 'int_bench', 'prop_' || ((i - 1) % 100 + 1), 'mt_' || i, ${CATALOG_MERCHANT_ID}, 1000 + i % 9000 + 450, 'USD', '{}', 'checkout-chk_' || i,
             ${paidAt('i')} + interval '15 minutes', ${paidAt('i')} + interval '10 seconds'
      from generate_series(1, ${CHECKOUTS}) i`,
    ],
    [
      'cards',
      sql`insert into rec_cards (rec_id, product_id, source, document) select 'rec_' || i, 1, 'recommend', '{}' from generate_series(1, 10000) i`,
    ],
  ];
  for (const [, q] of steps) await q.execute(db);
  await sql`analyze`.execute(db);
}

/** The platform's report as a CSV file (what an operator imports). */
async function writeReport(file: string): Promise<void> {
  const now = Date.now();
  const paidAt = (i: number) => now - 30 * 60_000 - ((i - 1) % 1380) * 60_000;
  const tokenCents = (i: number) => 1000 + (i % 9000);
  const line = (o: { id: string; rec?: string; token?: string; checkout?: string; cents: number; status?: string; at: number }) =>
    `${o.id},${o.rec ?? ''},${o.token ?? ''},${o.checkout ?? ''},${(o.cents / 100).toFixed(2)},USD,${(o.cents / 2000).toFixed(2)},${o.status ?? 'completed'},${new Date(o.at).toISOString()}`;
  const order = (i: number) => {
    const expected = i <= CHECKOUTS ? tokenCents(i) + 450 : tokenCents(i);
    return line({
      id: `PO-${i}`,
      ...(i <= CHECKOUTS ? { checkout: `chk_${i}` } : { token: `mt_${i}` }),
      cents: i % 50 === 0 ? expected + 100 : expected,
      status: i % 40 === 1 ? 'refunded' : 'completed',
      at: paidAt(i) + 60_000,
    });
  };
  const lines = ['order_id,rec_id,match_token_id,checkout_id,amount,currency,commission,status,ordered_at'];
  for (let i = 1; i <= 92_000; i++) lines.push(order(i));
  for (let i = 1; i <= 4000; i++) lines.push(line({ id: `PO-R${i}`, rec: `rec_${i}`, cents: 2599, at: now - i * 10_000 }));
  for (let i = 1; i <= 1000; i++) lines.push(line({ id: `PO-U${i}`, token: `mt_unknown_${i}`, cents: 1500, at: now - i * 10_000 }));
  for (let i = 1; i <= 1000; i++) lines.push(line({ id: `PO-N${i}`, cents: 1500, at: now - i * 10_000 }));
  for (let i = 1; i <= 1000; i++)
    lines.push(
      line({ id: `PO-D${i}`, token: `mt_${31_000 + i * 7}`, cents: tokenCents(31_000 + i * 7), at: paidAt(31_000 + i * 7) + 5 * 60_000 }),
    );
  for (let i = 1; i <= 1000; i++) lines.push(order(i * 11));
  await writeFile(file, `${lines.join('\n')}\n`);
}

/** What the mix above must produce (a check that the benchmark measured the intended work). */
function expectedCounts() {
  let mismatch = 0;
  let refunded = 0;
  for (let i = 1; i <= 92_000; i++) {
    if (i % 40 === 1) refunded++;
    else if (i % 50 === 0) mismatch++;
  }
  return { mismatch, refunded };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-recon-'));
const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_recon' });
const db = createDb(database.url);
let temporal: Awaited<ReturnType<typeof startDevServer>> | undefined;
try {
  await migrateToLatest(db);
  let t = performance.now();
  await loadGateway(db);
  const loadMs = performance.now() - t;
  const file = path.join(tmp, 'report.csv');
  await writeReport(file);
  t = performance.now();
  const imported = await importAffiliateOrders(db, file, SOURCE);
  const importMs = performance.now() - t;
  if (imported.imported !== N || imported.skipped.length) throw new Error(`import: ${JSON.stringify(imported).slice(0, 500)}`);

  const times: number[] = [];
  let summary: ReconciliationSummary | undefined;
  for (let r = 0; r < runs; r++) {
    const window = windowEnding(new Date(), 1);
    const runId = `rcn_bench_${r}`;
    await recordRunStarted(db, { runId, workflowId: 'bench', trigger: 'api', source: SOURCE, window });
    t = performance.now();
    summary = await reconcileAffiliateOrders(db, { runId, source: SOURCE, window });
    times.push(performance.now() - t);
  }
  const s = summary!;
  const want = expectedCounts();
  const checks = {
    'distinct orders 99,000': s.orders.distinct === 99_000,
    'gateway records 100,000 expected, 8,000 unclaimed': s.gateway_records.expected === N && s.gateway_records.unclaimed === 8000,
    [`amount mismatches ${want.mismatch}`]: s.discrepancies.amount_mismatch === want.mismatch,
    'unmatched platform orders 2,000': s.discrepancies.unmatched_platform_order === 2000,
    'duplicates 2,000 (1,000 second claims + 1,000 repeated lines)': s.discrepancies.duplicate_order === 2000,
    [`refunded ${want.refunded}`]: s.orders.refunded === want.refunded,
  };
  const failed = Object.entries(checks).filter(([, ok]) => !ok);
  if (failed.length) throw new Error(`unexpected result (${failed.map(([k]) => k).join('; ')}): ${JSON.stringify(s)}`);

  // The same run through the workflow: dev server, in-process worker, client execute.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  temporal = await startDevServer({ port: await freePort(), dbFile: path.join(tmp, 'temporal.db') });
  const config = loadConfig({
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench-recon',
    LOG_LEVEL: 'silent',
    // An in-process worker that nothing promotes: unversioned, so its runs start at once.
    WORKER_VERSIONING: 'off',
  });
  const client = await connectTemporal(temporal.address, 'default', 'bench-recon');
  const { worker, close } = await createWorker({
    address: temporal.address,
    namespace: 'default',
    taskQueue: 'bench-recon',
    deps: { db, config },
  });
  let workflowMs = 0;
  await worker.runUntil(async () => {
    t = performance.now();
    const out = await client.client.workflow.execute<ReconciliationWorkflow>('reconciliation', {
      workflowId: `reconcile-bench-${Date.now()}`,
      taskQueue: 'bench-recon',
      args: [{ trigger: 'api', days: 1, source: SOURCE, runId: 'rcn_bench_wf' }],
    });
    workflowMs = performance.now() - t;
    if (out.status !== 'completed') throw new Error(`workflow: ${JSON.stringify(out)}`);
  });
  await close();
  await client.connection.close();

  const sorted = [...times].sort((a, b) => a - b);
  const median = percentile(sorted, 0.5);
  console.log(
    [
      `reconciliation: ${N.toLocaleString('en-US')} affiliate orders vs ${s.gateway_records.expected.toLocaleString('en-US')} gateway records (${machine()})`,
      `  gateway data loaded in ${seconds(loadMs)}; report import (CSV, ${N.toLocaleString('en-US')} lines, one transaction): ${seconds(importMs)}`,
      `  matching (activity function), ${runs} runs: median ${seconds(median)}, min ${seconds(sorted[0]!)}, max ${seconds(sorted.at(-1)!)}   target ≤ 30 s: ${median <= 30_000 ? 'met' : 'MISSED'}`,
      `  through the reconciliation workflow (start → result): ${seconds(workflowMs)}   overhead ≈ ${seconds(Math.max(0, workflowMs - median))}`,
      `  result: ${s.outcomes.matched} matched (${s.matched_by.checkout} by checkout, ${s.matched_by.match_token} by token, ${s.matched_by.rec_card} by rec_id; ${s.orders.refunded} refunded), ` +
        `${s.discrepancies.amount_mismatch} amount mismatches, ${s.discrepancies.unmatched_platform_order} unmatched platform orders, ` +
        `${s.discrepancies.unmatched_gateway_record} unmatched gateway records, ${s.discrepancies.duplicate_order} duplicates; stored ${Object.values(s.stored).reduce((a, b) => a + b, 0)} discrepancy rows`,
    ].join('\n'),
  );
} finally {
  await db.destroy();
  await temporal?.stop();
  await database.drop();
  await rm(tmp, { recursive: true, force: true });
}
