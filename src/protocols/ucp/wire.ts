import { z } from 'zod';
import type { SessionAddress, SessionBuyer, SessionRefusal } from '../merchant-session';
import type { MerchantSession, SessionMessage, SessionTotals } from '../../schemas/merchant-session';
import type { UcpBusinessSummary, UcpVersion } from './discovery';

/**
 * The checkout wire shapes of both UCP versions the gateway speaks, and their reading into the
 * protocol-neutral session types. Where the versions differ (checkout.json, payment, fulfillment,
 * ucp metadata):
 *
 * | | 2026-01-11 | 2026-04-08 |
 * |---|---|---|
 * | currency | sent by the platform (`currency`) | the business decides; the platform hints `context.currency` |
 * | update body | carries the checkout `id`, `currency` and `payment` | carries neither |
 * | fulfillment method on update | `id` required (methods are introduced on create) | `id` optional |
 * | payment handlers | `payment.handlers[]` (`id`, `name`) | `ucp.payment_handlers{name: [{id}]}` |
 * | complete body | `{payment_data: <card instrument>, risk_signals}` | `{payment: {instruments: [..]}}` |
 * | discounts in totals | positive amounts | negative amounts |
 * | "no resource" answers | 4xx `{code, detail}` (reference merchants) | HTTP 200, `ucp.status: "error"` + messages |
 */

const total = z.looseObject({ type: z.string(), amount: z.number().int(), display_text: z.string().optional() });
const message = z.looseObject({
  type: z.string(),
  code: z.string().optional(),
  content: z.string().optional(),
  severity: z.string().optional(),
  path: z.string().optional(),
});
const option = z.looseObject({ id: z.string(), title: z.string().optional(), totals: z.array(total).optional() });
const group = z.looseObject({
  id: z.string(),
  line_item_ids: z.array(z.string()).optional(),
  options: z.array(option).optional(),
  selected_option_id: z.string().nullish(),
});
const destination = z.looseObject({ id: z.string().optional() });
const method = z.looseObject({
  id: z.string().optional(),
  type: z.string(),
  line_item_ids: z.array(z.string()).optional(),
  destinations: z.array(destination).optional(),
  selected_destination_id: z.string().nullish(),
  groups: z.array(group).optional(),
});

export const WireCheckout = z.looseObject({
  ucp: z.looseObject({ version: z.string().optional() }).optional(),
  id: z.string().min(1),
  status: z.string(),
  currency: z.string(),
  line_items: z.array(
    z.looseObject({
      id: z.string(),
      item: z.looseObject({ id: z.string(), title: z.string().optional(), price: z.number().int().optional() }),
      quantity: z.number().int(),
      totals: z.array(total).optional(),
    }),
  ),
  buyer: z.looseObject({ email: z.string().optional() }).optional(),
  totals: z.array(total),
  messages: z.array(message).optional(),
  continue_url: z.string().optional(),
  fulfillment: z.looseObject({ methods: z.array(method).optional() }).optional(),
  order: z.looseObject({ id: z.string(), permalink_url: z.string().optional() }).optional(),
  payment: z.looseObject({ handlers: z.array(z.looseObject({ id: z.string(), name: z.string() })).optional() }).optional(),
});
export type WireCheckout = z.infer<typeof WireCheckout>;
export type WireMethod = z.infer<typeof method>;
type WireMessage = z.infer<typeof message>;

// ---- requests -----------------------------------------------------------------------------------

function splitName(full: string): { first_name: string; last_name?: string } {
  const parts = full.trim().split(/\s+/);
  const first = parts.shift() ?? '';
  return parts.length ? { first_name: first, last_name: parts.join(' ') } : { first_name: first };
}

export function wireBuyer(v: UcpVersion, b: SessionBuyer): Record<string, unknown> {
  return {
    ...splitName(b.full_name),
    // The first release also has `full_name`; the current one composes first and last.
    ...(v === '2026-01-11' ? { full_name: b.full_name } : {}),
    email: b.email,
    ...(b.phone ? { phone_number: b.phone } : {}),
  };
}

export function wireAddress(v: UcpVersion, a: SessionAddress): Record<string, unknown> {
  return {
    street_address: a.line1,
    ...(a.line2 ? { extended_address: a.line2 } : {}),
    address_locality: a.city,
    address_region: a.region,
    postal_code: a.postal_code,
    address_country: a.country,
    ...(a.name ? { ...splitName(a.name), ...(v === '2026-01-11' ? { full_name: a.name } : {}) } : {}),
  };
}

const norm = (s: unknown) => (typeof s === 'string' ? s.trim().toLowerCase().replace(/\s+/g, ' ') : '');

/** Whether a business's destination is the buyer's address (street, postal code and country agree). */
export function sameAddress(dest: Record<string, unknown>, a: SessionAddress): boolean {
  return (
    norm(dest.street_address) === norm(a.line1) &&
    norm(dest.postal_code) === norm(a.postal_code) &&
    norm(dest.address_country) === norm(a.country)
  );
}

// ---- responses -----------------------------------------------------------------------------------

/** A UCP envelope that carries no resource (2026-04-08 `ucp.status: "error"`). */
export function isErrorEnvelope(body: unknown): body is { messages?: WireMessage[]; continue_url?: string } {
  const b = body as { ucp?: { status?: unknown }; id?: unknown } | null;
  return (
    !!b &&
    typeof b === 'object' &&
    (b.ucp?.status === 'error' || (b.id === undefined && Array.isArray((b as { messages?: unknown }).messages)))
  );
}

/** The amount of an option: its `total` entry, or the sum of its entries when it has none. */
export function optionAmount(o: z.infer<typeof option>): number {
  const t = (o.totals ?? []).find((x) => x.type === 'total');
  return t ? t.amount : (o.totals ?? []).reduce((s, x) => s + x.amount, 0);
}

/** The option the rule picks in a group: the cheapest (the first of equals). */
export function cheapestOption(g: z.infer<typeof group>): z.infer<typeof option> | null {
  let best: z.infer<typeof option> | null = null;
  for (const o of g.options ?? []) if (!best || optionAmount(o) < optionAmount(best)) best = o;
  return best;
}

function sumOf(totals: Array<{ type: string; amount: number }>, ...types: string[]): number {
  return totals.filter((t) => types.includes(t.type)).reduce((s, t) => s + t.amount, 0);
}

export function sessionTotals(co: WireCheckout): SessionTotals {
  const t = co.totals;
  const totalEntry = t.find((x) => x.type === 'total');
  return {
    subtotal_minor: sumOf(t, 'subtotal'),
    shipping_minor: sumOf(t, 'fulfillment', 'shipping'),
    tax_minor: sumOf(t, 'tax'),
    // Discounts are negative from 2026-04-08 on and positive before: the session reports their size.
    discount_minor: t.filter((x) => x.type === 'discount' || x.type === 'items_discount').reduce((s, x) => s + Math.abs(x.amount), 0),
    total_minor: totalEntry ? totalEntry.amount : t.reduce((s, x) => s + x.amount, 0),
  };
}

/** Payment handlers a checkout answer names, else the ones discovery found. */
export function sessionHandlers(co: WireCheckout, business: UcpBusinessSummary): Array<{ id: string; name: string }> {
  const registry = (co.ucp as { payment_handlers?: unknown } | undefined)?.payment_handlers;
  if (registry && typeof registry === 'object') {
    const out = Object.entries(registry as Record<string, unknown>).flatMap(([name, entries]) =>
      Array.isArray(entries) ? entries.filter((e) => typeof e?.id === 'string').map((e) => ({ id: e.id as string, name })) : [],
    );
    if (out.length) return out;
  }
  if (co.payment?.handlers?.length) return co.payment.handlers.map((h) => ({ id: h.id, name: h.name }));
  return business.payment_handlers.map((h) => ({ id: h.id, name: h.name }));
}

export function shippingMethods(co: WireCheckout): WireMethod[] {
  return (co.fulfillment?.methods ?? []).filter((m) => m.type === 'shipping');
}

function chosenFulfillment(co: WireCheckout): MerchantSession['fulfillment'] {
  const picked = shippingMethods(co).flatMap((m) =>
    (m.groups ?? []).flatMap((g) => {
      const o = (g.options ?? []).find((x) => x.id === g.selected_option_id);
      return o ? [o] : [];
    }),
  );
  if (!picked.length) return null;
  return {
    option_id: picked.map((o) => o.id).join(','),
    title: picked.map((o) => o.title ?? o.id).join(' + '),
    amount_minor: picked.reduce((s, o) => s + optionAmount(o), 0),
  };
}

export function sessionMessages(messages: WireMessage[] | undefined): SessionMessage[] {
  return (messages ?? []).map((m) => ({ type: m.type, code: m.code ?? null, content: m.content ?? '' }));
}

export function toSession(co: WireCheckout, business: UcpBusinessSummary): MerchantSession {
  return {
    protocol: 'ucp',
    session_id: co.id,
    status: co.status,
    currency: co.currency,
    totals: sessionTotals(co),
    line_items: co.line_items.map((li) => {
      const lt = li.totals ?? [];
      const price = li.item.price ?? 0;
      const amount = lt.find((x) => x.type === 'total')?.amount ?? lt.find((x) => x.type === 'subtotal')?.amount ?? price * li.quantity;
      return {
        item_id: li.item.id,
        title: li.item.title ?? li.item.id,
        quantity: li.quantity,
        unit_amount_minor: price,
        amount_minor: amount,
      };
    }),
    fulfillment: chosenFulfillment(co),
    payment_handlers: sessionHandlers(co, business),
    continue_url: co.continue_url ?? null,
    messages: sessionMessages(co.messages),
  };
}

// ---- refusals ------------------------------------------------------------------------------------

const PAYMENT_CODES = new Set([
  'payment_declined',
  'payment_failed',
  'card_declined',
  'insufficient_funds',
  'fraud_detected',
  'invalid_payment',
  'payment_required',
  'unknown_token',
]);
const STOCK_CODES = new Set(['out_of_stock', 'item_unavailable', 'insufficient_stock', 'sold_out']);
const MISSING_CODES = new Set(['missing', 'field_required', 'required', 'invalid', 'invalid_field']);

/** The request field a message path points at, in the port's vocabulary (`buyer.email`, `shipping_address`). */
function missingField(path: string | undefined): string | null {
  if (!path) return null;
  const p = path.replace(/^\$\.?/, '');
  if (/^buyer\.email/.test(p)) return 'buyer.email';
  if (/^buyer\.(first_name|last_name|full_name)/.test(p)) return 'buyer.full_name';
  if (/^buyer\.phone/.test(p)) return 'buyer.phone';
  if (/^buyer\b/.test(p)) return 'buyer';
  if (/^fulfillment\b.*(destination|address)/.test(p) || /^(shipping|fulfillment)_address/.test(p)) return 'shipping_address';
  return null;
}

/** Classifies the merchant's error messages (or protocol error) into a gateway refusal. */
export function refusalFrom(
  messages: Array<{ code?: string | null; content?: string; path?: string; type?: string }>,
  status: number | null,
): SessionRefusal {
  const errors = messages.filter((m) => m.type === undefined || m.type === 'error');
  const codes = errors.map((m) => (m.code ?? '').toLowerCase());
  const text =
    errors
      .map((m) => m.content || m.code || '')
      .filter(Boolean)
      .join('; ') || (status ? `the business answered HTTP ${status}` : 'the business refused');
  if (codes.some((c) => STOCK_CODES.has(c))) return { code: 'out_of_stock', message: text, status };
  if (codes.some((c) => PAYMENT_CODES.has(c)) || status === 402) return { code: 'payment_declined', message: text, status };
  const missing = [
    ...new Set(
      errors
        .filter((m) => MISSING_CODES.has((m.code ?? '').toLowerCase()))
        .map((m) => missingField(m.path))
        .filter((x): x is string => !!x),
    ),
  ];
  if (missing.length) return { code: 'buyer_details_missing', message: text, status, missing };
  return { code: 'merchant_refused', message: text, status };
}

/** The messages of a 4xx answer in either shape (UCP envelope, `{code, content}`, or the reference merchants' `{code, detail}`). */
export function messagesOfError(body: unknown): Array<{ code?: string; content?: string; path?: string; type?: string }> {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  if (Array.isArray(b.messages)) return b.messages as Array<{ code?: string; content?: string }>;
  const detail =
    typeof b.detail === 'string'
      ? b.detail
      : typeof b.content === 'string'
        ? b.content
        : typeof b.message === 'string'
          ? b.message
          : undefined;
  const code = typeof b.code === 'string' ? b.code : undefined;
  return code || detail ? [{ type: 'error', code, content: detail }] : [];
}
