import { z } from 'zod';
import { isoDateTime, text } from './common';
import { currencyCode } from './intents';

/** GET /v1/report/attribution and POST /v1/billing/settlement-preview (docs/REPORTS.md). */

const days = z.coerce.number().int().min(1).max(365).default(30).meta({ description: 'Window in days ending now, 1..365, default 30.' });

export const AttributionQuery = z.object({
  days,
  channel: text(100)
    .optional()
    .meta({ description: 'Only this channel (the card channel, or the intent source_channel for tokens and checkouts).' }),
  product_id: z
    .string()
    // Exactly what the pattern says (1..999,999,999, no leading zero), so a schema-valid id is never a 400.
    .regex(/^[1-9]\d{0,8}$/, 'a catalog product id (digits)')
    .transform(Number)
    .optional()
    .meta({ description: 'Only this catalog product (integer as a string).' }),
});

const Revenue = z
  .object({
    currency: z.string(),
    attributed_orders: z.number().int(),
    gmv: z.number().meta({ description: 'Major units.' }),
    gmv_cents: z.number().int().meta({ description: 'Minor units.' }),
    commission: z.number(),
    commission_cents: z.number().int(),
    roi: z.number().nullable().meta({ description: 'GMV per unit of commission paid (gmv / commission); null when the commission is 0.' }),
  })
  .meta({ id: 'AttributionRevenue' });

const funnel = {
  impressions: z.number().int().meta({ description: 'Cards issued in the window (rec_cards).' }),
  clicks: z.number().int().meta({ description: 'CTA clicks recorded by GET /r/{recId} in the window.' }),
  ctr: z.number().nullable().meta({ description: 'clicks / impressions; null without impressions.' }),
  match_tokens: z.number().int(),
  payment_authorizations: z.number().int(),
  attributed_orders: z.number().int(),
  revenue: z.array(Revenue).meta({ description: 'Attributed GMV, commission and ROI per currency (never converted).' }),
};

export const AttributionReport = z
  .object({
    scope: z.enum(['platform', 'developer']).meta({
      description:
        "Whose traffic is counted: the whole platform (supply key) or the calling API key's developer only (its cards, clicks, tokens and the orders they earned).",
    }),
    window: z.object({ days: z.number().int(), start: isoDateTime, end: isoDateTime }),
    filters: z.object({ channel: z.string().nullable(), product_id: z.string().nullable() }),
    totals: z.object({
      ...funnel,
      unattributed_orders: z
        .number()
        .int()
        .meta({ description: 'Orders in the window whose references are unknown or issued outside it (only the product filter applies).' }),
      excluded_orders: z.number().int().meta({ description: 'Refunded or cancelled orders in the window.' }),
    }),
    by_channel: z.array(z.object({ channel: z.string().nullable(), ...funnel })),
    by_product: z.object({
      product_count: z.number().int().meta({ description: 'Products with any activity in the window.' }),
      limit: z.number().int(),
      products: z
        .array(z.object({ product_id: z.string(), ...funnel }))
        .meta({ description: 'Top products by USD GMV, then attributed orders, then clicks.' }),
    }),
    roi_definition: z.string(),
    currency_policy: z.literal('per_currency'),
    join_rules: z.array(z.string()).meta({ description: 'How clicks, tokens and orders are joined to cards and proposals.' }),
  })
  .meta({ id: 'AttributionReport' });

const CommissionPlanInput = z.strictObject({ rate: z.number().min(0).max(1).optional(), flat: z.number().min(0).max(1e6).optional() });

export const SettlementOrder = z
  .strictObject({
    order_id: text(200).optional(),
    amount: z.number().min(0).max(1e9).meta({ description: 'Order amount in major units.' }),
    currency: currencyCode
      .optional()
      .meta({ description: 'Defaults to the preview currency; other currencies are skipped, never converted.' }),
    commission: z
      .number()
      .min(0)
      .max(1e9)
      .optional()
      .meta({ description: 'Commission already agreed for this order (major units); wins over any plan.' }),
    commission_plan: CommissionPlanInput.optional().meta({
      description: "This order's plan: rate (share, 0..1) or flat (major units); else the merchant's metadata.billing.commission_plan.",
    }),
  })
  .meta({ id: 'SettlementOrder' });

export const SettlementPreviewBody = z
  .strictObject({
    merchant_id: text(128),
    attributed_orders: z
      .array(SettlementOrder)
      .max(10_000)
      .optional()
      .meta({ description: "Orders to charge; absent → the merchant's attributed orders in the window." }),
    qualified_leads: z
      .number()
      .int()
      .min(0)
      .max(1e7)
      .optional()
      .meta({ description: 'Absent → counted from the database over the window.' }),
    accepted_matches: z
      .number()
      .int()
      .min(0)
      .max(1e7)
      .optional()
      .meta({ description: 'Absent → counted from the database over the window.' }),
    days: z.number().int().min(1).max(365).default(30).meta({ description: 'Window in days ending now, 1..365, default 30.' }),
    currency: currencyCode.optional().meta({ description: "Default: the merchant's metadata.billing.currency, else BILLING_CURRENCY." }),
  })
  .meta({ id: 'SettlementPreviewRequest' });

const LineItem = z.object({
  type: z.enum(['commission', 'qualified_leads', 'accepted_matches']),
  order_id: z.string().nullable(),
  quantity: z.number().int(),
  order_amount_cents: z.number().int().nullable(),
  unit_amount_cents: z.number().int().nullable(),
  amount_cents: z.number().int(),
  amount: z.number(),
  basis: z.string().meta({
    description:
      'Where the amount came from (order_commission, order_plan, reported, proposal_plan, merchant_plan, none, default_fee, merchant_billing, remaining_orders).',
  }),
});

export const SettlementPreview = z
  .object({
    preview: z.literal(true).meta({ description: 'Always true: nothing is stored or billed.' }),
    merchant_id: z.string(),
    currency: z.string(),
    window: z.object({ days: z.number().int(), start: isoDateTime, end: isoDateTime }),
    sources: z.object({
      attributed_orders: z.enum(['request', 'database']),
      qualified_leads: z.enum(['request', 'database']),
      accepted_matches: z.enum(['request', 'database']),
    }),
    line_items: z.array(LineItem),
    skipped_orders: z.array(z.object({ order_id: z.string().nullable(), currency: z.string(), reason: z.literal('currency_mismatch') })),
    totals: z.object({
      attributed_orders: z.number().int(),
      gmv_cents: z.number().int(),
      commission_cents: z.number().int(),
      qualified_leads_cents: z.number().int(),
      accepted_matches_cents: z.number().int(),
      total_cents: z.number().int(),
      total: z.number(),
      currency: z.string(),
    }),
    definitions: z.object({ qualified_lead: z.string(), accepted_match: z.string() }),
  })
  .meta({ id: 'SettlementPreview' });
