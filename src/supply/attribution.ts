import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect';
import { minorUnitDigits } from '../catalog/money';
import { JOIN_RULES, resolvedOrdersSql, type Window } from './attribution-orders';

/**
 * GET /v1/report/attribution (docs/REPORTS.md): impressions (issued cards), clicks (`/r/` redirects),
 * match tokens, payment authorizations and attributed orders with their GMV, commission and ROI over a
 * window, in total, per channel and per product. One statement aggregates every source inside the
 * database (clicks mostly from the daily rollup) and returns only the grouped rows.
 */

export const MAX_REPORT_PRODUCTS = 50;

export const ROI_DEFINITION = 'roi = gmv / commission: GMV earned per unit of commission paid, per currency; null when the commission is 0';

export interface AttributionQuery {
  days: number;
  channel?: string;
  product_id?: number;
}

interface ReportRow {
  kind: 'total' | 'channel' | 'product' | 'money_total' | 'money_channel' | 'money_product' | 'orders';
  channel: string | null;
  product_id: number | null;
  impressions: number;
  clicks: number;
  match_tokens: number;
  payment_authorizations: number;
  attributed_orders: number;
  product_count: number | null;
  currency: string | null;
  gmv_cents: string | null;
  commission_cents: string | null;
  unattributed: number | null;
  excluded: number | null;
}
type CountRow = ReportRow & { kind: 'total' | 'channel' | 'product' };
type MoneyRow = ReportRow & { currency: string };

const DAY_MS = 86_400_000;

export interface Revenue {
  currency: string;
  attributed_orders: number;
  gmv: number;
  gmv_cents: number;
  commission: number;
  commission_cents: number;
  roi: number | null;
}

export interface Funnel {
  impressions: number;
  clicks: number;
  ctr: number | null;
  match_tokens: number;
  payment_authorizations: number;
  attributed_orders: number;
  revenue: Revenue[];
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;
const major = (cents: number, currency: string) => cents / 10 ** minorUnitDigits(currency);

export const reportWindow = (days: number, now = new Date()): Window => ({ start: new Date(now.getTime() - days * DAY_MS), end: now });

function filtersSql(q: AttributionQuery, channelCol: string, productCol: string): RawBuilder<unknown> {
  const parts = [
    ...(q.channel !== undefined ? [sql`${sql.ref(channelCol)} = ${q.channel}`] : []),
    ...(q.product_id !== undefined ? [sql`${sql.ref(productCol)} = ${q.product_id}`] : []),
  ];
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

/** Clicks per channel and product: whole UTC days from the rollup, the partial first and last day from rec_clicks. */
function clickFactsSql(w: Window, q: AttributionQuery): RawBuilder<unknown> {
  const firstDay = new Date(Math.ceil(w.start.getTime() / DAY_MS) * DAY_MS);
  const lastDay = new Date(Math.floor(w.end.getTime() / DAY_MS) * DAY_MS);
  const raw = (from: Date, to: Date) => sql`
    select channel, product_id, 0 as impressions, count(*) as clicks, 0 as tokens, 0 as auths, 0 as orders, 0 as usd_gmv
    from rec_clicks where clicked_at >= ${from} and clicked_at < ${to} ${filtersSql(q, 'channel', 'product_id')}
    group by 1, 2`;
  return sql`
    ${raw(w.start, firstDay)}
    union all
    select nullif(channel, ''), product_id, 0, sum(clicks), 0, 0, 0, 0
    from rec_click_daily where day >= ${firstDay.toISOString().slice(0, 10)}::date and day < ${lastDay.toISOString().slice(0, 10)}::date ${filtersSql(q, 'channel', 'product_id')}
    group by 1, 2
    union all
    ${raw(lastDay, w.end)}`;
}

/**
 * One statement, so the orders are resolved once: the funnel counts grouped in total, per channel and
 * per product (top N by USD GMV), the money of the attributed orders per currency for the same groups,
 * and the unattributed and excluded order counts.
 */
async function reportRows(db: Db, w: Window, q: AttributionQuery): Promise<ReportRow[]> {
  const range = (col: string) => sql`${sql.ref(col)} >= ${w.start} and ${sql.ref(col)} < ${w.end}`;
  const statement = sql<ReportRow>`
    with orders as materialized (${resolvedOrdersSql(w)}),
    attributed as materialized (
      select * from orders where via is not null and not excluded ${filtersSql(q, 'channel', 'product_id')}
    ),
    facts as (
      select channel, product_id, count(*) as impressions, 0 as clicks, 0 as tokens, 0 as auths, 0 as orders, 0 as usd_gmv
      from rec_cards where ${range('created_at')} ${filtersSql(q, 'channel', 'product_id')}
      group by 1, 2
      union all
      ${clickFactsSql(w, q)}
      union all
      select i.source_channel, p.product_id, 0, 0, count(*), 0, 0, 0
      from match_tokens t join proposals p on p.proposal_id = t.proposal_id join intents i on i.intent_id = t.intent_id
      where ${range('t.issued_at')} ${filtersSql(q, 'i.source_channel', 'p.product_id')}
      group by 1, 2
      union all
      select i.source_channel, p.product_id, 0, 0, 0, count(*), 0, 0
      from payment_authorizations a join match_tokens t on t.match_token_id = a.match_token_id
        join proposals p on p.proposal_id = t.proposal_id join intents i on i.intent_id = t.intent_id
      where ${range('a.authorized_at')} ${filtersSql(q, 'i.source_channel', 'p.product_id')}
      group by 1, 2
      union all
      select channel, product_id, 0, 0, 0, 0, count(*), coalesce(sum(amount_cents) filter (where currency = 'USD'), 0)
      from attributed
      group by 1, 2
    ),
    g as materialized (
      select grouping(channel) as gc, grouping(product_id) as gp, channel, product_id,
             sum(impressions)::int as impressions, sum(clicks)::int as clicks, sum(tokens)::int as match_tokens,
             sum(auths)::int as payment_authorizations, sum(orders)::int as attributed_orders, sum(usd_gmv) as usd_gmv
      from facts
      group by grouping sets ((), (channel), (product_id))
    ),
    top as (
      select product_id, impressions, clicks, match_tokens, payment_authorizations, attributed_orders, (count(*) over ())::int as product_count
      from g where gp = 0 and gc = 1
      order by usd_gmv desc, attributed_orders desc, clicks desc, product_id
      limit ${MAX_REPORT_PRODUCTS}
    ),
    money as (
      select case when grouping(channel) = 0 then 'money_channel' when grouping(product_id) = 0 then 'money_product' else 'money_total' end as kind,
             channel, product_id, currency, count(*)::int as n, sum(amount_cents) as gmv_cents, sum(commission_cents) as commission_cents
      from attributed
      group by grouping sets ((currency), (channel, currency), (product_id, currency))
      having grouping(product_id) = 1 or product_id in (select product_id from top)
    )
    select 'total' as kind, null as channel, null::int as product_id, impressions, clicks, match_tokens, payment_authorizations, attributed_orders,
           null::int as product_count, null as currency, null::bigint as gmv_cents, null::bigint as commission_cents, null::int as unattributed, null::int as excluded
    from g where gc = 1 and gp = 1
    union all
    select 'channel', channel, null, impressions, clicks, match_tokens, payment_authorizations, attributed_orders, null, null, null, null, null, null
    from g where gc = 0 and gp = 1
    union all
    select 'product', null, product_id, impressions, clicks, match_tokens, payment_authorizations, attributed_orders, product_count, null, null, null, null, null
    from top
    union all
    select kind, channel, product_id, null, null, null, null, n, null, currency, gmv_cents, commission_cents, null, null
    from money
    union all
    -- Unattributed orders have no channel, so only the product filter (the product the order names) applies.
    select 'orders', null, null, null, null, null, null, null, null, null, null, null,
           (count(*) filter (where via is null and not excluded ${q.product_id !== undefined ? sql`and product_id = ${q.product_id}` : sql``}))::int,
           (count(*) filter (where excluded ${filtersSql(q, 'channel', 'product_id')}))::int
    from orders`;
  // The statement is large for the planner's cost model but runs in well under a second: JIT
  // compilation alone would add more than it saves, and the hash joins and grouping fit in 64 MB.
  return db.transaction().execute(async (trx) => {
    await sql`set local jit = off`.execute(trx);
    await sql`set local work_mem = '64MB'`.execute(trx);
    return (await statement.execute(trx)).rows;
  });
}

function revenue(rows: MoneyRow[]): Revenue[] {
  return [...rows].sort((a, b) => a.currency.localeCompare(b.currency)).map((r) => {
    const gmv = Number(r.gmv_cents);
    const commission = Number(r.commission_cents);
    return {
      currency: r.currency,
      attributed_orders: r.attributed_orders,
      gmv: major(gmv, r.currency),
      gmv_cents: gmv,
      commission: major(commission, r.currency),
      commission_cents: commission,
      roi: commission > 0 ? round(gmv / commission) : null,
    };
  });
}

function funnel(c: CountRow | undefined, money: MoneyRow[]): Funnel {
  const impressions = c?.impressions ?? 0;
  const clicks = c?.clicks ?? 0;
  return {
    impressions,
    clicks,
    ctr: impressions > 0 ? round(clicks / impressions) : null,
    match_tokens: c?.match_tokens ?? 0,
    payment_authorizations: c?.payment_authorizations ?? 0,
    attributed_orders: c?.attributed_orders ?? 0,
    revenue: revenue(money),
  };
}

export async function attributionReport(db: Db, q: AttributionQuery, now = new Date()) {
  const w = reportWindow(q.days, now);
  const rows = await reportRows(db, w, q);
  const counts = rows.filter((r): r is CountRow => r.kind === 'total' || r.kind === 'channel' || r.kind === 'product');
  const products = counts.filter((r) => r.kind === 'product');
  const orders = rows.find((r) => r.kind === 'orders');
  const moneyOf = (kind: 'total' | 'channel' | 'product', match: (m: MoneyRow) => boolean = () => true) =>
    rows.filter((m): m is MoneyRow => m.kind === `money_${kind}` && match(m as MoneyRow));
  return {
    window: { days: q.days, start: w.start.toISOString(), end: w.end.toISOString() },
    filters: { channel: q.channel ?? null, product_id: q.product_id !== undefined ? String(q.product_id) : null },
    totals: {
      ...funnel(counts.find((r) => r.kind === 'total'), moneyOf('total')),
      unattributed_orders: orders?.unattributed ?? 0,
      excluded_orders: orders?.excluded ?? 0,
    },
    by_channel: counts
      .filter((r) => r.kind === 'channel')
      .sort((a, b) => b.clicks - a.clicks || (a.channel ?? '').localeCompare(b.channel ?? ''))
      .map((r) => ({ channel: r.channel, ...funnel(r, moneyOf('channel', (m) => m.channel === r.channel)) })),
    by_product: {
      product_count: products[0]?.product_count ?? 0,
      limit: MAX_REPORT_PRODUCTS,
      products: products.map((r) => ({ product_id: String(r.product_id), ...funnel(r, moneyOf('product', (m) => m.product_id === r.product_id)) })),
    },
    roi_definition: ROI_DEFINITION,
    currency_policy: 'per_currency',
    join_rules: JOIN_RULES,
  };
}
