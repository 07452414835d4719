import { sql } from 'kysely';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { fromMinorUnits, toMinorUnits } from '../money';
import { merchantNotFound } from '../registry/merchants';
import { resolvedOrdersSql, type Window } from './attribution-orders';
import { reportWindow } from './attribution';

/**
 * POST /v1/billing/settlement-preview (docs/REPORTS.md): what a merchant would be billed for a window —
 * commission on its attributed orders, a fee per qualified lead and per accepted match. Read-only:
 * it computes, it stores nothing and bills nothing.
 */

export interface CommissionPlanInput {
  rate?: number;
  flat?: number;
}

export interface OrderInput {
  order_id?: string;
  amount: number;
  currency?: string;
  commission?: number;
  commission_plan?: CommissionPlanInput;
}

export interface SettlementInput {
  merchant_id: string;
  attributed_orders?: OrderInput[];
  qualified_leads?: number;
  accepted_matches?: number;
  days: number;
  currency?: string;
}

type CommissionBasis = 'order_commission' | 'order_plan' | 'reported' | 'proposal_plan' | 'merchant_plan' | 'none';

interface BillingOverride {
  currency?: string;
  qualified_lead_fee_cents?: number;
  accepted_match_fee_cents?: number;
  commission_plan?: CommissionPlanInput;
}

interface OrderLine {
  order_id: string | null;
  amount_cents: number;
  currency: string;
  commission_cents: number;
  basis: CommissionBasis;
}

export const QUALIFIED_LEAD_DEFINITION =
  "distinct intents in the window for which one of the merchant's proposals was in a match session's ranked top or received a `pick` decision event";
export const ACCEPTED_MATCH_DEFINITION =
  "the merchant's match tokens accepted in the window (acceptance_state accepted, payment_authorized or consumed)";

const nonNegativeInt = (v: unknown) => (Number.isInteger(v) && (v as number) >= 0 ? (v as number) : undefined);

function planCommission(plan: CommissionPlanInput | undefined, amountCents: number, currency: string): number | undefined {
  if (typeof plan?.rate === 'number') return Math.round(plan.rate * amountCents);
  if (typeof plan?.flat === 'number') return toMinorUnits(plan.flat, currency);
  return undefined;
}

/** The merchant's `metadata.billing`, keeping only well-formed members (operators write it by hand). */
function billingOverride(metadata: unknown): BillingOverride {
  const b = (metadata as { billing?: Record<string, unknown> } | null)?.billing;
  if (!b || typeof b !== 'object') return {};
  const plan = b.commission_plan as CommissionPlanInput | undefined;
  return {
    currency: typeof b.currency === 'string' && /^[A-Z]{3}$/.test(b.currency) ? b.currency : undefined,
    qualified_lead_fee_cents: nonNegativeInt(b.qualified_lead_fee_cents),
    accepted_match_fee_cents: nonNegativeInt(b.accepted_match_fee_cents),
    commission_plan: plan && typeof plan === 'object' ? plan : undefined,
  };
}

function givenOrderLine(o: OrderInput, currency: string, merchantPlan: CommissionPlanInput | undefined): OrderLine {
  const cur = o.currency ?? currency;
  const amountCents = toMinorUnits(o.amount, cur);
  const [commission, basis]: [number | undefined, CommissionBasis] =
    o.commission !== undefined
      ? [toMinorUnits(o.commission, cur), 'order_commission']
      : o.commission_plan
        ? [planCommission(o.commission_plan, amountCents, cur), 'order_plan']
        : [planCommission(merchantPlan, amountCents, cur), 'merchant_plan'];
  return {
    order_id: o.order_id ?? null,
    amount_cents: amountCents,
    currency: cur,
    commission_cents: commission ?? 0,
    basis: commission === undefined ? 'none' : basis,
  };
}

async function storedOrderLines(
  db: Db,
  merchantId: string,
  w: Window,
  merchantPlan: CommissionPlanInput | undefined,
): Promise<OrderLine[]> {
  const { rows } = await sql<{
    order_ref: string;
    amount_cents: number;
    currency: string;
    commission_cents: string;
    commission_basis: 'reported' | 'proposal_plan' | 'none';
  }>`
    with orders as (${resolvedOrdersSql(w)})
    select order_ref, amount_cents, currency, commission_cents, commission_basis
    from orders
    where merchant_id = ${merchantId} and via is not null and not excluded
    order by order_ref`.execute(db);
  return rows.map((r) => {
    const fromMerchantPlan = r.commission_basis === 'none' ? planCommission(merchantPlan, r.amount_cents, r.currency) : undefined;
    return {
      order_id: r.order_ref,
      amount_cents: r.amount_cents,
      currency: r.currency,
      commission_cents: fromMerchantPlan ?? Number(r.commission_cents),
      basis: fromMerchantPlan !== undefined ? 'merchant_plan' : r.commission_basis,
    };
  });
}

async function qualifiedLeads(db: Db, merchantId: string, w: Window): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(distinct intent_id)::int as n from (
      select intent_id from match_sessions
      where created_at >= ${w.start} and created_at < ${w.end}
        and coalesce(ranked_top, ranked_proposals) @> jsonb_build_array(jsonb_build_object('merchant_agent_id', ${merchantId}::text))
      union all
      select intent_id from decision_events
      where merchant_id = ${merchantId} and event_type = 'pick' and intent_id is not null
        and created_at >= ${w.start} and created_at < ${w.end}
    ) leads`.execute(db);
  return rows[0]?.n ?? 0;
}

async function acceptedMatches(db: Db, merchantId: string, w: Window): Promise<number> {
  const row = await db
    .selectFrom('match_tokens as t')
    .innerJoin('proposals as p', 'p.proposal_id', 't.proposal_id')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('p.merchant_agent_id', '=', merchantId)
    .where('t.acceptance_state', 'in', ['accepted', 'payment_authorized', 'consumed'])
    .where('t.accepted_at', '>=', w.start)
    .where('t.accepted_at', '<', w.end)
    .executeTakeFirst();
  return row?.n ?? 0;
}

/** Bounds the reply: a preview lists each order it charges up to here, the rest as one summed line. */
export const MAX_ORDER_LINES = 1000;

function rest(orders: OrderLine[], currency: string) {
  if (!orders.length) return [];
  const cents = orders.reduce((s, o) => s + o.commission_cents, 0);
  const gmv = orders.reduce((s, o) => s + o.amount_cents, 0);
  return [
    {
      type: 'commission' as const,
      order_id: null,
      quantity: orders.length,
      order_amount_cents: gmv,
      unit_amount_cents: null,
      amount_cents: cents,
      amount: fromMinorUnits(cents, currency),
      basis: 'remaining_orders',
    },
  ];
}

export async function settlementPreview(
  db: Db,
  config: Pick<Config, 'BILLING_QUALIFIED_LEAD_FEE_CENTS' | 'BILLING_ACCEPTED_MATCH_FEE_CENTS' | 'BILLING_CURRENCY'>,
  input: SettlementInput,
  now = new Date(),
) {
  const merchant = await db
    .selectFrom('merchants')
    .select(['merchant_id', 'metadata'])
    .where('merchant_id', '=', input.merchant_id)
    .executeTakeFirst();
  if (!merchant) throw merchantNotFound(input.merchant_id);
  const billing = billingOverride(merchant.metadata);
  const currency = input.currency ?? billing.currency ?? config.BILLING_CURRENCY;
  const w = reportWindow(input.days, now);

  const [orders, leads, matches] = await Promise.all([
    input.attributed_orders
      ? input.attributed_orders.map((o) => givenOrderLine(o, currency, billing.commission_plan))
      : storedOrderLines(db, merchant.merchant_id, w, billing.commission_plan),
    input.qualified_leads ?? qualifiedLeads(db, merchant.merchant_id, w),
    input.accepted_matches ?? acceptedMatches(db, merchant.merchant_id, w),
  ]);
  const billable = orders.filter((o) => o.currency === currency);
  const leadFee = billing.qualified_lead_fee_cents ?? config.BILLING_QUALIFIED_LEAD_FEE_CENTS;
  const matchFee = billing.accepted_match_fee_cents ?? config.BILLING_ACCEPTED_MATCH_FEE_CENTS;
  const commissionCents = billable.reduce((s, o) => s + o.commission_cents, 0);
  const leadsCents = leads * leadFee;
  const matchesCents = matches * matchFee;
  const total = commissionCents + leadsCents + matchesCents;
  const source = (given: unknown) => (given === undefined ? 'database' : 'request');

  return {
    preview: true as const,
    merchant_id: merchant.merchant_id,
    currency,
    window: { days: input.days, start: w.start.toISOString(), end: w.end.toISOString() },
    sources: {
      attributed_orders: source(input.attributed_orders),
      qualified_leads: source(input.qualified_leads),
      accepted_matches: source(input.accepted_matches),
    },
    line_items: [
      ...billable.slice(0, MAX_ORDER_LINES).map((o) => ({
        type: 'commission' as const,
        order_id: o.order_id,
        quantity: 1,
        order_amount_cents: o.amount_cents,
        unit_amount_cents: o.commission_cents,
        amount_cents: o.commission_cents,
        amount: fromMinorUnits(o.commission_cents, currency),
        basis: o.basis as string,
      })),
      ...rest(billable.slice(MAX_ORDER_LINES), currency),
      {
        type: 'qualified_leads' as const,
        order_id: null,
        quantity: leads,
        order_amount_cents: null,
        unit_amount_cents: leadFee,
        amount_cents: leadsCents,
        amount: fromMinorUnits(leadsCents, currency),
        basis: billing.qualified_lead_fee_cents !== undefined ? 'merchant_billing' : 'default_fee',
      },
      {
        type: 'accepted_matches' as const,
        order_id: null,
        quantity: matches,
        order_amount_cents: null,
        unit_amount_cents: matchFee,
        amount_cents: matchesCents,
        amount: fromMinorUnits(matchesCents, currency),
        basis: billing.accepted_match_fee_cents !== undefined ? 'merchant_billing' : 'default_fee',
      },
    ],
    skipped_orders: orders
      .filter((o) => o.currency !== currency)
      .map((o) => ({ order_id: o.order_id, currency: o.currency, reason: 'currency_mismatch' as const })),
    totals: {
      attributed_orders: billable.length,
      gmv_cents: billable.reduce((s, o) => s + o.amount_cents, 0),
      commission_cents: commissionCents,
      qualified_leads_cents: leadsCents,
      accepted_matches_cents: matchesCents,
      total_cents: total,
      total: fromMinorUnits(total, currency),
      currency,
    },
    definitions: { qualified_lead: QUALIFIED_LEAD_DEFINITION, accepted_match: ACCEPTED_MATCH_DEFINITION },
  };
}
