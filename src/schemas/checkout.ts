import { z } from 'zod';
import { atLeastOneMinorUnit, isoDateTime, money, text, token } from './common';
import { EMAIL } from './console';

/** Agentic checkout bodies (docs/CHECKOUT.md) and the checkout record (docs/CHECKOUT.md). */

const freeObject = z.record(z.string(), z.unknown());
const id = (max = 100) => text(max);
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
  .meta({ description: 'ISO 4217 currency code; compared case-insensitively.' });

/** Address and contact lines: text() publishes the not-blank rule it checks before trimming. */
const line = (max: number) => text(max);

export const ShippingAddress = z
  .strictObject({
    name: line(200).optional(),
    line1: line(200),
    line2: line(200).optional(),
    city: line(100),
    region: line(100).optional().meta({ description: 'State, province or region. UCP and ACP merchants need it.' }),
    postal_code: line(20).optional().meta({ description: 'UCP and ACP merchants need it.' }),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
      .meta({ description: 'ISO 3166-1 alpha-2.' }),
  })
  .meta({
    id: 'ShippingAddress',
    description:
      'Where the order ships. A merchant that sells through UCP or ACP needs line1, city, region, postal_code and country: a plan for one without them answers 400 `buyer_details_missing` naming the fields.',
  });

export const Buyer = z
  .strictObject({
    full_name: line(200),
    // The pattern the document publishes is the one checked (zod's own email check is another).
    email: z.string().max(320).regex(EMAIL, 'not an email address'),
    // Blanks around it are dropped; inside, the number starts and ends with a digit, `(`, `)` or `-`.
    phone: token(String.raw`\+?[0-9()-][0-9 ()-]{2,30}[0-9()-]`, 'must be a phone number').optional(),
  })
  .meta({
    id: 'CheckoutBuyer',
    description:
      "The buyer's contact details, passed to a UCP or ACP merchant's checkout session (it needs them: without, 400 `buyer_details_missing`).",
  });

export const PaymentCredential = z
  .strictObject({
    handler: line(200).meta({ description: "A payment handler `id` or `name` from the merchant's profile (e.g. `mock_payment_handler`)." }),
    token: z.string().min(1).max(8000).meta({ description: "The handler's instrument token (e.g. a PSP's delegated payment token)." }),
  })
  .meta({
    id: 'PaymentCredential',
    description:
      "UCP/ACP merchants: the payment instrument the merchant's session is completed with. Without it the deployment's configured handler is used (PROTOCOL_PAYMENT_HANDLER, with the gateway's payment authorization as the token), if any.",
  });

export const CheckoutCreateBody = z
  .strictObject({
    buyer_agent_id: id(200).meta({ description: 'The shopper-side agent that buys.' }),
    intent_id: id(),
    proposal_id: id(),
    match_token_id: id().meta({ description: 'A match token (accepted) naming the proposal.' }),
    amount: money(10_000_000, 'Expected total: proposal price plus shipping from its shipping_commitment, in major units.'),
    currency,
    shipping_address: ShippingAddress.optional(),
    buyer: Buyer.optional(),
    metadata: freeObject.optional(),
  })
  .superRefine(atLeastOneMinorUnit('amount'))
  .meta({ id: 'AgenticCheckoutRequest' });
export type CheckoutCreateBody = z.infer<typeof CheckoutCreateBody>;

export const CheckoutConfirmBody = z
  .strictObject({
    consent: z
      .strictObject({
        granted: z.boolean().meta({ description: 'Must be true: explicit buyer-agent consent.' }),
        statement: z.string().max(2000).optional().meta({ description: 'What the buyer agreed to, in words (required).' }),
        granted_at: z.iso.datetime({ offset: true }).optional(),
      })
      .meta({ description: 'Explicit buyer-agent consent.' }),
    match_token: z
      .string()
      .min(1)
      .max(8000)
      .meta({ description: 'The signed_token (compact JWS) of the match token the checkout was planned with.' }),
    proposal_id: id(),
    amount: money(10_000_000, 'Must equal the plan total, in major units.'),
    currency,
    payment_credential: PaymentCredential.optional(),
  })
  .superRefine(atLeastOneMinorUnit('amount'))
  .meta({ id: 'AgenticCheckoutConfirmRequest' });
export type CheckoutConfirmBody = z.infer<typeof CheckoutConfirmBody>;

export const CheckoutIdParams = z.object({ checkoutId: z.string().min(1).max(100) });

const minor = z.number().int();

export const CheckoutMode = z.enum(['agent_handoff', 'merchant_redirect']).meta({
  id: 'CheckoutMode',
  description:
    'How the confirm completes, chosen with the plan from the seller. `agent_handoff`: the seller has an agent endpoint; confirm authorizes payment and hands the order to it (status `confirmed`, receipt). `merchant_redirect`: the seller has no agent endpoint (e.g. a catalog product of the reserved `gateway-catalog` merchant); the gateway authorizes no payment, and confirm answers status `handed_off` with `continue_url`, the attributable `/r/{rec_id}` link to the product page where the buyer completes the purchase.',
});

export const NextAction = z
  .object({
    action: z
      .enum([
        'confirm_checkout',
        'poll_checkout',
        'follow_order',
        'continue_on_merchant_page',
        'plan_new_checkout',
        'accept_match_again',
        'choose_another_proposal',
        'search_again',
      ])
      .meta({
        description:
          "confirm_checkout: the plan waits for the buyer's consent; poll_checkout: the confirm is under way; follow_order: the merchant has the order; continue_on_merchant_page: the buyer finishes at continue_url. After a failed or expired checkout: plan_new_checkout: the match token can still be used (a voided payment put it back), plan again with it; accept_match_again: the token is spent or expired, accept the proposal again; choose_another_proposal: the match session ranked other proposals that can still be bought (`proposal_ids`); search_again: nothing left to buy from this session.",
      }),
    description: z.string().meta({ description: 'What to do, in the same words over REST, MCP and A2A.' }),
    how: z.string().optional().meta({ description: 'The calls that do it (REST paths here; MCP tools and A2A skills there).' }),
    match_token_id: z.string().optional(),
    until: isoDateTime.optional().meta({ description: 'plan_new_checkout: the token can be used until then.' }),
    match_session_id: z.string().optional(),
    proposal_id: z.string().optional().meta({ description: 'accept_match_again: the proposal to accept again.' }),
    proposal_ids: z
      .array(z.string())
      .optional()
      .meta({ description: 'choose_another_proposal: the proposals of the session that can still be bought, best ranked first.' }),
    continue_url: z.string().optional(),
  })
  .meta({
    id: 'CheckoutNextAction',
    description:
      "What the buyer agent can do next with a checkout, computed from its state as it is now (the checkout, its match token and proposal, and what else its match session ranked). The same steps, in the same words, in MCP's get_checkout and confirm_checkout and in A2A tasks.",
  });

export const CheckoutFailure = z
  .object({
    status: z.number().int().meta({ description: 'The HTTP status the failing confirm answered.' }),
    code: z.string(),
    message: z.string(),
    next_action: NextAction.optional().meta({
      description: 'The first next step when the checkout failed (next_steps has them as of now).',
    }),
    merchant_reason: z.string().nullable().optional().meta({
      description:
        'The merchant\'s own reason when it refused the order (e.g. "Sorry, this item just sold out."): plain text, at most 500 characters, control characters removed. Null when it gave none.',
    }),
  })
  .meta({
    id: 'CheckoutFailure',
    description: 'Why a checkout failed (after any payment authorization was voided) and what the agent can do next.',
  });

/**
 * A business check that failed: the API answers `{error: code, message}` (plus `next_action` when
 * known) with the status of checkoutFailureStatus(code) (src/checkout/failures.ts). `status` is that
 * status as stored with a failed checkout (`agentic_checkouts.failure`); the workflow's own rejections
 * carry none.
 */
export type Rejection = Omit<z.infer<typeof CheckoutFailure>, 'status'> & { status?: number };

export const CheckoutPlan = z
  .object({
    checkout_id: z.string(),
    intent_id: z.string(),
    proposal_id: z.string(),
    match_token_id: z.string(),
    merchant_id: z.string().meta({ description: 'The seller.' }),
    checkout_mode: CheckoutMode,
    rec_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'merchant_redirect: the card the buyer continues through; attribution counts the order that carries it.' }),
    merchant_protocol: z.enum(['gateway', 'ucp', 'acp']).nullable().optional().meta({
      description:
        "agent_handoff: how the order is handed over: `gateway` (the merchant agent's webhook), `ucp` or `acp` (the merchant's own checkout session; the totals are the merchant's).",
    }),
    merchant_session: z
      .object({ protocol: z.enum(['ucp', 'acp']), session_id: z.string(), status: z.string() })
      .optional()
      .meta({ description: "ucp/acp: the merchant's checkout session the plan's totals come from." }),
    buyer_agent_id: z.string(),
    line_items: z.array(
      z.object({
        product_id: z.number().int(),
        external_id: z.string().nullable().optional().meta({
          description:
            "The merchant's own id of the product (its feed id, as GET /v1/merchant/{merchantId}/products lists it); null for a product that did not come from a feed. Absent from plans made before it was added.",
        }),
        title: z.string(),
        quantity: z.number().int(),
        unit_amount_minor: minor,
        amount_minor: minor,
      }),
    ),
    shipping: z
      .object({ amount_minor: minor, commitment: freeObject })
      .meta({ description: "Shipping from the proposal's shipping_commitment (free: true → 0; else its cost)." }),
    totals: z
      .object({
        subtotal_minor: minor,
        shipping_minor: minor,
        tax_minor: minor.optional(),
        discount_minor: minor.optional(),
        total_minor: minor,
      })
      .meta({ description: "Amounts in minor units (cents). ucp/acp: the merchant's own totals, tax included." }),
    amount: z.number().meta({ description: 'total_minor in major units.' }),
    currency: z.string(),
    shipping_address: freeObject.nullable(),
    expires_at: isoDateTime,
  })
  .meta({ id: 'AgenticCheckoutPlan' });

/**
 * The plan a checkout is confirmed against (`agentic_checkouts.plan`). `checkout_mode` is chosen from the
 * seller (src/checkout/seller.ts) and never changes; `amount` is the total in major units, what the
 * confirm body's `amount` must equal.
 */
export type CheckoutPlan = z.infer<typeof CheckoutPlan>;

export const AuditEntry = z
  .object({ step: z.string(), at: isoDateTime, outcome: z.string(), detail: freeObject.optional() })
  .meta({ id: 'CheckoutAuditEntry' });

export const CheckoutRecord = z
  .object({
    checkout_id: z.string(),
    status: z.enum(['awaiting_confirmation', 'confirming', 'confirmed', 'handed_off', 'expired', 'failed']).meta({
      description:
        'confirmed: agent_handoff, the merchant agent took the order. handed_off: merchant_redirect, the buyer continues at continue_url. failed: see failure (a payment authorization is voided first).',
    }),
    buyer_agent_id: z.string(),
    intent_id: z.string(),
    proposal_id: z.string(),
    match_token_id: z.string(),
    merchant_id: z.string(),
    checkout_mode: CheckoutMode,
    continue_url: z.string().nullable().meta({
      description:
        'merchant_redirect, once handed_off: `${PUBLIC_BASE_URL}/r/{rec_id}`, the recorded click redirect to the product page (the rec_id rides along, so the merchant order is attributed).',
    }),
    amount: z.number(),
    currency: z.string(),
    plan: CheckoutPlan,
    expires_at: isoDateTime,
    shipping_address: freeObject.nullable(),
    metadata: freeObject,
    payment_authorization_id: z.string().nullable().meta({
      description: 'agent_handoff only (merchant_redirect authorizes nothing). Its status is voided when the handoff failed for good.',
    }),
    buyer: freeObject.nullable().meta({ description: 'The buyer details the plan was given.' }),
    merchant_session: z
      .object({
        protocol: z.enum(['ucp', 'acp']),
        session_id: z.string(),
        status: z.string(),
        fulfillment: z.object({ option_id: z.string(), title: z.string(), amount_minor: minor }).nullable(),
        payment_handlers: z.array(z.object({ id: z.string(), name: z.string() })),
        continue_url: z.string().nullable(),
        messages: z.array(z.object({ type: z.string(), code: z.string().nullable(), content: z.string() })),
      })
      .nullable()
      .meta({
        description: "ucp/acp merchants: the merchant's checkout session (its fulfillment option, the payment handlers it accepts).",
      }),
    order: z
      .object({
        order_id: z.string(),
        order_url: z.string().nullable(),
        status: z
          .string()
          .meta({ description: "placed, then what the merchant's order events said: shipped, delivered, canceled, refunded, …" }),
        tracking: z.array(z.object({ carrier: z.string().nullable(), number: z.string().nullable(), url: z.string().nullable() })),
        updated_at: isoDateTime,
      })
      .nullable()
      .meta({ description: 'ucp/acp merchants: the order the merchant placed, kept current by its order events.' }),
    receipt: freeObject.nullable().meta({
      description:
        'agent_handoff: status `order_placed` (the merchant took the order), merchant_response summary, handed_off_at. merchant_redirect (or a protocol merchant that needs the buyer on its page): status `handed_off`, continue_url, rec_id, handed_off_at.',
    }),
    audit_trail: z.array(AuditEntry).meta({ description: 'Every step of the checkout, oldest first.' }),
    failure: CheckoutFailure.nullable(),
    workflow_id: z.string().meta({ description: 'The Temporal workflow (checkout-<checkout_id>); search attribute CheckoutId.' }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    confirmed_at: isoDateTime.nullable(),
    expired_at: isoDateTime.nullable(),
  })
  .meta({ id: 'AgenticCheckout' });

export const CheckoutEnvelope = z
  .object({
    checkout: CheckoutRecord,
    next_steps: z.array(NextAction).meta({
      description: 'What the buyer agent can do next, as of this answer (the first is the one to take; the others are alternatives).',
    }),
  })
  .meta({ id: 'AgenticCheckoutEnvelope' });
/** Past the wait (`Prefer: wait=N`): the checkout goes on; its status URL says how it ended. */
export const CheckoutAccepted = z
  .object({ checkout_id: z.string(), status: z.literal('pending'), status_url: z.string() })
  .meta({ id: 'AgenticCheckoutAccepted' });
