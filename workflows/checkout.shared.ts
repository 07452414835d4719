/**
 * The checkout flow's contract (docs/CHECKOUT.md): the Updates and Query of workflows/checkout.ts and
 * its inputs and outputs. The API (src/checkout/client.ts) imports this, never the workflow.
 */
import * as wf from '@temporalio/workflow';
import type { CheckoutRequest, CheckoutView, Consent, NextAction } from '../src/checkout/checkouts';

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

export interface CheckoutOutcome {
  checkoutId: string;
  status: 'rejected' | 'expired' | 'confirmed' | 'handed_off' | 'failed';
  error?: string;
}

/**
 * `details[0]` of the ApplicationFailure a failed checkout run ends with (what operators read in the
 * UI). The failure's type is the error code; the API maps codes to HTTP statuses (src/checkout/failures.ts).
 */
export interface CheckoutFailureDetails {
  checkout_id: string;
  code: string;
  reason: string;
  next_action: NextAction | null;
  payment_voided: boolean;
}

/** Early return for POST /v1/agentic-checkout: started with the workflow (update-with-start), answers once the plan exists. */
export const getPlanUpdate = wf.defineUpdate<CheckoutView>('getPlan');
/** The buyer's confirm: the validator rejects a wrong state, consent, proposal, amount or currency (nothing in history). */
export const confirmUpdate = wf.defineUpdate<CheckoutView, [ConfirmInput]>('confirm');
/** Live stage, for operators (`temporal workflow query --type stage`). */
export const stageQuery = wf.defineQuery<CheckoutStage>('stage');

/** The workflow's signature, for typed starts by name. */
export type AgenticCheckoutWorkflow = (req: CheckoutRequest) => Promise<CheckoutOutcome>;
