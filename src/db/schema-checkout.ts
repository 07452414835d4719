import type { Defaulted, Json, NullableTimestamp, Timestamp } from './columns';
import type { z } from 'zod';
import type { AuditEntry as AuditEntrySchema, CheckoutMode as CheckoutModeSchema, CheckoutPlan, Rejection } from '../schemas/checkout';
import type { MerchantSession } from '../schemas/merchant-session';

/** Agentic checkout (docs/CHECKOUT.md): written by the agenticCheckout workflow's activities. */

export type CheckoutStatus = 'awaiting_confirmation' | 'confirming' | 'confirmed' | 'handed_off' | 'expired' | 'failed';

/** How a confirm completes (migration 0021, src/checkout/seller.ts). */
export type CheckoutMode = z.infer<typeof CheckoutModeSchema>;

/** One step of a checkout's audit trail (the `audit_trail` JSONB column). */
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export interface AgenticCheckoutsTable {
  checkout_id: string;
  status: CheckoutStatus;
  buyer_agent_id: string;
  intent_id: string;
  proposal_id: string;
  match_token_id: string;
  merchant_id: string;
  checkout_mode: Defaulted<CheckoutMode>;
  /** merchant_redirect: the attributable `/r/<rec_id>` link, once handed off. */
  continue_url: string | null;
  /** Plan total in minor units. */
  amount_cents: number;
  currency: string;
  plan: Json<CheckoutPlan>;
  shipping_address: Json<Record<string, unknown> | null>;
  metadata: Json;
  consent: Json<Record<string, unknown> | null>;
  payment_authorization_id: string | null;
  /** A UCP/ACP merchant's checkout session (src/checkout/merchant-session.ts); null for other merchants. */
  merchant_session: Json<StoredMerchantSession | null>;
  /** The order a UCP/ACP merchant placed and its events since (status, tracking). */
  merchant_order: Json<StoredMerchantOrder | null>;
  /** The buyer's contact details the plan was given (UCP/ACP merchants need them). */
  buyer: Json<Record<string, unknown> | null>;
  /** The payment credential ({handler, token}) the first confirm named, sealed; null: none named. */
  payment_credential_sealed: string | null;
  receipt: Json<Record<string, unknown> | null>;
  audit_trail: Json<AuditEntry[]>;
  failure: Json<Rejection | null>;
  workflow_id: string;
  /** The owner (docs/TENANCY.md): the developer of the checkout's intent. */
  developer_id: string | null;
  expires_at: Timestamp;
  confirmed_at: NullableTimestamp;
  expired_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A UCP/ACP merchant's session as stored on the checkout (src/checkout/merchant-session.ts). */
export type StoredMerchantSession = MerchantSession & { opened_at: string };

export interface OrderTracking {
  carrier: string | null;
  number: string | null;
  url: string | null;
}

/** The order a protocol merchant placed and what its events said since. */
export interface StoredMerchantOrder {
  order_id: string;
  order_url: string | null;
  status: string;
  tracking: OrderTracking[];
  updated_at: string;
}

export interface MerchantOrderEventsTable {
  merchant_id: string;
  event_id: string;
  checkout_id: string | null;
  protocol: string;
  status: string;
  body: Json;
  received_at: Defaulted<Date>;
}

/** Checkouts whose caller got 503 no_worker before the plan ran (migration 0033): a plan refuses them. */
export interface CheckoutAbandonmentsTable {
  checkout_id: string;
  reason: string;
  abandoned_at: Defaulted<Date>;
}

export interface CheckoutTables {
  agentic_checkouts: AgenticCheckoutsTable;
  merchant_order_events: MerchantOrderEventsTable;
  checkout_abandonments: CheckoutAbandonmentsTable;
}
