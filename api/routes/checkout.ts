import * as C from '../../src/schemas/checkout';
import { checkoutView, getCheckoutAs } from '../../src/checkout/checkouts';
import { checkoutNextSteps } from '../../src/checkout/next-steps';
import type { Db } from '../../src/db/connect';
import { callerOf } from '../caller';
import { CHECKOUT_WAIT, checkoutStatusUrl, confirmCheckout, createCheckout, type CheckoutWait } from '../../src/checkout/client';
import { preferredWaitMs } from '../prefer-wait';
import { keyedResourceId } from '../middleware/idempotency';
import { auth, linkTo, type ErrorRow, type ResponseLink, type RouteRegistry } from './registry';

const TAG = 'Agentic checkout';
const notFound: ErrorRow = [404, 'checkout_not_found', 'No agentic checkout with this id.'];
const temporalUnavailable: ErrorRow = [503, 'temporal_unavailable', 'Temporal is not reachable.'];
const noWorker: ErrorRow = [503, 'no_worker', 'No worker polls the task queue: nothing waits for one; retry after Retry-After.'];
/** What a checkout id feeds (`id`: the runtime expression naming it). */
const checkoutLinks = (id: string, confirm: boolean): Record<string, ResponseLink> => ({
  GetCheckout: linkTo('get', '/v1/agentic-checkout/{checkoutId}', { parameters: { 'path.checkoutId': id } }),
  ...(confirm
    ? { ConfirmCheckout: linkTo('post', '/v1/agentic-checkout/{checkoutId}/confirm', { parameters: { 'path.checkoutId': id } }) }
    : {}),
});
const accepted = {
  description: 'Still working past the wait (`Prefer: wait=N`, 0..60 s, default 60): poll status_url (also in Location).',
  schema: C.CheckoutAccepted,
  links: checkoutLinks('$response.body#/checkout_id', false),
};

/** 201/200 with the checkout and its next steps, or 202 with its status URL when the wait ran out first. */
async function answer(db: Db, out: CheckoutWait, doneStatus: number) {
  if (out.done)
    return { status: doneStatus, body: { checkout: out.checkout, next_steps: await checkoutNextSteps(db, out.checkout, 'rest') } };
  const statusUrl = checkoutStatusUrl(out.checkoutId);
  return { status: 202, headers: { location: statusUrl }, body: { checkout_id: out.checkoutId, status: 'pending', status_url: statusUrl } };
}

/** Agentic checkout (docs/CHECKOUT.md): each checkout is a workflow `checkout-<checkout_id>` (docs/ARCHITECTURE.md traces confirm). */
export function checkoutRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/agentic-checkout',
    tag: TAG,
    summary: 'Plan an agentic checkout',
    description:
      'Validates the proposal (exists, belongs to the intent, not expired, state and inventory allow), the match token (exists, names the proposal, not expired) and the amount and currency, then answers with the plan: line items, shipping and totals in minor units, valid for CHECKOUT_PLAN_TTL_S (15 min), and its `checkout_mode`: `agent_handoff` when the seller has an agent endpoint (confirm authorizes payment and hands the order over), `merchant_redirect` when it has none (confirm authorizes nothing and hands the buyer an attributable link to the product page). The checkout then waits for an explicit confirm.',
    auth: auth.apiKey('checkout'),
    body: C.CheckoutCreateBody,
    bodyRequired: true,
    invalidCode: 'invalid_payload',
    responses: {
      201: {
        description: 'Plan created, waiting for explicit buyer confirmation.',
        schema: C.CheckoutEnvelope,
        links: checkoutLinks('$response.body#/checkout/checkout_id', true),
      },
      202: { ...accepted, links: checkoutLinks('$response.body#/checkout_id', true) },
    },
    errors: [
      [404, 'intent_not_found', 'No intent with this id.'],
      [404, 'proposal_not_found', 'No proposal with this id.'],
      [404, 'match_token_not_found', 'No match token with this id.'],
      [409, 'proposal_expired', 'The proposal has expired.'],
      [409, 'proposal_state_invalid', 'The proposal is not in a state a checkout can use (needs pending_confirmation or accepted).'],
      [409, 'proposal_intent_mismatch', 'The proposal answers another intent.'],
      [409, 'inventory_unavailable', 'The proposal is out of stock.'],
      [409, 'match_token_mismatch', 'The match token names another proposal.'],
      [409, 'match_token_expired', 'The match token has expired.'],
      [409, 'acceptance_state_invalid', 'The match token is not accepted (or already consumed).'],
      [409, 'match_token_in_checkout', 'Another live checkout already uses this match token.'],
      [409, 'amount_mismatch', 'The amount differs from the proposal price plus shipping.'],
      [409, 'currency_mismatch', 'The currency differs from the proposal currency.'],
      [
        400,
        'buyer_details_missing',
        'A UCP/ACP merchant needs buyer and shipping_address (line1, city, region, postal_code, country); `fields` names what is missing.',
      ],

      [
        502,
        'merchant_refused',
        "The UCP/ACP merchant refused to open a checkout session; the body carries checkout_id, merchant_reason (the merchant's own words) and next_steps.",
      ],
      [502, 'merchant_unavailable', 'The UCP/ACP merchant did not open a checkout session through the retries.'],
      temporalUnavailable,
      noWorker,
    ],
    handler: async (ctx, { body }) => {
      const waitMs = preferredWaitMs(ctx.get('prefer'), CHECKOUT_WAIT);
      const db = ctx.deps.db;
      return answer(db, await createCheckout(ctx.deps.temporal, db, body, callerOf(ctx), waitMs, keyedResourceId(ctx, 'chk')), 201);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/agentic-checkout/{checkoutId}',
    tag: TAG,
    summary: 'Get an agentic checkout',
    description:
      'Status, plan, receipt and audit trail, as stored by the checkout workflow, and `next_steps`: what the buyer agent can do next as of now (for a failed or expired checkout: plan again with the token, accept the proposal again, choose another proposal the match session ranked, or search again).',
    auth: auth.apiKey('checkout'),
    params: C.CheckoutIdParams,
    notFoundCode: 'checkout_not_found',
    responses: { 200: { description: 'The checkout.', schema: C.CheckoutEnvelope } },
    errors: [notFound],
    handler: async (ctx, { params }) => {
      const checkout = checkoutView(await getCheckoutAs(ctx.deps.db, params.checkoutId, callerOf(ctx)));
      return { body: { checkout, next_steps: await checkoutNextSteps(ctx.deps.db, checkout, 'rest') } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/agentic-checkout/{checkoutId}/confirm',
    tag: TAG,
    summary: 'Confirm an agentic checkout',
    description:
      "Requires explicit buyer-agent consent and the signed match token (JWS, verified against /.well-known/jwks.json keys); proposal, amount and currency must equal the plan. agent_handoff: authorizes payment, hands the order to the merchant agent's endpoint (Idempotency-Key: checkout id; merchants de-duplicate on it) and answers status confirmed with the receipt and audit trail; if the handoff fails for good the payment authorization is voided, the match token is accepted again while unexpired, and the answer is 502 merchant_handoff_failed. Every failure answer names the checkout (`checkout_id`), the merchant's own reason when it refused (`merchant_reason`, plain text, at most 500 characters), whether the payment authorization was voided (`payment_voided`, `payment_authorization_id`) and `next_steps` computed from the state as it is (`next_action`: the first). merchant_redirect: no payment; answers status handed_off with `continue_url`, the attributable /r/{rec_id} link to the product page. Confirming again returns the same result.",
    auth: auth.apiKey('checkout'),
    params: C.CheckoutIdParams,
    notFoundCode: 'checkout_not_found',
    body: C.CheckoutConfirmBody,
    bodyRequired: true,
    invalidCode: 'invalid_payload',
    responses: {
      200: {
        description:
          'agent_handoff: status confirmed, with the merchant handoff receipt and audit trail. merchant_redirect: status handed_off, with continue_url.',
        schema: C.CheckoutEnvelope,
        links: checkoutLinks('$response.body#/checkout/checkout_id', false),
      },
      202: accepted,
    },
    errors: [
      notFound,
      [409, 'consent_invalid', 'Consent not granted or without a statement.'],
      [409, 'match_token_invalid', 'The match token JWS is forged, malformed or signed by another key.'],
      [409, 'match_token_expired', 'The match token has expired.'],
      [409, 'match_token_mismatch', 'The match token is not the one this checkout was planned with.'],
      [409, 'proposal_mismatch', 'proposal_id differs from the plan.'],
      [409, 'amount_mismatch', 'amount differs from the plan total.'],
      [409, 'currency_mismatch', 'currency differs from the plan currency.'],
      [409, 'checkout_expired', 'The plan expired before it was confirmed; the body carries checkout_id and next_steps.'],
      [
        409,
        'checkout_failed',
        'The checkout failed earlier (payment or merchant handoff); the body carries failure_code, checkout_id, merchant_reason, payment_authorization_id, payment_voided, next_action and next_steps.',
      ],
      [
        400,
        'payment_credential_required',
        'A UCP/ACP merchant is paid through one of its payment handlers: payment_credential is needed (none is configured for the deployment).',
      ],
      [
        402,
        'payment_declined',
        'The UCP/ACP merchant declined the payment (its message); the authorization was voided and its session canceled.',
      ],
      [409, 'price_changed', "The UCP/ACP merchant's total changed since the plan: nothing was completed; the authorization was voided."],
      [409, 'inventory_unavailable', 'The UCP/ACP merchant is out of stock: the authorization was voided and its session canceled.'],
      [
        502,
        'merchant_refused',
        'The UCP/ACP merchant refused the order (its words in merchant_reason); the authorization was voided and its session canceled.',
      ],
      [
        502,
        'merchant_handoff_failed',
        'The merchant agent refused the handoff (a 4xx: its reason in merchant_reason) or did not accept it after retries; the payment authorization was voided. The body carries checkout_id, merchant_reason, payment_authorization_id, payment_voided, next_action and next_steps (e.g. plan_new_checkout with the same match token, or choose_another_proposal).',
      ],
      temporalUnavailable,
      noWorker,
    ],
    handler: async (ctx, { params, body }) => {
      const { db, temporal, signingKeys, config } = ctx.deps;
      const keys = { signingKey: signingKeys.matchToken, issuer: config.publicBaseUrl };
      const waitMs = preferredWaitMs(ctx.get('prefer'), CHECKOUT_WAIT);
      return answer(
        db,
        await confirmCheckout(
          { db, temporal, keys, keyEncryptionKey: config.KEY_ENCRYPTION_KEY, defaultPaymentHandler: config.PROTOCOL_PAYMENT_HANDLER },
          params.checkoutId,
          body,
          callerOf(ctx),
          waitMs,
        ),
        200,
      );
    },
  });
}
