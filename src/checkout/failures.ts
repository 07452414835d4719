/**
 * The HTTP status of each checkout failure code, at the API edge: the workflow and its activities
 * fail with a code (an ApplicationFailure's type) and know no HTTP. A code not listed is a conflict
 * with the checkout's state (409). The codes and their meaning: api/routes/checkout.ts, docs/CHECKOUT.md.
 */
const STATUS: Record<string, number> = {
  intent_not_found: 404,
  proposal_not_found: 404,
  match_token_not_found: 404,
  checkout_not_found: 404,
  merchant_handoff_failed: 502,
  // A UCP/ACP merchant's own refusals (src/checkout/merchant-session.ts).
  buyer_details_missing: 400,
  payment_credential_required: 400,
  payment_declined: 402,
  merchant_refused: 502,
  merchant_unavailable: 502,
};

export function checkoutFailureStatus(code: string): number {
  return STATUS[code] ?? 409;
}
