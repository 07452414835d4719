import type { Defaulted, Json, NullableTimestamp, Timestamp } from './schema';
import type { z } from 'zod';
import type { AuditEntry as AuditEntrySchema, CheckoutMode as CheckoutModeSchema } from '../schemas/checkout';
import type { CheckoutPlan, Rejection } from '../checkout/checkouts';

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

export interface CheckoutTables {
  agentic_checkouts: AgenticCheckoutsTable;
}
