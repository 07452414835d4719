import * as wf from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout';
import type { CheckoutRequest, CheckoutView, HandoffResult, PlanResult, Rejection } from '../src/checkout/checkouts';
import { searchAttributes as SA } from '../src/temporal/names';
import {
  confirmUpdate,
  getPlanUpdate,
  stageQuery,
  type CheckoutFailureDetails,
  type CheckoutOutcome,
  type CheckoutStage,
  type ConfirmInput,
} from './checkout.shared';
import { flowStage } from './stage';

export const LOCAL_DB_STEPS_PATCH = 'checkout-local-db-steps';
/**
 * Checkout modes (merchant_redirect), the memo, and a failed checkout ending the run as a Temporal
 * failure. Runs recorded before it replay the old commands (test/histories).
 */
export const CHECKOUT_SAGA_PATCH = 'checkout-modes-saga-visibility';
/**
 * From this patch on the search attributes are written only where the run waits or ends: `MerchantId`
 * with `FlowStage=awaiting_confirmation` in one upsert, then the final stage; `confirming` lasts one
 * workflow task and shows in Current Details only. The two patches above are implied by it (no
 * markers of their own). Runs recorded before it replay the old commands (test/histories).
 */
export const CHECKOUT_FEWER_UPSERTS_PATCH = 'checkout-fewer-upserts';
/**
 * From this patch on the merchant handoff is a local activity: authorize, hand off and settle run in
 * the confirm's one workflow task (no activity task, no workflow task for its result). A worker that
 * dies mid-handoff is noticed by the workflow task timeout instead of the activity's heartbeat; the
 * next worker sends it again with the same Idempotency-Key, under the next attempt number in the audit
 * (counted in Postgres, src/checkout/checkouts.ts). Implies the patches above (no markers of their own).
 * Runs recorded before it replay the ordinary activity (test/histories).
 */
export const CHECKOUT_LOCAL_HANDOFF_PATCH = 'checkout-local-handoff';
/**
 * From this patch on the handoff's local activity settles the checkout too when the merchant took the
 * order (`handOffAndSettle`): one activation fewer per confirm. When that settle could not be written
 * (Postgres away), the settle step runs as before. Implies the patches above (no markers of their
 * own). Runs recorded before it replay the separate settle (test/histories).
 */
export const CHECKOUT_HANDOFF_SETTLES_PATCH = 'checkout-handoff-settles';
/**
 * From this patch on authorize, hand off and settle are one local activity (`authorizeAndHandOff`):
 * one activation fewer per confirm. When it could not reach Postgres for the authorization, the
 * separate authorize and handoff steps run as before. Implies the patches above (no markers of their
 * own). Runs recorded before it replay the separate authorize (test/histories).
 */
export const CHECKOUT_CONFIRM_ONE_ACTIVITY_PATCH = 'checkout-confirm-one-activity';

/**
 * A business rejection: `type` is the error code, details[0] the next action when there is one. The
 * API maps the code to its HTTP status (src/checkout/failures.ts); the workflow knows no HTTP.
 */
const rejection = (r: Rejection) =>
  wf.ApplicationFailure.create({ type: r.code, message: r.message, details: r.next_action ? [r.next_action] : [], nonRetryable: true });

/**
 * Agentic checkout (docs/CHECKOUT.md): plan → wait for the buyer's confirm (durable timer: the
 * plan expires unconfirmed) → authorize payment → hand off to the merchant → settle (receipt).
 */
export async function agenticCheckout(req: CheckoutRequest): Promise<CheckoutOutcome> {
  const dbOptions = {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
  } as const;
  // The Postgres steps are short: as local activities they skip two server round trips each
  // (docs/BENCHMARKS.md). Runs started before this patch keep ordinary activities on replay.
  const oneActivity = wf.patched(CHECKOUT_CONFIRM_ONE_ACTIVITY_PATCH);
  const handoffSettles = oneActivity || wf.patched(CHECKOUT_HANDOFF_SETTLES_PATCH);
  const localHandoff = handoffSettles || wf.patched(CHECKOUT_LOCAL_HANDOFF_PATCH);
  const fewerUpserts = localHandoff || wf.patched(CHECKOUT_FEWER_UPSERTS_PATCH);
  const local = fewerUpserts || wf.patched(LOCAL_DB_STEPS_PATCH);
  const db = local ? wf.proxyLocalActivities<CheckoutActivities>(dbOptions) : wf.proxyActivities<CheckoutActivities>(dbOptions);
  // Steps after the buyer's confirm (authorize, void + fail, settle, hand off to the site) must not be
  // skipped because Postgres was away a while: they retry until it is back.
  const untilDone = { ...dbOptions, retry: { ...dbOptions.retry, maximumAttempts: Number.POSITIVE_INFINITY } };
  const dbAfterConfirm = local ? wf.proxyLocalActivities<CheckoutActivities>(untilDone) : wf.proxyActivities<CheckoutActivities>(untilDone);
  const handoffOptions = {
    // One attempt is bounded by DISPATCH_TIMEOUT_MS (≤ 15 s); the merchant gets 4 tries with backoff.
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: 4,
      nonRetryableErrorTypes: ['merchant_handoff_rejected'] as string[],
    },
  } as const;
  const merchant = localHandoff
    ? wf.proxyLocalActivities<CheckoutActivities>(handoffOptions)
    : wf.proxyActivities<CheckoutActivities>({
        ...handoffOptions,
        // The activity heartbeats every second: a worker that dies mid-handoff is noticed in 5 s, not 30.
        heartbeatTimeout: '5 seconds',
      });
  const saga = fewerUpserts || wf.patched(CHECKOUT_SAGA_PATCH);

  const stage = flowStage<CheckoutStage>('planning');
  let planned: PlanResult | undefined;
  let confirmRequest: ConfirmInput | undefined;
  let confirmed: CheckoutView | undefined;
  let confirmFailure: Rejection | undefined;
  // Current Details (the UI's "Current Details" and `temporal workflow describe`): what the run does now.
  const details = (text: string) => wf.setCurrentDetails(`${stage.current}: ${text}`);
  details(`planning proposal ${req.proposal_id} for ${req.buyer_agent_id}`);

  wf.setHandler(stageQuery, () => stage.current);
  wf.setHandler(getPlanUpdate, async () => {
    await wf.condition(() => planned !== undefined);
    if (!planned!.ok) throw rejection(planned!.rejection);
    return planned!.checkout;
  });
  wf.setHandler(
    confirmUpdate,
    async (input) => {
      if (stage.current === 'awaiting_confirmation') {
        confirmRequest = input;
        // The main loop writes the stage when it takes the request.
        stage.claim('confirming');
      }
      await wf.condition(() => confirmed !== undefined || confirmFailure !== undefined);
      if (confirmed) return confirmed;
      throw rejection(confirmFailure!);
    },
    {
      validator: (input) => {
        const fail = (code: string, message: string) => {
          throw rejection({ code, message });
        };
        if (!planned || !planned.ok) return fail('checkout_not_ready', 'The checkout has no plan yet.');
        const plan = planned.checkout.plan;
        if (input.consent?.granted !== true || !input.consent.statement?.trim()) {
          return fail('consent_invalid', 'Explicit buyer consent is required: consent.granted must be true and consent.statement given.');
        }
        if (input.proposal_id !== plan.proposal_id)
          return fail('proposal_mismatch', `The checkout plan is for proposal ${plan.proposal_id}, not ${input.proposal_id}.`);
        if (input.amount_minor !== plan.totals.total_minor)
          return fail('amount_mismatch', `amount ${input.amount_minor / 100} does not match the plan total ${plan.amount}.`);
        if (input.currency.toUpperCase() !== plan.currency)
          return fail('currency_mismatch', `currency ${input.currency} does not match the plan currency ${plan.currency}.`);
        // A repeated confirm (in flight or done) joins the first: same result, nothing repeated.
        if (stage.current === 'confirming' || stage.current === 'confirmed' || stage.current === 'handed_off') return;
        if (stage.current === 'expired' || Date.now() >= Date.parse(plan.expires_at))
          return fail('checkout_expired', `The checkout plan expired at ${plan.expires_at}.`);
        if (stage.current !== 'awaiting_confirmation') return fail('checkout_failed', `The checkout is ${stage.current}.`);
      },
    },
  );

  planned = await db.planCheckout(req);
  if (!planned.ok) {
    stage.set('rejected');
    details(`${planned.rejection.code}: ${planned.rejection.message}`);
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'rejected', error: planned.rejection.code };
  }
  const plan = planned.checkout.plan;
  // Runs from before checkout modes have no mode in their plan: theirs was always a handoff.
  const mode = saga ? (plan.checkout_mode ?? 'agent_handoff') : 'agent_handoff';
  const merchantId = [{ key: SA.MerchantId, value: plan.merchant_id }];
  if (!fewerUpserts) wf.upsertSearchAttributes(merchantId);
  if (saga) {
    // The business keys, on the run itself (the UI's Memo; `temporal workflow describe`).
    wf.upsertMemo({
      checkout_id: req.checkoutId,
      intent_id: plan.intent_id,
      proposal_id: plan.proposal_id,
      merchant_id: plan.merchant_id,
      amount: plan.amount,
      currency: plan.currency,
      checkout_mode: mode,
      buyer_agent_id: plan.buyer_agent_id,
    });
  }
  stage.set('awaiting_confirmation', undefined, fewerUpserts ? merchantId : []);
  details(`${mode} plan ${plan.amount} ${plan.currency} from ${plan.merchant_id}, expires ${plan.expires_at}`);

  const asked = await wf.condition(() => confirmRequest !== undefined, Math.max(1, Date.parse(plan.expires_at) - Date.now()));
  if (!asked) {
    stage.set('expired');
    details(`not confirmed before ${plan.expires_at}`);
    await db.expireCheckout(req.checkoutId);
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'expired' };
  }

  if (fewerUpserts) stage.claim('confirming');
  else stage.set('confirming');
  if (mode === 'merchant_redirect') {
    // The seller has no agent to take the order: no payment, the buyer continues on the product page.
    details(`handing the buyer to ${plan.merchant_id}'s product page (no payment by the gateway)`);
    confirmed = await dbAfterConfirm.handOffToMerchantSite(req.checkoutId, confirmRequest!.consent);
    stage.set('handed_off');
    details(`buyer handed to ${confirmed.continue_url}`);
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'handed_off' };
  }

  let authorized = false;
  const fail = async (r: Rejection, opts: { merchantRefused?: boolean } = {}): Promise<CheckoutOutcome> => {
    details(`failing (${r.code}): ${authorized ? 'voiding the payment authorization, ' : ''}${r.message}`);
    const stored = saga
      ? ((await dbAfterConfirm.failCheckout(req.checkoutId, r, opts)) ?? r)
      : ((await db.failCheckout(req.checkoutId, r)) ?? r);
    confirmFailure = stored;
    stage.set('failed');
    details(`${stored.code}: ${stored.message}${stored.next_action ? ` — next: ${stored.next_action.action}` : ''}`);
    await wf.condition(wf.allHandlersFinished);
    if (saga) {
      // A business failure ends the run Failed, so the UI's Failures view and ExecutionStatus="Failed"
      // find it; the API answers from the confirm Update (already done) or from Postgres, never from this.
      const info: CheckoutFailureDetails = {
        checkout_id: req.checkoutId,
        code: stored.code,
        reason: stored.message,
        next_action: stored.next_action ?? null,
        payment_voided: authorized,
      };
      throw wf.ApplicationFailure.create({
        type: stored.code,
        message: `checkout ${req.checkoutId} failed: ${stored.message}`,
        details: [info],
        nonRetryable: true,
      });
    }
    return { checkoutId: req.checkoutId, status: 'failed', error: stored.code };
  };
  // A handoff that failed: the checkout fails (payment voided); anything else is not the merchant's.
  const handoffFailed = (err: unknown) => {
    // An ordinary activity's failure wraps the cause in an ActivityFailure; a local activity's arrives
    // as the cause itself (an ApplicationFailure, or a TimeoutFailure after its last attempt).
    const cause = err instanceof wf.ActivityFailure ? err.cause : localHandoff && err instanceof wf.TemporalFailure ? err : undefined;
    if (!(err instanceof wf.ActivityFailure) && cause === undefined) throw err;
    const refused = cause instanceof wf.ApplicationFailure && cause.type === 'merchant_handoff_rejected';
    return fail(
      {
        code: 'merchant_handoff_failed',
        message: `The merchant agent did not accept the handoff: ${cause?.message ?? (err as Error).message}`,
      },
      { merchantRefused: refused },
    );
  };
  details(`authorizing ${plan.amount} ${plan.currency}${oneActivity ? ` and handing the order to ${plan.merchant_id}` : ''}`);
  let together: Awaited<ReturnType<CheckoutActivities['authorizeAndHandOff']>> | undefined;
  if (oneActivity) {
    try {
      together = await merchant.authorizeAndHandOff(req.checkoutId, confirmRequest!.consent);
    } catch (err) {
      // It throws only for the handoff, which comes after the payment was authorized.
      authorized = true;
      return handoffFailed(err);
    }
  }
  const payment = together?.payment ?? (await (saga ? dbAfterConfirm : db).authorizeCheckout(req.checkoutId, confirmRequest!.consent));
  if (!payment.ok) return fail(payment.rejection);
  authorized = true;
  let handoff: HandoffResult;
  let settled: CheckoutView | null = null;
  if (together?.handoff) ({ confirmed: settled, ...handoff } = together.handoff);
  else {
    details(`payment ${payment.authorization_id} authorized; handing the order to ${plan.merchant_id}`);
    try {
      if (handoffSettles) ({ confirmed: settled, ...handoff } = await merchant.handOffAndSettle(req.checkoutId));
      else handoff = await merchant.handOffToMerchant(req.checkoutId);
    } catch (err) {
      return handoffFailed(err);
    }
  }
  details(`merchant answered ${handoff.status_code}${handoff.order_id ? ` (order ${handoff.order_id})` : ''}; settling`);
  confirmed = settled ?? (await (saga ? dbAfterConfirm : db).settleCheckout(req.checkoutId, handoff));
  stage.set('confirmed');
  details(`order handed to ${plan.merchant_id}${handoff.order_id ? ` as ${handoff.order_id}` : ''}`);
  await wf.condition(wf.allHandlersFinished);
  return { checkoutId: req.checkoutId, status: 'confirmed' };
}
