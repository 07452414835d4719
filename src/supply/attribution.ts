import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect';
import { fromMinorUnits } from '../money';
import { JOIN_RULES, resolvedOrdersSql, type Window } from './attribution-orders';
import type { z } from 'zod';
import type { AttributionQuery as AttributionQuerySchema } from '../schemas/reports';

/**
 * GET /v1/report/attribution (docs/REPORTS.md): impressions (issued cards), clicks (`/r/` redirects),
 * match tokens, payment authorizations and attributed orders with their GMV, commission and ROI over a
 * window, in total, per channel and per product. Two statements aggregate inside the database (clicks
 * mostly from the daily rollup) and return only grouped rows.
 */

export const MAX_REPORT_PRODUCTS = 50;

export const ROI_DEFINITION = 'roi = gmv / commission: GMV earned per unit of commission paid, per currency; null when the commission is 0';

/** The report's query, as GET /v1/report/attribution parses it. */
export type AttributionQuery = z.infer<typeof AttributionQuerySchema>;

/**
 * Whose traffic a report counts (docs/TENANCY.md): the whole platform for an operator (supply key),
 * else one developer's: the cards of its match sessions and recommendations, their clicks, its match
 * tokens and payment authorizations, and the orders those earned.
 */
export type ReportScope = { platform: true } | { developerId: string | null };

/** One group of the funnel (total, a channel or a product): counts from the sources, then the orders. */
interface CountRow {
  gc: number;
  gp: number;
  channel: string | null;
  product_id: number | null;
  impressions: number;
  clicks: number;
  match_tokens: number;
  payment_authorizations: number;
  attributed_orders: number;
  usd_gmv: number;
}

interface MoneyRow {
  kind: 'total' | 'channel' | 'product';
  channel: string | null;
  product_id: number | null;
  currency: string;
  attributed_orders: number;
  gmv_cents: string;
  commission_cents: string;
}

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

export const reportWindow = (days: number, now = new Date()): Window => ({ start: new Date(now.getTime() - days * DAY_MS), end: now });

function filtersSql(q: AttributionQuery, channelCol: string, productCol: string): RawBuilder<unknown> {
  const parts = [
    ...(q.channel !== undefined ? [sql`${sql.ref(channelCol)} = ${q.channel}`] : []),
    ...(q.product_id !== undefined ? [sql`${sql.ref(productCol)} = ${q.product_id}`] : []),
  ];
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

/** Clicks per channel and product: whole UTC days from the rollup, the partial first and last day from rec_clicks. */
function clickFactsSql(w: Window, q: AttributionQuery, scope: ReportScope): RawBuilder<unknown> {
  if (!('platform' in scope)) {
    // The daily rollup does not keep whose card was clicked: a developer's clicks are counted from rec_clicks.
    return sql`
      select k.channel, k.product_id, 0 as impressions, count(*) as clicks, 0 as tokens, 0 as auths
      from rec_clicks k join rec_cards c on c.rec_id = k.rec_id join match_sessions s on s.match_session_id = c.match_session_id
      where k.clicked_at >= ${w.start} and k.clicked_at < ${w.end} and s.developer_id = ${scope.developerId} ${filtersSql(q, 'k.channel', 'k.product_id')}
      group by 1, 2`;
  }
  const firstDay = new Date(Math.ceil(w.start.getTime() / DAY_MS) * DAY_MS);
  const lastDay = new Date(Math.floor(w.end.getTime() / DAY_MS) * DAY_MS);
  const raw = (from: Date, to: Date) => sql`
    select channel, product_id, 0 as impressions, count(*) as clicks, 0 as tokens, 0 as auths
    from rec_clicks where clicked_at >= ${from} and clicked_at < ${to} ${filtersSql(q, 'channel', 'product_id')}
    group by 1, 2`;
  return sql`
    ${raw(w.start, firstDay)}
    union all
    select nullif(channel, ''), product_id, 0, sum(clicks), 0, 0
    from rec_click_daily where day >= ${firstDay.toISOString().slice(0, 10)}::date and day < ${lastDay.toISOString().slice(0, 10)}::date ${filtersSql(q, 'channel', 'product_id')}
    group by 1, 2
    union all
    ${raw(lastDay, w.end)}`;
}

/** A group's key: `${gc}${gp}|channel|product`, the shape both statements group by. */
const groupKey = (r: { gc: number; gp: number; channel: string | null; product_id: number | null }) =>
  `${r.gc}${r.gp}|${r.channel ?? '\u0000'}|${r.product_id ?? ''}`;

/**
 * Runs one report statement with JIT off and 64 MB work_mem: the statements are large for the
 * planner's cost model but run in well under a second, so JIT compilation alone would add more than
 * it saves, and the hash aggregates fit in memory instead of spilling.
 */
function reportStatement<R>(db: Db, statement: RawBuilder<R>): Promise<R[]> {
  return db.transaction().execute(async (trx) => {
    await sql`set local jit = off`.execute(trx);
    await sql`set local work_mem = '64MB'`.execute(trx);
    return (await statement.execute(trx)).rows;
  });
}

/** Impressions, clicks, match tokens and payment authorizations, in total, per channel and per product. */
function funnelSourcesSql(w: Window, q: AttributionQuery, scope: ReportScope): RawBuilder<CountRow> {
  const range = (col: string) => sql`${sql.ref(col)} >= ${w.start} and ${sql.ref(col)} < ${w.end}`;
  const own = 'platform' in scope ? null : scope.developerId;
  const cards =
    'platform' in scope
      ? sql`select channel, product_id, count(*) as impressions, 0 as clicks, 0 as tokens, 0 as auths
            from rec_cards where ${range('created_at')} ${filtersSql(q, 'channel', 'product_id')}
            group by 1, 2`
      : sql`select c.channel, c.product_id, count(*) as impressions, 0 as clicks, 0 as tokens, 0 as auths
            from rec_cards c join match_sessions s on s.match_session_id = c.match_session_id
            where ${range('c.created_at')} and s.developer_id = ${own} ${filtersSql(q, 'c.channel', 'c.product_id')}
            group by 1, 2`;
  const ownTokens = 'platform' in scope ? sql`` : sql`and t.developer_id = ${own}`;
  return sql<CountRow>`
    with facts as (
      ${cards}
      union all
      ${clickFactsSql(w, q, scope)}
      union all
      select i.source_channel, p.product_id, 0, 0, count(*), 0
      from match_tokens t join proposals p on p.proposal_id = t.proposal_id join intents i on i.intent_id = t.intent_id
      where ${range('t.issued_at')} ${ownTokens} ${filtersSql(q, 'i.source_channel', 'p.product_id')}
      group by 1, 2
      union all
      select i.source_channel, p.product_id, 0, 0, 0, count(*)
      from payment_authorizations a join match_tokens t on t.match_token_id = a.match_token_id
        join proposals p on p.proposal_id = t.proposal_id join intents i on i.intent_id = t.intent_id
      where a.status = 'authorized' and ${range('a.authorized_at')} ${ownTokens} ${filtersSql(q, 'i.source_channel', 'p.product_id')}
      group by 1, 2
    )
    select grouping(channel) as gc, grouping(product_id) as gp, channel, product_id,
           sum(impressions)::int as impressions, sum(clicks)::int as clicks, sum(tokens)::int as match_tokens,
           sum(auths)::int as payment_authorizations, 0 as attributed_orders, 0 as usd_gmv
    from facts
    group by grouping sets ((), (channel), (product_id))`;
}

interface OrderRow {
  kind: 'count' | 'money' | 'orders';
  gc: number;
  gp: number;
  channel: string | null;
  product_id: number | null;
  currency: string | null;
  n: number;
  usd_gmv: string | null;
  gmv_cents: string | null;
  commission_cents: string | null;
  unattributed: number | null;
  excluded: number | null;
}

/**
 * The orders, resolved once: attributed counts and USD GMV per group (they rank the products), the
 * money per currency of the same groups, and the unattributed and excluded order counts.
 */
function ordersSql(w: Window, q: AttributionQuery, scope: ReportScope): RawBuilder<OrderRow> {
  // A developer sees the orders its touchpoints earned; an unattributed order is nobody's, so only operators count those.
  const resolved =
    'platform' in scope ? resolvedOrdersSql(w) : sql`select * from (${resolvedOrdersSql(w)}) x where developer_id = ${scope.developerId}`;
  return sql<OrderRow>`
    with orders as materialized (${resolved}),
    attributed as materialized (
      select * from orders where via is not null and not excluded ${filtersSql(q, 'channel', 'product_id')}
    )
    select 'count' as kind, grouping(channel) as gc, grouping(product_id) as gp, channel, product_id, null as currency,
           count(*)::int as n, coalesce(sum(amount_cents) filter (where currency = 'USD'), 0) as usd_gmv,
           null::bigint as gmv_cents, null::bigint as commission_cents, null::int as unattributed, null::int as excluded
    from attributed
    group by grouping sets ((), (channel), (product_id))
    union all
    select 'money', grouping(channel), grouping(product_id), channel, product_id, currency, count(*)::int, null,
           sum(amount_cents), sum(commission_cents), null, null
    from attributed
    group by grouping sets ((currency), (channel, currency), (product_id, currency))
    union all
    -- Unattributed orders have no channel, so only the product filter (the product the order names) applies.
    select 'orders', 1, 1, null, null, null, 0, null, null, null,
           (count(*) filter (where via is null and not excluded ${q.product_id !== undefined ? sql`and product_id = ${q.product_id}` : sql``}))::int,
           (count(*) filter (where excluded ${filtersSql(q, 'channel', 'product_id')}))::int
    from orders`;
}

/**
 * The funnel sources and the orders are two statements run at once on two connections (the orders'
 * resolution and the sources' aggregation each take about half the time), merged here.
 */
async function reportRows(db: Db, w: Window, q: AttributionQuery, scope: ReportScope) {
  const [sources, orderRows] = await Promise.all([
    reportStatement(db, funnelSourcesSql(w, q, scope)),
    reportStatement(db, ordersSql(w, q, scope)),
  ]);
  const groups = new Map(sources.map((r) => [groupKey(r), { ...r, usd_gmv: 0 }]));
  for (const o of orderRows.filter((r) => r.kind === 'count')) {
    const key = groupKey(o);
    const g = groups.get(key) ?? {
      gc: o.gc,
      gp: o.gp,
      channel: o.channel,
      product_id: o.product_id,
      impressions: 0,
      clicks: 0,
      match_tokens: 0,
      payment_authorizations: 0,
      attributed_orders: 0,
      usd_gmv: 0,
    };
    g.attributed_orders = o.n;
    g.usd_gmv = Number(o.usd_gmv);
    groups.set(key, g);
  }
  const all = [...groups.values()];
  const byProduct = all
    .filter((g) => g.gc === 1 && g.gp === 0)
    .sort(
      (a, b) =>
        b.usd_gmv - a.usd_gmv ||
        b.attributed_orders - a.attributed_orders ||
        b.clicks - a.clicks ||
        (a.product_id ?? Infinity) - (b.product_id ?? Infinity),
    );
  const top = byProduct.slice(0, MAX_REPORT_PRODUCTS);
  const topIds = new Set(top.map((p) => p.product_id));
  const money: MoneyRow[] = orderRows
    .filter((r) => r.kind === 'money' && (r.gp === 1 || topIds.has(r.product_id)))
    .map((r) => ({
      kind: r.gc === 0 ? 'channel' : r.gp === 0 ? 'product' : 'total',
      channel: r.channel,
      product_id: r.product_id,
      currency: r.currency!,
      attributed_orders: r.n,
      gmv_cents: r.gmv_cents!,
      commission_cents: r.commission_cents!,
    }));
  const orders = orderRows.find((r) => r.kind === 'orders');
  return {
    total: all.find((g) => g.gc === 1 && g.gp === 1),
    channels: all.filter((g) => g.gc === 0 && g.gp === 1),
    products: top,
    productCount: byProduct.length,
    money,
    unattributed: orders?.unattributed ?? 0,
    excluded: orders?.excluded ?? 0,
  };
}

function revenue(rows: MoneyRow[]): Revenue[] {
  return [...rows]
    .sort((a, b) => a.currency.localeCompare(b.currency))
    .map((r) => {
      const gmv = Number(r.gmv_cents);
      const commission = Number(r.commission_cents);
      return {
        currency: r.currency,
        attributed_orders: r.attributed_orders,
        gmv: fromMinorUnits(gmv, r.currency),
        gmv_cents: gmv,
        commission: fromMinorUnits(commission, r.currency),
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

export async function attributionReport(db: Db, q: AttributionQuery, scope: ReportScope, now = new Date()) {
  const w = reportWindow(q.days, now);
  const r = await reportRows(db, w, q, scope);
  const moneyOf = (kind: MoneyRow['kind'], match: (m: MoneyRow) => boolean = () => true) =>
    r.money.filter((m) => m.kind === kind && match(m));
  return {
    scope: 'platform' in scope ? ('platform' as const) : ('developer' as const),
    window: { days: q.days, start: w.start.toISOString(), end: w.end.toISOString() },
    filters: { channel: q.channel ?? null, product_id: q.product_id !== undefined ? String(q.product_id) : null },
    totals: {
      ...funnel(r.total, moneyOf('total')),
      unattributed_orders: r.unattributed,
      excluded_orders: r.excluded,
    },
    by_channel: r.channels
      .sort((a, b) => b.clicks - a.clicks || (a.channel ?? '').localeCompare(b.channel ?? ''))
      .map((c) => ({
        channel: c.channel,
        ...funnel(
          c,
          moneyOf('channel', (m) => m.channel === c.channel),
        ),
      })),
    by_product: {
      product_count: r.productCount,
      limit: MAX_REPORT_PRODUCTS,
      products: r.products.map((p) => ({
        product_id: String(p.product_id),
        ...funnel(
          p,
          moneyOf('product', (m) => m.product_id === p.product_id),
        ),
      })),
    },
    roi_definition: ROI_DEFINITION,
    currency_policy: 'per_currency',
    join_rules: JOIN_RULES,
  };
}
