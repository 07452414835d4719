/**
 * The checkout flow's contract (docs/CHECKOUT.md): the Updates and Query of workflows/checkout.ts and
 * its inputs and outputs. The API (src/checkout/client.ts) imports this, never the workflow.
 */
import * as wf from '@temporalio/workflow';
import type { CheckoutRequest, CheckoutView, Consent, NextAction } from '../src/checkout/checkouts';
import type { CheckoutPlan } from '../src/schemas/checkout';

/** What the API sends with the confirm Update (after it verified the match-token JWS). */
export interface ConfirmInput {
  consent: Consent;
  proposal_id: string;
  /** The confirm body's amount in minor units. */
  amount_minor: number;
  currency: string;
}

/** The checkout's stages (the `FlowStage` search attribute and the `stage` query). */
export type CheckoutStage =
  'planning' | 'awaiting_confirmation' | 'confirming' | 'rejected' | 'expired' | 'handed_off' | 'confirmed' | 'failed';

/**
 * What was bought, from whom, for how much: in the run's result, its failure details and its Memo, so
 * an operator reads it from the workflow list and one click (the UI's Result / Memo panels).
 */
export interface CheckoutPurchase {
  /** The plan's first line item's title, with "and N more" when there are several. */
  product: string;
  merchant_id: string;
  amount: number;
  currency: string;
  checkout_mode: string;
}

export function purchaseOf(plan: CheckoutPlan): CheckoutPurchase {
  const [first, ...more] = plan.line_items;
  const product = `${first?.title ?? 'no line item'}${more.length ? ` and ${more.length} more` : ''}`;
  return { product, merchant_id: plan.merchant_id, amount: plan.amount, currency: plan.currency, checkout_mode: plan.checkout_mode };
}

/**
 * The run's result. A plan that was made names its purchase; a confirmed checkout its order id (when
 * the merchant gave one), a handed-off one the page the buyer continues on; a rejected or expired one
 * why. A failed checkout ends the run Failed instead (CheckoutFailureDetails).
 */
export interface CheckoutOutcome {
  checkoutId: string;
  status: 'rejected' | 'expired' | 'confirmed' | 'handed_off' | 'failed';
  error?: string;
  /** rejected: the check's or the merchant's own message. */
  reason?: string;
  purchase?: CheckoutPurchase;
  order_id?: string | null;
  continue_url?: string | null;
  /** handed_off after a payment was authorized (a UCP escalation): it was voided. */
  payment_voided?: boolean;
}

/**
 * `details[0]` of the ApplicationFailure a failed checkout run ends with (what operators read in the
 * UI). The failure's type is the error code; the API maps codes to HTTP statuses (src/checkout/failures.ts).
 */
export interface CheckoutFailureDetails {
  checkout_id: string;
  code: string;
  /** The stored failure's message: for a merchant's refusal, the merchant's own reason. */
  reason: string;
  next_action: NextAction | null;
  payment_voided: boolean;
  purchase: CheckoutPurchase;
}

/** Early return for POST /v1/agentic-checkout: started with the workflow (update-with-start), answers once the plan exists. */
export const getPlanUpdate = wf.defineUpdate<CheckoutView>('getPlan');
/** The buyer's confirm: the validator rejects a wrong state, consent, proposal, amount or currency (nothing in history). */
export const confirmUpdate = wf.defineUpdate<CheckoutView, [ConfirmInput]>('confirm');
/** Live stage, for operators (`temporal workflow query --type stage`). */
export const stageQuery = wf.defineQuery<CheckoutStage>('stage');

/** The workflow's signature, for typed starts by name. */
export type AgenticCheckoutWorkflow = (req: CheckoutRequest) => Promise<CheckoutOutcome>;
