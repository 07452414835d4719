import type { MerchantProtocol } from './merchants';

/**
 * A protocol merchant's checkout session as an adapter answers it (src/protocols/merchant-session.ts)
 * and the checkout stores it (`agentic_checkouts.merchant_session`, src/checkout/merchant-session.ts):
 * the merchant's own totals, in minor units.
 */

export interface SessionTotals {
  subtotal_minor: number;
  shipping_minor: number;
  tax_minor: number;
  discount_minor: number;
  total_minor: number;
}

export interface SessionMessage {
  type: string;
  code: string | null;
  content: string;
}

export interface MerchantSession {
  protocol: Exclude<MerchantProtocol, 'gateway'>;
  session_id: string;
  /** The protocol's own status word (UCP `ready_for_complete`, ACP `ready_for_payment`, …). */
  status: string;
  currency: string;
  totals: SessionTotals;
  line_items: Array<{ item_id: string; title: string; quantity: number; unit_amount_minor: number; amount_minor: number }>;
  /** The fulfillment option chosen by the rule, when the merchant offered any. */
  fulfillment: { option_id: string; title: string; amount_minor: number } | null;
  /** Payment handlers the session accepts (`id` and `name`). */
  payment_handlers: Array<{ id: string; name: string }>;
  /** The merchant's page to finish on, when it gave one. */
  continue_url: string | null;
  messages: SessionMessage[];
}
