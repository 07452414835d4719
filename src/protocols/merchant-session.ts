import type { MerchantProtocol } from '../schemas/merchants';
import type { MerchantSession } from '../schemas/merchant-session';

/**
 * What the checkout needs from a merchant that sells through a commerce protocol (UCP business, ACP
 * seller): a session opened with the merchant's own item ids that answers the merchant's authoritative
 * totals, completed with a payment credential, or canceled. Each protocol adapter
 * (src/protocols/ucp/, src/protocols/acp/) implements `MerchantSessionAdapter`; the checkout
 * (src/checkout/) knows only these types, never a protocol's wire format.
 *
 * Errors: an adapter RETURNS a refusal (`ok: false`) for an answer the same request would get again
 * (a 4xx with the merchant's messages, a declined payment, out of stock); it THROWS for anything that
 * may pass on a retry (5xx, 408/429, timeout, unreachable), so the activity's retry sends the same
 * request again under the same Idempotency-Key.
 *
 * The session an adapter answers is stored with the checkout, so its shape is with the other stored
 * shapes: src/schemas/merchant-session.ts.
 */

export interface SessionBuyer {
  full_name: string;
  email: string;
  phone?: string;
}

export interface SessionAddress {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  region: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** The merchant as the adapter calls it (endpoint, the credential the seller issued, what discovery found). */
export interface SessionMerchant {
  merchant_id: string;
  /** UCP: the business's base URL; ACP: the seller's API base URL. */
  endpoint: string;
  /** ACP: the bearer credential the seller issued to agents (opened); null when none. */
  credential: string | null;
  /** UCP: the discovered profile the registration stored (negotiated version, REST endpoint, handlers). */
  profile: Record<string, unknown> | null;
}

export interface SessionLineItem {
  /** The merchant's own item id (feed `id`, UCP item id, ACP item id). */
  item_id: string;
  title: string;
  quantity: number;
  /** What the gateway's proposal said one costs, in minor units (the merchant's totals win). */
  unit_amount_minor: number;
}

/** The rule that picks a fulfillment option when the merchant offers several. */
export type ShippingRule = 'cheapest';

export interface OpenSessionInput {
  /** The gateway checkout: every request's Idempotency-Key is derived from it and the step. */
  checkout_id: string;
  currency: string;
  items: SessionLineItem[];
  buyer: SessionBuyer | null;
  shipping_address: SessionAddress | null;
  shipping_rule: ShippingRule;
}

export interface SessionRefusal {
  /** Gateway error code: `merchant_refused`, `payment_declined`, `out_of_stock`, `price_changed`, `buyer_details_missing`, … */
  code: string;
  /** The merchant's own message(s). */
  message: string;
  /** The merchant's HTTP status, when it answered one. */
  status: number | null;
  /** For `buyer_details_missing`: the request fields that are missing (`buyer.email`, `shipping_address`, …). */
  missing?: string[];
}

export type OpenSessionResult = { ok: true; session: MerchantSession } | { ok: false; refusal: SessionRefusal; session_id: string | null };

export interface PaymentCredential {
  /** A handler `id` or `name` from the merchant's profile / session. */
  handler: string;
  token: string;
}

export interface CompleteSessionInput {
  checkout_id: string;
  session_id: string;
  credential: PaymentCredential;
  /** The total the buyer consented to: a session whose total differs is refused as `price_changed`, not completed. */
  expected_total_minor: number;
  currency: string;
  buyer: SessionBuyer | null;
}

export type CompleteSessionResult =
  | { ok: true; order_id: string; order_url: string | null; status: string; session: MerchantSession }
  /** The merchant needs the buyer on its own page (UCP `requires_escalation`, ACP's equivalent). */
  | { ok: false; escalation: { continue_url: string; message: string } }
  | { ok: false; refusal: SessionRefusal };

export interface MerchantSessionAdapter {
  protocol: Exclude<MerchantProtocol, 'gateway'>;
  /** Creates the session (idempotency key `<checkout_id>:create`) and sets buyer and fulfillment (`<checkout_id>:update[:n]`). */
  open(merchant: SessionMerchant, input: OpenSessionInput): Promise<OpenSessionResult>;
  /** Reads the session again (no side effect). */
  get(merchant: SessionMerchant, sessionId: string): Promise<MerchantSession>;
  /** Completes the session with the credential (idempotency key `<checkout_id>:complete`): the order is placed once. */
  complete(merchant: SessionMerchant, input: CompleteSessionInput): Promise<CompleteSessionResult>;
  /** Cancels the session (idempotency key `<checkout_id>:cancel`); a session already canceled or completed is not an error. */
  cancel(merchant: SessionMerchant, input: { checkout_id: string; session_id: string }): Promise<void>;
}

/** The plan request fields a protocol merchant needs before a session can be opened (empty: none missing). */
export function missingBuyerDetails(buyer: Partial<SessionBuyer> | null | undefined, address: Partial<SessionAddress> | null | undefined) {
  const missing: string[] = [];
  if (!buyer) missing.push('buyer');
  else for (const k of ['full_name', 'email'] as const) if (!buyer[k]) missing.push(`buyer.${k}`);
  if (!address) missing.push('shipping_address');
  else
    for (const k of ['line1', 'city', 'region', 'postal_code', 'country'] as const) if (!address[k]) missing.push(`shipping_address.${k}`);
  return missing;
}
