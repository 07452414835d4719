import * as wf from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout';
import type { CheckoutRequest, CheckoutView, Consent, PlanResult, Rejection } from '../src/checkout/checkouts';
import { searchAttributes as SA } from '../src/temporal/names';

/** What the API sends with the confirm Update (after it verified the match-token JWS). */
export interface ConfirmInput {
  consent: Consent;
  proposal_id: string;
  /** The confirm body's amount in minor units. */
  amount_minor: number;
  currency: string;
}

export interface CheckoutOutcome {
  checkoutId: string;
  status: 'rejected' | 'expired' | 'confirmed' | 'failed';
  error?: string;
}

/** Early return for POST /v1/agentic-checkout: started with the workflow (update-with-start), answers once the plan exists. */
export const getPlanUpdate = wf.defineUpdate<CheckoutView>('getPlan');
/** The buyer's confirm: the validator rejects a wrong state, consent, proposal, amount or currency (→ 409, nothing in history). */
export const confirmUpdate = wf.defineUpdate<CheckoutView, [ConfirmInput]>('confirm');
/** Live stage, for operators (`temporal workflow query --type stage`). */
export const stageQuery = wf.defineQuery<string>('stage');

export const LOCAL_DB_STEPS_PATCH = 'checkout-local-db-steps';

/** A business rejection as the API maps it: `type` is the error code, details[0] the HTTP status. */
const rejection = (r: Rejection) => wf.ApplicationFailure.create({ type: r.code, message: r.message, details: [r.status], nonRetryable: true });

/**
 * Agentic checkout (spec 4.3, DESIGN §5/§6.1): plan → wait for the buyer's confirm (durable timer: the
 * plan expires unconfirmed) → authorize payment → hand off to the merchant → settle (receipt).
 */
export async function agenticCheckout(req: CheckoutRequest): Promise<CheckoutOutcome> {
  const dbOptions = {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
  } as const;
  // The Postgres steps are short: as local activities they skip two server round trips each
  // (docs/BENCHMARKS.md). Runs started before this patch keep ordinary activities on replay.
  const db = wf.patched(LOCAL_DB_STEPS_PATCH) ? wf.proxyLocalActivities<CheckoutActivities>(dbOptions) : wf.proxyActivities<CheckoutActivities>(dbOptions);
  const merchant = wf.proxyActivities<CheckoutActivities>({
    // One attempt is bounded by DISPATCH_TIMEOUT_MS (≤ 15 s); the merchant gets 4 tries with backoff.
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 4, nonRetryableErrorTypes: ['merchant_handoff_rejected'] },
  });

  let stage = 'planning';
  let planned: PlanResult | undefined;
  let confirmRequest: ConfirmInput | undefined;
  let confirmed: CheckoutView | undefined;
  let confirmFailure: Rejection | undefined;
  const setStage = (s: string) => {
    stage = s;
    wf.upsertSearchAttributes([{ key: SA.FlowStage, value: s }]);
  };

  wf.setHandler(stageQuery, () => stage);
  wf.setHandler(getPlanUpdate, async () => {
    await wf.condition(() => planned !== undefined);
    if (!planned!.ok) throw rejection(planned!.rejection);
    return planned!.checkout;
  });
  wf.setHandler(
    confirmUpdate,
    async (input) => {
      if (stage === 'awaiting_confirmation') {
        confirmRequest = input;
        stage = 'confirming';
      }
      await wf.condition(() => confirmed !== undefined || confirmFailure !== undefined);
      if (confirmed) return confirmed;
      throw rejection(confirmFailure!);
    },
    {
      validator: (input) => {
        const fail = (status: number, code: string, message: string) => {
          throw rejection({ status, code, message });
        };
        if (!planned || !planned.ok) return fail(409, 'checkout_not_ready', 'The checkout has no plan yet.');
        const plan = planned.checkout.plan;
        if (input.consent?.granted !== true || !input.consent.statement?.trim()) {
          return fail(409, 'consent_invalid', 'Explicit buyer consent is required: consent.granted must be true and consent.statement given.');
        }
        if (input.proposal_id !== plan.proposal_id) return fail(409, 'proposal_mismatch', `The checkout plan is for proposal ${plan.proposal_id}, not ${input.proposal_id}.`);
        if (input.amount_minor !== plan.totals.total_minor) return fail(409, 'amount_mismatch', `amount ${input.amount_minor / 100} does not match the plan total ${plan.amount}.`);
        if (input.currency.toUpperCase() !== plan.currency) return fail(409, 'currency_mismatch', `currency ${input.currency} does not match the plan currency ${plan.currency}.`);
        // A repeated confirm (in flight or done) joins the first: same result, nothing repeated.
        if (stage === 'confirming' || stage === 'confirmed') return;
        if (stage === 'expired' || Date.now() >= Date.parse(plan.expires_at)) return fail(409, 'checkout_expired', `The checkout plan expired at ${plan.expires_at}.`);
        if (stage !== 'awaiting_confirmation') return fail(409, 'checkout_failed', `The checkout is ${stage}.`);
      },
    },
  );

  planned = await db.planCheckout(req);
  if (!planned.ok) {
    setStage('rejected');
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'rejected', error: planned.rejection.code };
  }
  const plan = planned.checkout.plan;
  wf.upsertSearchAttributes([{ key: SA.MerchantId, value: plan.merchant_id }]);
  setStage('awaiting_confirmation');
  wf.setCurrentDetails(`plan ${plan.amount} ${plan.currency}, expires ${plan.expires_at}`);

  const asked = await wf.condition(() => confirmRequest !== undefined, Math.max(1, Date.parse(plan.expires_at) - Date.now()));
  if (!asked) {
    setStage('expired');
    await db.expireCheckout(req.checkoutId);
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'expired' };
  }

  setStage('confirming');
  const fail = async (r: Rejection): Promise<CheckoutOutcome> => {
    await db.failCheckout(req.checkoutId, r);
    confirmFailure = r;
    setStage('failed');
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'failed', error: r.code };
  };
  const payment = await db.authorizeCheckout(req.checkoutId, confirmRequest!.consent);
  if (!payment.ok) return fail(payment.rejection);
  let handoff;
  try {
    handoff = await merchant.handOffToMerchant(req.checkoutId);
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
    return fail({ status: 502, code: 'merchant_handoff_failed', message: `The merchant agent did not accept the handoff: ${err.cause?.message ?? err.message}` });
  }
  confirmed = await db.settleCheckout(req.checkoutId, handoff);
  setStage('confirmed');
  await wf.condition(wf.allHandlersFinished);
  return { checkoutId: req.checkoutId, status: 'confirmed' };
}
