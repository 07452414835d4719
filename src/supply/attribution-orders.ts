import { sql, type RawBuilder } from 'kysely';
import { THREE_DECIMAL_CURRENCIES, ZERO_DECIMAL_CURRENCIES } from '../money';

/**
 * Orders as the attribution report and the settlement preview see them (docs/REPORTS.md, join rules):
 * platform-affiliate orders (one per source and order id, the latest imported row winning) plus the
 * confirmed agentic checkouts no affiliate order names, each resolved to the touchpoint that earned
 * it. One SQL fragment, so both operations attribute, and charge commission, identically.
 */

export interface Window {
  start: Date;
  end: Date;
}

/** Statuses that undo a sale: such orders are never attributed, GMV or commission. */
export const EXCLUDED_ORDER_STATUSES = ['refunded', 'cancelled'] as const;

export const JOIN_RULES = [
  'window: orders by ordered_at (agentic checkouts by confirmed_at) in [start, end); touchpoints (cards, tokens, checkouts) must be issued in the same window',
  'dedupe: one order per (source, order_id); the latest imported row wins (its status is the newest)',
  'excluded: refunded and cancelled orders are never attributed and carry no GMV or commission',
  'rec_id: an order whose rec_id names an issued card is attributed to the card (channel and product from the card)',
  'match_token: else an order whose match_token_id names a token is attributed to it (product from its proposal, channel from the intent source_channel)',
  'checkout: else an order whose checkout_id names a confirmed agentic checkout is attributed to it (product from its proposal, channel from the intent)',
  'agentic_checkout: a confirmed agentic checkout no affiliate order names is an order of its own, attributed to its match token',
  'once: an order carrying several references is counted once, under the first rule that matches',
  'unattributed: an order in the window whose references are unknown or issued outside the window counts as unattributed_orders',
  'commission: the order commission_cents when the platform reports it, else the proposal commission_plan (rate x amount, or flat), else 0',
  'currency: amounts are reported per currency, never converted; products rank by USD GMV',
];

const sqlList = (codes: ReadonlySet<string>) => sql.raw(`(${[...codes].map((c) => `'${c}'`).join(',')})`);
const zeroDecimal = sqlList(ZERO_DECIMAL_CURRENCIES);
const threeDecimal = sqlList(THREE_DECIMAL_CURRENCIES);

/** A commission_plan (`{rate}` share of the sale, or `{flat}` in major units) applied to an amount in minor units; null without a usable plan. */
export const planCommissionSql = (plan: RawBuilder<unknown>, amountCents: RawBuilder<unknown>, currency: RawBuilder<unknown>) => sql<
  number | null
>`
  case
    when jsonb_typeof(${plan}->'rate') = 'number' then round((${plan}->>'rate')::numeric * ${amountCents})::bigint
    when jsonb_typeof(${plan}->'flat') = 'number' then round((${plan}->>'flat')::numeric * (case when ${currency} in ${zeroDecimal} then 1 when ${currency} in ${threeDecimal} then 1000 else 100 end))::bigint
  end`;

/**
 * Every order in the window with: order_ref, status, excluded, via (null when unattributed), channel,
 * product_id (the resolved one, else the product the order names), proposal_id, merchant_id,
 * amount_cents, currency, developer_id (whose touchpoint earned it), commission_cents and
 * commission_basis.
 */
export function resolvedOrdersSql(w: Window): RawBuilder<unknown> {
  const inWindow = (col: string) => sql`${sql.ref(col)} >= ${w.start} and ${sql.ref(col)} < ${w.end}`;
  const excluded = sql.raw(`(${EXCLUDED_ORDER_STATUSES.map((s) => `'${s}'`).join(',')})`);
  const plan = sql.raw('commission_plan');
  return sql`
    with o as (
      select distinct on (source, order_id) source, order_id, rec_id, match_token_id, checkout_id, product_id,
             amount_cents, currency, commission_cents, status
      from affiliate_orders
      where ${inWindow('ordered_at')}
      order by source, order_id, id desc
    ),
    r as (
      select o.source || ':' || o.order_id as order_ref, o.status, o.status in ${excluded} as excluded,
             case when c.rec_id is not null then 'rec_id' when t.match_token_id is not null then 'match_token'
                  when k.checkout_id is not null then 'checkout' end as via,
             case when c.rec_id is not null then c.channel else i.source_channel end as channel,
             coalesce(c.product_id, p.product_id, o.product_id) as product_id,
             p.proposal_id, coalesce(k.merchant_id, p.merchant_agent_id) as merchant_id,
             o.amount_cents, o.currency, o.commission_cents as reported_cents, p.commission_plan,
             -- The developer whose touchpoint earned the order (docs/TENANCY.md): a developer's report counts these.
             case when c.rec_id is not null then cs.developer_id when t.match_token_id is not null then t.developer_id
                  when k.checkout_id is not null then k.developer_id end as developer_id
      from o
      left join rec_cards c on c.rec_id = o.rec_id and ${inWindow('c.created_at')}
      left join match_sessions cs on cs.match_session_id = c.match_session_id
      left join match_tokens t on t.match_token_id = o.match_token_id and ${inWindow('t.issued_at')}
      left join agentic_checkouts k on k.checkout_id = o.checkout_id and k.status = 'confirmed' and ${inWindow('k.created_at')}
      -- A card from a match session earned its commission for the session's offer of that product.
      left join lateral (
        select e->>'proposal_id' as proposal_id
        from match_sessions s, jsonb_array_elements(coalesce(s.ranked_top, s.ranked_proposals)) e
        where c.match_session_id is not null and s.match_session_id = c.match_session_id and (e->>'product_id')::int = c.product_id
        order by (e->>'rank')::int
        limit 1
      ) cp on true
      left join proposals p on p.proposal_id = coalesce(t.proposal_id, k.proposal_id, cp.proposal_id)
      left join intents i on i.intent_id = coalesce(t.intent_id, k.intent_id)
      union all
      select 'agentic_checkout:' || k.checkout_id, 'completed', false, 'agentic_checkout', i.source_channel, p.product_id,
             p.proposal_id, k.merchant_id, k.amount_cents, k.currency, null, p.commission_plan, k.developer_id
      from agentic_checkouts k
      join proposals p on p.proposal_id = k.proposal_id
      join intents i on i.intent_id = k.intent_id
      where k.status = 'confirmed' and ${inWindow('k.confirmed_at')}
        and not exists (select 1 from affiliate_orders a where a.checkout_id = k.checkout_id)
    )
    select order_ref, status, excluded, via, channel, product_id, proposal_id, merchant_id, amount_cents, currency, developer_id,
           case when excluded or via is null then 0 else coalesce(reported_cents, ${planCommissionSql(plan, sql.raw('amount_cents'), sql.raw('currency'))}, 0) end as commission_cents,
           case when reported_cents is not null then 'reported' when ${planCommissionSql(plan, sql.raw('amount_cents'), sql.raw('currency'))} is not null then 'proposal_plan' else 'none' end as commission_basis
    from r`;
}
