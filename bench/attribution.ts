/**
 * GET /v1/report/attribution over 30 days with 1,000,000 click rows (issue 8). Target: p50 ≤ 500 ms.
 * A scratch database gets, by set-based SQL: 5,000 products, 50 merchants, 50,000 intents with their
 * proposals and match sessions, 200,000 cards, 1,000,000 clicks, 20,000 match tokens, 10,000 payment
 * authorizations and 30,000 affiliate orders (rec_id, token, both, unknown, refunded), all spread over
 * 30 days. The report (the same function the route calls) is then timed over --runs calls per variant,
 * and, for the choice it rests on, the 30-day click aggregate over raw rows: through the covering index
 * with the denormalized product_id, and as a plain join to rec_cards (the report reads the rollup).
 *
 *   npm run bench:attribution [-- --runs 25]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { attributionReport, reportWindow, type AttributionQuery } from '../src/supply/attribution';
import { machine, percentile } from './harness';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '25' } } });
const runs = Number(values.runs);

const CHANNELS = `(array['recommend','match','portal_demo','mcp','a2a','showcase'])`;

async function load(db: Db): Promise<void> {
  const steps: Array<[string, ReturnType<typeof sql>]> = [
    [
      'products',
      sql`insert into products (product_id, title, price_cents, source)
      select g, 'Bench product ' || g, 500 + (g * 37) % 20000, 'seed' from generate_series(1, 5000) g`,
    ],
    [
      'merchants',
      sql`insert into merchants (merchant_id, agent_endpoint, token_hash, webhook_secret_sealed)
      select 'bench-m' || g, 'https://m' || g || '.example/agent', 'none-' || g, 'none' from generate_series(1, 50) g`,
    ],
    [
      'intents',
      sql`insert into intents (intent_id, raw_query, source_channel, created_at)
      select 'int_' || g, 'bench intent ' || g, ${sql.raw(CHANNELS)}[1 + g % 6], now() - (g % 43200) * interval '1 minute' from generate_series(1, 50000) g`,
    ],
    [
      'proposals',
      sql`insert into proposals (proposal_id, merchant_agent_id, intent_id, product_id, offer_title, price_cents, currency, inventory_status, provenance, proposal_state, commission_plan)
      select 'prop_' || g, 'bench-m' || (1 + g % 50), 'int_' || g, 1 + (g * 7919) % 5000, 'Offer ' || g, 1000 + g % 9000, 'USD', 'in_stock', 'merchant', 'quoted',
             case when g % 3 = 0 then '{"flat": 2.5}'::jsonb else jsonb_build_object('rate', 0.05 + (g % 10) / 100.0) end
      from generate_series(1, 50000) g`,
    ],
    [
      'match_sessions',
      sql`insert into match_sessions (match_session_id, intent_id, best_proposal_id, ranked_top, status, expires_at, created_at)
      select 'ms_' || g, 'int_' || g, 'prop_' || g,
             jsonb_build_array(jsonb_build_object('rank', 1, 'proposal_id', 'prop_' || g, 'product_id', 1 + (g * 7919) % 5000, 'merchant_agent_id', 'bench-m' || (1 + g % 50))),
             'open', now() + interval '1 day', now() - (g % 43200) * interval '1 minute'
      from generate_series(1, 50000) g`,
    ],
    // One card in five is a match card (its session's product); the rest are recommend-style cards.
    [
      'rec_cards',
      sql`insert into rec_cards (rec_id, product_id, source, channel, match_session_id, document, created_at)
      select 'rec_' || g,
             case when g % 5 = 0 then 1 + ((g / 5) * 7919) % 5000 else 1 + (g::bigint * 104729) % 5000 end,
             case when g % 5 = 0 then 'match' else 'recommend' end,
             case when g % 5 = 0 then 'match' else ${sql.raw(CHANNELS)}[1 + g % 6] end,
             case when g % 5 = 0 then 'ms_' || (g / 5) end,
             '{}'::jsonb, now() - (g % 43200) * interval '1 minute' - interval '1 hour'
      from generate_series(1, 200000) g`,
    ],
    [
      'rec_clicks',
      sql`insert into rec_clicks (rec_id, channel, product_id, clicked_at)
      select c.rec_id, c.channel, c.product_id, c.created_at + ((g % 60) + 1) * interval '1 minute'
      from generate_series(1, 1000000) g join rec_cards c on c.rec_id = 'rec_' || (1 + (g * 7) % 200000)`,
    ],
    // What the click recorder maintains click by click, filled here in one pass.
    [
      'rec_click_daily',
      sql`insert into rec_click_daily (day, channel, product_id, clicks)
      select (clicked_at at time zone 'UTC')::date, coalesce(channel, ''), product_id, count(*) from rec_clicks group by 1, 2, 3`,
    ],
    [
      'match_tokens',
      sql`insert into match_tokens (match_token_id, match_session_id, intent_id, proposal_id, acceptance_state, amount_cents, currency, signed_token, issued_at, expires_at, accepted_at)
      select 'mt_' || g, 'ms_' || g, 'int_' || g, 'prop_' || g, case when g % 2 = 0 then 'payment_authorized' else 'accepted' end,
             1000 + g % 9000, 'USD', 'jws', now() - (g % 43200) * interval '1 minute', now() + interval '30 minutes', now() - (g % 43200) * interval '1 minute'
      from generate_series(1, 20000) g`,
    ],
    [
      'payment_authorizations',
      sql`insert into payment_authorizations (authorization_id, match_token_id, proposal_id, amount_cents, currency, authorized_at)
      select 'pa_' || g, 'mt_' || g, 'prop_' || g, 1000 + g % 9000, 'USD', now() - (g % 43200) * interval '1 minute' + interval '1 minute'
      from generate_series(2, 20000, 2) g`,
    ],
    // 30,000 orders: rec_id (55 %), token (25 %), both (5 %), unknown rec_id (10 %), refunded (5 %).
    [
      'affiliate_orders',
      sql`insert into affiliate_orders (order_id, rec_id, match_token_id, amount_cents, currency, commission_cents, status, ordered_at, import_batch)
      select 'ord_' || g,
             case when g % 20 < 11 or g % 20 = 16 or g % 20 = 19 then 'rec_' || (1 + (g * 13) % 200000) when g % 20 < 18 and g % 20 >= 17 then 'rec_missing_' || g end,
             case when g % 20 between 11 and 16 then 'mt_' || (1 + g % 20000) end,
             1000 + (g * 31) % 50000, case when g % 50 = 0 then 'EUR' else 'USD' end,
             case when g % 2 = 0 then (1000 + (g * 31) % 50000) / 20 end,
             case when g % 20 = 19 then 'refunded' else 'completed' end,
             now() - (g % 43200) * interval '1 minute', 'bench'
      from generate_series(1, 30000) g`,
    ],
  ];
  for (const [name, q] of steps) {
    const t = performance.now();
    await q.execute(db);
    console.log(`  loaded ${name} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await sql`vacuum analyze`.execute(db);
  // Flush the load's dirty pages now: otherwise the checkpointer writes them during the timed calls
  // and the figures measure the bulk load's aftermath, not the report.
  await sql`checkpoint`.execute(db);
}

async function timed(label: string, fn: () => Promise<unknown>) {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (p: number) => percentile(ms, p).toFixed(1);
  console.log(`| ${label} | ${at(0.5)} | ${at(0.95)} | ${ms[ms.length - 1]!.toFixed(1)} | ${runs} |`);
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-attr-'));
const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench_attr' });
const db = createDb(database.url);
try {
  await migrateToLatest(db);
  console.log('loading (set-based SQL):');
  await load(db);
  const { rows } = await sql<{ n: string }>`select count(*) as n from rec_clicks where clicked_at >= now() - interval '30 days'`.execute(
    db,
  );
  console.log(`\nmachine: ${machine()}; ${rows[0]!.n} click rows in the 30-day window\n`);

  const sample = await attributionReport(db, { days: 30 }, { platform: true });
  console.log(
    `report: ${sample.totals.impressions} impressions, ${sample.totals.clicks} clicks, ${sample.totals.match_tokens} tokens, ${sample.totals.payment_authorizations} authorizations, ${sample.totals.attributed_orders} attributed / ${sample.totals.unattributed_orders} unattributed / ${sample.totals.excluded_orders} excluded orders, ${sample.by_product.product_count} products\n`,
  );

  const w = reportWindow(30);
  console.log('| call | p50 ms | p95 ms | max ms | runs |');
  console.log('|---|---|---|---|---|');
  const variants: Array<[string, AttributionQuery]> = [
    ['report, days=30', { days: 30 }],
    ['report, days=30, channel=recommend', { days: 30, channel: 'recommend' }],
    ['report, days=30, product_id=42', { days: 30, product_id: 42 }],
    ['report, days=7', { days: 7 }],
  ];
  for (const [label, q] of variants) await timed(label, () => attributionReport(db, q, { platform: true }));
  await timed('clicks aggregate, raw rows (covering index, no rollup)', () =>
    sql`select channel, product_id, count(*) from rec_clicks where clicked_at >= ${w.start} and clicked_at < ${w.end} group by 1, 2`.execute(
      db,
    ),
  );
  await timed('clicks aggregate, plain join to rec_cards', () =>
    sql`select c.channel, c.product_id, count(*) from rec_clicks k join rec_cards c on c.rec_id = k.rec_id where k.clicked_at >= ${w.start} and k.clicked_at < ${w.end} group by 1, 2`.execute(
      db,
    ),
  );
  console.log('\ntarget: report days=30 p50 ≤ 500 ms');
} finally {
  await db.destroy();
  await database.drop();
  await rm(tmp, { recursive: true, force: true });
}
