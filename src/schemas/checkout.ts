import { z } from 'zod';
import { isoDateTime } from './common';

/** Agentic checkout bodies (spec 4.3, DESIGN §6.1) and the checkout record (docs/CHECKOUT.md). */

const freeObject = z.record(z.string(), z.unknown());
const id = (max = 100) => z.string().trim().min(1).max(max);
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
  .meta({ description: 'ISO 4217 currency code; compared case-insensitively.' });
const amount = z.number().positive().max(10_000_000).meta({ description: 'Major units (12.34); stored as integer minor units.' });

export const CheckoutCreateBody = z
  .object({
    buyer_agent_id: id(200).meta({ description: 'The shopper-side agent that buys.' }),
    intent_id: id(),
    proposal_id: id(),
    match_token_id: id().meta({ description: 'A match token (accepted) naming the proposal.' }),
    amount: amount.meta({ description: 'Expected total: proposal price plus shipping from its shipping_commitment, in major units.' }),
    currency,
    shipping_address: freeObject.optional(),
    metadata: freeObject.optional(),
  })
  .meta({ id: 'AgenticCheckoutRequest' });
export type CheckoutCreateBody = z.infer<typeof CheckoutCreateBody>;

export const CheckoutConfirmBody = z
  .object({
    consent: z
      .object({
        granted: z.boolean().meta({ description: 'Must be true: explicit buyer-agent consent.' }),
        statement: z.string().max(2000).optional().meta({ description: 'What the buyer agreed to, in words (required).' }),
        granted_at: z.iso.datetime({ offset: true }).optional(),
      })
      .meta({ description: 'Explicit buyer-agent consent.' }),
    match_token: z.string().min(1).max(8000).meta({ description: 'The signed_token (compact JWS) of the match token the checkout was planned with.' }),
    proposal_id: id(),
    amount: amount.meta({ description: 'Must equal the plan total, in major units.' }),
    currency,
  })
  .meta({ id: 'AgenticCheckoutConfirmRequest' });
export type CheckoutConfirmBody = z.infer<typeof CheckoutConfirmBody>;

export const CheckoutIdParams = z.object({ checkoutId: z.string().min(1).max(100) });

const minor = z.number().int();

export const CheckoutPlan = z
  .object({
    checkout_id: z.string(),
    intent_id: z.string(),
    proposal_id: z.string(),
    match_token_id: z.string(),
    merchant_id: z.string(),
    buyer_agent_id: z.string(),
    line_items: z.array(z.object({ product_id: z.number().int(), title: z.string(), quantity: z.number().int(), unit_amount_minor: minor, amount_minor: minor })),
    shipping: z.object({ amount_minor: minor, commitment: freeObject }).meta({ description: "Shipping from the proposal's shipping_commitment (free: true → 0; else its cost)." }),
    totals: z.object({ subtotal_minor: minor, shipping_minor: minor, total_minor: minor }).meta({ description: 'Amounts in minor units (cents).' }),
    amount: z.number().meta({ description: 'total_minor in major units.' }),
    currency: z.string(),
    shipping_address: freeObject.nullable(),
    expires_at: isoDateTime,
  })
  .meta({ id: 'AgenticCheckoutPlan' });

export const AuditEntry = z
  .object({ step: z.string(), at: isoDateTime, outcome: z.string(), detail: freeObject.optional() })
  .meta({ id: 'CheckoutAuditEntry' });

export const CheckoutRecord = z
  .object({
    checkout_id: z.string(),
    status: z.enum(['awaiting_confirmation', 'confirming', 'confirmed', 'expired', 'failed']),
    buyer_agent_id: z.string(),
    intent_id: z.string(),
    proposal_id: z.string(),
    match_token_id: z.string(),
    merchant_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    plan: CheckoutPlan,
    expires_at: isoDateTime,
    shipping_address: freeObject.nullable(),
    metadata: freeObject,
    payment_authorization_id: z.string().nullable(),
    receipt: freeObject.nullable().meta({ description: 'Merchant handoff receipt: status, merchant_response summary, handed_off_at.' }),
    audit_trail: z.array(AuditEntry).meta({ description: 'Every step of the checkout, oldest first.' }),
    failure: freeObject.nullable(),
    workflow_id: z.string().meta({ description: 'The Temporal workflow (checkout-<checkout_id>); search attribute CheckoutId.' }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    confirmed_at: isoDateTime.nullable(),
    expired_at: isoDateTime.nullable(),
  })
  .meta({ id: 'AgenticCheckout' });

export const CheckoutEnvelope = z.object({ checkout: CheckoutRecord }).meta({ id: 'AgenticCheckoutEnvelope' });
