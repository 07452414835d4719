import * as wf from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout';
import type { CheckoutRequest, CheckoutView, HandoffResult, PlanResult } from '../src/checkout/checkouts';
import type { Rejection } from '../src/schemas/checkout';
import { searchAttributes as SA } from '../src/temporal/names';
import {
  confirmUpdate,
  getPlanUpdate,
  purchaseOf,
  stageQuery,
  type CheckoutFailureDetails,
  type CheckoutOutcome,
  type CheckoutStage,
  type ConfirmInput,
} from './checkout.shared';
import { flowStage } from './stage';
import { statesVersioning } from './versioning';

/**
 * A business rejection: `type` is the error code, details[0] the next action when there is one. The
 * API maps the code to its HTTP status (src/checkout/failures.ts); the workflow knows no HTTP.
 */
const rejection = (r: Rejection) =>
  wf.ApplicationFailure.create({ type: r.code, message: r.message, details: r.next_action ? [r.next_action] : [], nonRetryable: true });

/** The Postgres steps are short: local activities, which skip two server round trips each (docs/BENCHMARKS.md). */
const dbOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
} as const;
const db = wf.proxyLocalActivities<CheckoutActivities>(dbOptions);
/**
 * Steps after the buyer's confirm (authorize, void + fail, settle, hand off to the site) must not be
 * skipped because Postgres was away a while: they retry until it is back.
 */
const dbAfterConfirm = wf.proxyLocalActivities<CheckoutActivities>({
  ...dbOptions,
  retry: { ...dbOptions.retry, maximumAttempts: Number.POSITIVE_INFINITY },
});
/**
 * The merchant handoff, a local activity: authorize, hand off and settle run in the confirm's one
 * workflow task. One attempt is bounded by DISPATCH_TIMEOUT_MS (≤ 15 s); the merchant gets 4 tries
 * with backoff. A worker that dies mid-handoff is noticed by the workflow task timeout; the next
 * worker sends it again with the same Idempotency-Key, under the next attempt number in the audit
 * (counted in Postgres, src/checkout/checkouts.ts).
 */
const merchant = wf.proxyLocalActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: ['merchant_handoff_rejected'],
  },
});

/**
 * Agentic checkout (docs/CHECKOUT.md): plan → wait for the buyer's confirm (durable timer: the
 * plan expires unconfirmed) → authorize payment → hand off to the merchant → settle (receipt).
 */
export async function agenticCheckout(req: CheckoutRequest): Promise<CheckoutOutcome> {
  const stage = flowStage<CheckoutStage>('planning');
  let planned: PlanResult | undefined;
  let confirmRequest: ConfirmInput | undefined;
  let confirmed: CheckoutView | undefined;
  let confirmFailure: Rejection | undefined;
  // Current Details (the UI's "Current Details" and `temporal workflow describe`): what the run does now.
  const details = (text: string) => wf.setCurrentDetails(`${stage.current}: ${text}`);
  details(`planning proposal ${req.proposal_id} for ${req.buyer_agent_id}`);

  /**
   * Cancels a protocol merchant's session of a checkout that will not complete. Best effort: the
   * checkout's outcome is stored already, and a session never completed lapses on the merchant's
   * side; a cancel that fails after its retries is logged.
   */
  const cancelSession = async (sessionId?: string) => {
    try {
      await merchant.cancelMerchantSession(req.checkoutId, sessionId ?? null);
    } catch (err) {
      if (!(err instanceof wf.TemporalFailure)) throw err;
      wf.log.warn('merchant session not canceled', { checkout_id: req.checkoutId, error: err.message });
    }
  };

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

  const drafted = await db.planCheckout(req);
  // A merchant that sells through UCP or ACP opens its own session now: its totals (shipping, tax)
  // become the plan's, so the buyer consents to what the merchant will charge.
  const session = drafted.ok && drafted.checkout.plan.merchant_protocol && drafted.checkout.plan.merchant_protocol !== 'gateway';
  if (session) details(`opening ${drafted.checkout.plan.merchant_protocol} checkout session with ${drafted.checkout.merchant_id}`);
  let opened: (PlanResult & { session_id?: string | null }) | undefined;
  if (session) {
    try {
      opened = await merchant.openMerchantSession(req.checkoutId);
    } catch (err) {
      // The merchant did not answer usably through the retries: the plan fails (nothing authorized).
      if (!(err instanceof wf.TemporalFailure)) throw err;
      opened = {
        ok: false,
        rejection: {
          code: 'merchant_unavailable',
          message: `${drafted.checkout.merchant_id} did not open a checkout session: ${err.message}`,
        },
      };
    }
  }
  if (opened && !opened.ok) {
    // The merchant refused the session (details missing, out of stock, …): nothing was authorized.
    await dbAfterConfirm.failCheckout(req.checkoutId, opened.rejection, { merchantRefused: true });
    if (opened.session_id) await cancelSession(opened.session_id);
  }
  planned = opened ?? drafted;
  if (!planned.ok) {
    stage.set('rejected');
    details(`${planned.rejection.code}: ${planned.rejection.message}`);
    await wf.condition(wf.allHandlersFinished);
    const tried = drafted.ok ? { purchase: purchaseOf(drafted.checkout.plan) } : {};
    return { checkoutId: req.checkoutId, status: 'rejected', error: planned.rejection.code, reason: planned.rejection.message, ...tried };
  }
  const plan = planned.checkout.plan;
  const mode = plan.checkout_mode;
  const purchase = purchaseOf(plan);
  // The business keys, on the run itself (the UI's Memo; `temporal workflow describe`).
  wf.upsertMemo({
    checkout_id: req.checkoutId,
    intent_id: plan.intent_id,
    proposal_id: plan.proposal_id,
    product: purchase.product,
    merchant_id: plan.merchant_id,
    amount: plan.amount,
    currency: plan.currency,
    checkout_mode: mode,
    buyer_agent_id: plan.buyer_agent_id,
  });
  // Search attributes are written where the run waits or ends: the merchant with the wait.
  stage.set('awaiting_confirmation', undefined, [{ key: SA.MerchantId, value: plan.merchant_id }]);
  details(`${mode} plan: ${purchase.product} from ${plan.merchant_id}, ${plan.amount} ${plan.currency}, expires ${plan.expires_at}`);

  const asked = await wf.condition(() => confirmRequest !== undefined, Math.max(1, Date.parse(plan.expires_at) - Date.now()));
  if (!asked) {
    stage.set('expired');
    details(`not confirmed before ${plan.expires_at}`);
    await db.expireCheckout(req.checkoutId);
    if (plan.merchant_session) await cancelSession();
    await wf.condition(wf.allHandlersFinished);
    return { checkoutId: req.checkoutId, status: 'expired', reason: `not confirmed before ${plan.expires_at}`, purchase };
  }

  // `confirming` lasts one workflow task: Current Details only, no search attribute write.
  stage.claim('confirming');
  if (mode === 'merchant_redirect') {
    // The seller has no agent to take the order: no payment, the buyer continues on the product page.
    details(`handing the buyer to ${plan.merchant_id}'s product page (no payment by the gateway)`);
    confirmed = await dbAfterConfirm.handOffToMerchantSite(req.checkoutId, confirmRequest!.consent);
    stage.set('handed_off');
    details(`buyer handed to ${confirmed.continue_url}`);
    await wf.condition(wf.allHandlersFinished);
    return {
      checkoutId: req.checkoutId,
      status: 'handed_off',
      purchase,
      continue_url: confirmed.continue_url ?? null,
      payment_voided: false,
    };
  }

  let authorized = false;
  // A UCP/ACP merchant's order is placed by completing the session the plan opened.
  const viaSession = plan.merchant_session !== undefined;
  const fail = async (r: Rejection, opts: { merchantRefused?: boolean } = {}): Promise<CheckoutOutcome> => {
    details(`failing (${r.code}): ${authorized ? 'voiding the payment authorization, ' : ''}${r.message}`);
    const stored = (await dbAfterConfirm.failCheckout(req.checkoutId, r, opts)) ?? r;
    if (plan.merchant_session) await cancelSession();
    confirmFailure = stored;
    stage.set('failed');
    details(`${stored.code}: ${stored.message}${stored.next_action ? ` — next: ${stored.next_action.action}` : ''}`);
    await wf.condition(wf.allHandlersFinished);
    // A business failure ends the run Failed, so the UI and ExecutionStatus="Failed" find it; the API
    // answers from the confirm Update (already done) or from Postgres, never from this.
    const info: CheckoutFailureDetails = {
      checkout_id: req.checkoutId,
      code: stored.code,
      reason: stored.message,
      next_action: stored.next_action ?? null,
      payment_voided: authorized,
      purchase,
    };
    throw wf.ApplicationFailure.create({
      type: stored.code,
      message: `checkout ${req.checkoutId} failed: ${stored.message}`,
      details: [info],
      nonRetryable: true,
    });
  };
  // A handoff that failed: the checkout fails (payment voided); anything else is not the merchant's.
  const handoffFailed = (err: unknown) => {
    // A local activity's failure arrives as the cause itself (an ApplicationFailure, or a
    // TimeoutFailure after its last attempt).
    if (!(err instanceof wf.TemporalFailure)) throw err;
    const refused = err instanceof wf.ApplicationFailure && err.type === 'merchant_handoff_rejected';
    // A protocol merchant's refusal carries its own code (payment_declined, price_changed, …) and message.
    const code = refused ? (err.details?.[0] as { code?: string } | undefined)?.code : undefined;
    return fail(
      code
        ? { code, message: err.message }
        : { code: 'merchant_handoff_failed', message: `The merchant agent did not accept the handoff: ${err.message}` },
      { merchantRefused: refused },
    );
  };

  // Authorize, hand off and settle: one local activity. When it could not reach Postgres for the
  // authorization or the settle, the workflow's own steps (which retry until Postgres answers) do them.
  details(`authorizing ${plan.amount} ${plan.currency} and handing the order to ${plan.merchant_id}`);
  let together: Awaited<ReturnType<CheckoutActivities['authorizeAndHandOff']>>;
  try {
    together = await merchant.authorizeAndHandOff(req.checkoutId, confirmRequest!.consent, viaSession);
  } catch (err) {
    // It throws only for the handoff, which comes after the payment was authorized.
    authorized = true;
    return handoffFailed(err);
  }
  const payment = together.payment ?? (await dbAfterConfirm.authorizeCheckout(req.checkoutId, confirmRequest!.consent));
  if (!payment.ok) return fail(payment.rejection);
  authorized = true;
  let handoff: HandoffResult;
  let settled: CheckoutView | null;
  if (together.handoff) ({ confirmed: settled, ...handoff } = together.handoff);
  else {
    details(`payment ${payment.authorization_id} authorized; handing the order to ${plan.merchant_id}`);
    try {
      ({ confirmed: settled, ...handoff } = await merchant.handOffAndSettle(req.checkoutId, viaSession));
    } catch (err) {
      return handoffFailed(err);
    }
  }
  details(`merchant answered ${handoff.status_code}${handoff.order_id ? ` (order ${handoff.order_id})` : ''}; settling`);
  confirmed = settled ?? (await dbAfterConfirm.settleCheckout(req.checkoutId, handoff));
  if (confirmed.status === 'handed_off') {
    // The merchant asked for the buyer on its own page (UCP requires_escalation): payment voided.
    stage.set('handed_off');
    details(`${plan.merchant_id} needs the buyer on its page: handed to ${confirmed.continue_url} (payment voided)`);
    await wf.condition(wf.allHandlersFinished);
    return {
      checkoutId: req.checkoutId,
      status: 'handed_off',
      purchase,
      continue_url: confirmed.continue_url ?? null,
      payment_voided: true,
    };
  }
  stage.set('confirmed');
  details(`order handed to ${plan.merchant_id}${handoff.order_id ? ` as ${handoff.order_id}` : ''}`);
  await wf.condition(wf.allHandlersFinished);
  return { checkoutId: req.checkoutId, status: 'confirmed', purchase, order_id: handoff.order_id };
}
// Pinned: a checkout finishes on the worker version it started on (it waits at most the plan's 15
// minutes for consent, then a few steps), so a change to it never needs a patch (docs/OPERATIONS.md).
statesVersioning('PINNED', agenticCheckout);
