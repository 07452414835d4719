import { createPublicKey } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { isGrpcServiceError, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/connect';
import type { MerchantRow } from '../db/schema';
import type { SigningKey } from '../crypto/signing-keys';
import { AppError, temporalUnavailable } from '../errors';
import { waitForAnswer } from '../temporal/wait';
import { newId } from '../ids';
import { toMinorUnits } from '../money';
import type { CheckoutConfirmBody, CheckoutCreateBody } from '../schemas/checkout';
import { missingBuyerDetails, type PaymentCredential } from '../protocols/merchant-session';
import { sellsThroughSessions } from '../registry/merchant-protocol';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import { confirmUpdate, getPlanUpdate, type AgenticCheckoutWorkflow } from '../../workflows/checkout.shared';
import {
  abandonCheckout,
  checkoutView,
  findCheckout,
  getCheckoutAs,
  reclaimCheckout,
  type CheckoutRow,
  type CheckoutView,
} from './checkouts';
import { checkoutFailedError, checkoutNextSteps, failureDetails, type Surface } from './next-steps';
import { checkoutFailureStatus } from './failures';
import { sealPaymentCredential } from './merchant-session';
import { mayAct, ownerOf, type Caller } from '../tenancy';

/**
 * The API side of the agentic checkout (docs/CHECKOUT.md, docs/ARCHITECTURE.md): start the workflow
 * and wait for its plan (update-with-start `getPlan`), and confirm through the `confirm` Update after the match-token JWS
 * has been verified here (jose is async, so not inside the workflow).
 */

/**
 * How long plan and confirm wait for the workflow by default, and at most (`Prefer: wait=N`, seconds).
 * A confirm includes the merchant handoff (up to 4 attempts with backoff), so the bound is generous.
 */
export const CHECKOUT_WAIT = { defaultS: 60, maxS: 60 } as const;

/** The checkout, or (past the wait's deadline) its id: the route answers 202 with the status URL. */
export type CheckoutWait = { done: true; checkout: CheckoutView } | { done: false; checkoutId: string };

export const checkoutStatusUrl = (checkoutId: string) => `/v1/agentic-checkout/${checkoutId}`;

/**
 * For callers that cannot answer 202 (MCP, A2A): the checkout as stored when the wait ran out, or
 * 503 `checkout_pending` (Retry-After) when there is nothing stored yet (the plan is still being made).
 */
export async function settledCheckout(db: Db, answer: CheckoutWait): Promise<CheckoutView> {
  if (answer.done) return answer.checkout;
  const stored = await findCheckout(db, answer.checkoutId);
  if (stored) return checkoutView(stored);
  const message = `Checkout ${answer.checkoutId} is still being planned; read it again shortly.`;
  throw new AppError(503, 'checkout_pending', message, { checkout_id: answer.checkoutId }, { 'Retry-After': '2' });
}

function requireTemporal(t: TemporalHandle | null): TemporalHandle {
  if (!t) throw temporalUnavailable('Checkout');
  return t;
}

/**
 * A workflow's business rejection (ApplicationFailure type = the error code, details = the next action
 * when the checkout failed) as the API's error, with the code's HTTP status (src/checkout/failures.ts).
 */
function mapTemporalError(err: unknown): unknown {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type) {
    // Runs started before the workflow stopped sending statuses have [status, next_action]: the next action is the object.
    const next = err.cause.details?.find((d) => d !== null && typeof d === 'object');
    return new AppError(checkoutFailureStatus(err.cause.type), err.cause.type, err.cause.message, next ? { next_action: next } : undefined);
  }
  // gRPC UNAVAILABLE (14) / DEADLINE_EXCEEDED (4): the server does not answer.
  const grpc = isGrpcServiceError(err)
    ? err
    : isGrpcServiceError((err as { cause?: unknown })?.cause)
      ? (err as { cause: { code: number } }).cause
      : null;
  if (grpc && (grpc.code === 14 || grpc.code === 4)) return temporalUnavailable('Checkout');
  return err;
}

/**
 * Before any workflow starts: the intent, the proposal and the match token must be the caller's
 * (docs/TENANCY.md). Another developer's record answers with its own not-found, exactly as an id that
 * does not exist, so a checkout can never be planned on someone else's token. In the same statement:
 * a merchant that sells through a protocol session (UCP, ACP) needs the buyer and the destination to
 * open it, so a plan request without them is a 400 naming the fields (the plan checks again:
 * src/checkout/checkouts.ts).
 */
async function assertPlannable(db: Db, body: CheckoutCreateBody, caller: Caller): Promise<{ offerTitle: string; sellerId: string } | null> {
  // One statement for the three owners and the proposal's seller: a row for each record that exists.
  // The seller's columns, typed as the proposal arm reads them (null in the other arms).
  const noSeller = [
    sql<string | null>`null`.as('merchant_id'),
    sql<string | null>`null`.as('agent_endpoint'),
    sql<MerchantRow['protocol_version'] | null>`null`.as('protocol_version'),
    sql<MerchantRow['workflow_context'] | null>`null`.as('workflow_context'),
    sql<string | null>`null`.as('offer_title'),
    sql<string | null>`null`.as('seller_id'),
  ] as const;
  const rows = await db
    .selectFrom('intents')
    .select([sql.lit('intent').as('kind'), 'developer_id', ...noSeller])
    .where('intent_id', '=', body.intent_id)
    .unionAll(
      db
        .selectFrom('proposals as p')
        .innerJoin('intents as i', 'i.intent_id', 'p.intent_id')
        .leftJoin('merchants as m', 'm.merchant_id', 'p.merchant_agent_id')
        .select([
          sql.lit('proposal').as('kind'),
          'i.developer_id',
          'm.merchant_id',
          'm.agent_endpoint',
          'm.protocol_version',
          'm.workflow_context',
          'p.offer_title',
          'p.merchant_agent_id as seller_id',
        ])
        .where('p.proposal_id', '=', body.proposal_id),
    )
    .unionAll(
      db
        .selectFrom('match_tokens')
        .select([sql.lit('token').as('kind'), 'developer_id', ...noSeller])
        .where('match_token_id', '=', body.match_token_id),
    )
    .execute();
  const owner = (kind: string) => rows.find((r) => r.kind === kind);
  const [intent, proposal, token] = [owner('intent'), owner('proposal'), owner('token')];
  if (!intent || !mayAct(caller, intent.developer_id)) throw new AppError(404, 'intent_not_found', `No intent '${body.intent_id}'.`);
  if (proposal && !mayAct(caller, proposal.developer_id))
    throw new AppError(404, 'proposal_not_found', `No proposal '${body.proposal_id}'.`);
  if (token && !mayAct(caller, token.developer_id))
    throw new AppError(404, 'match_token_not_found', `No match token '${body.match_token_id}'.`);
  const seller = proposal?.merchant_id
    ? {
        agent_endpoint: proposal.agent_endpoint!,
        protocol_version: proposal.protocol_version!,
        workflow_context: proposal.workflow_context!,
      }
    : null;
  // What the run's summary names (the UI's workflow list), known before the plan is.
  const offer = proposal?.offer_title && proposal.seller_id ? { offerTitle: proposal.offer_title, sellerId: proposal.seller_id } : null;
  if (!seller || !sellsThroughSessions(seller)) return offer;
  const missing = missingBuyerDetails(body.buyer, body.shipping_address);
  if (missing.length) {
    throw new AppError(
      400,
      'buyer_details_missing',
      `${proposal!.merchant_id} sells through ${seller.protocol_version.toUpperCase()} and needs ${missing.join(', ')} in the plan request.`,
      { fields: missing },
    );
  }
  return offer;
}

/**
 * POST /v1/agentic-checkout: the plan (201), or the failed check's code; past `waitMs` the checkout id
 * (202). With no worker polling: 503 no_worker at once. `keyedCheckoutId` is fixed by the request's
 * Idempotency-Key claim when it has one (a new id otherwise): a retry after the API died joins the same workflow
 * (USE_EXISTING) and the same plan Update (its id), so one checkout exists, planned once.
 */
export async function createCheckout(
  temporal: TemporalHandle | null,
  db: Db,
  body: CheckoutCreateBody,
  caller: Caller,
  waitMs = CHECKOUT_WAIT.defaultS * 1000,
  keyedCheckoutId?: string,
  /** Who asked: a failure's next steps name that surface's calls. */
  surface: Surface = 'rest',
): Promise<CheckoutWait> {
  const checkoutId = keyedCheckoutId ?? newId('chk');
  const t = requireTemporal(temporal);
  const offer = await assertPlannable(db, body, caller);
  const workflowId = workflowIds.checkout(checkoutId);
  // Only an id fixed by an Idempotency-Key can have been abandoned by an earlier try of this request.
  if (keyedCheckoutId) await reclaimCheckout(db, checkoutId);
  const start = new WithStartWorkflowOperation<AgenticCheckoutWorkflow>('agenticCheckout', {
    workflowId,
    taskQueue: t.taskQueue,
    args: [{ checkoutId, workflowId, ...body, currency: body.currency.toUpperCase() }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: SA.CheckoutId, value: checkoutId },
      { key: SA.IntentId, value: body.intent_id },
      { key: SA.FlowStage, value: 'planning' },
    ],
    staticSummary: offer
      ? `Checkout of "${offer.offerTitle.slice(0, 80)}" from ${offer.sellerId} for ${body.buyer_agent_id} (${checkoutId}, proposal ${body.proposal_id})`
      : `Agentic checkout ${checkoutId}: proposal ${body.proposal_id} for ${body.buyer_agent_id}`,
    // Business keys known at start; the workflow adds merchant, amount, currency and mode with the plan.
    memo: {
      checkout_id: checkoutId,
      intent_id: body.intent_id,
      proposal_id: body.proposal_id,
      buyer_agent_id: body.buyer_agent_id,
      developer_id: ownerOf(caller),
    },
  });
  try {
    const planned = t.client.workflow.executeUpdateWithStart(getPlanUpdate, {
      startWorkflowOperation: start,
      updateId: `plan-${checkoutId}`,
    });
    const waited = await waitForAnswer(t, planned, waitMs, 'Checkout').catch(async (err) => {
      // Nobody knows this checkout id yet: a run left waiting for a worker would plan it later and hold
      // the match token (match_token_in_checkout) until the plan expires. The abandonment makes its
      // plan refuse (the start may reach the server only after this answer); the run is ended once
      // the server has it, without holding the 503 for that.
      if (err instanceof AppError && err.code === 'no_worker') {
        const reason = 'no worker polls the task queue; the caller got 503 no_worker';
        await abandonCheckout(db, checkoutId, reason);
        void t.client.workflow
          .getHandle(workflowId)
          .terminate(reason)
          .catch(() => start.workflowHandle().then((h) => h.terminate(reason)))
          .catch(() => undefined);
      }
      throw err;
    });
    return waited.done ? { done: true, checkout: waited.value } : { done: false, checkoutId };
  } catch (err) {
    const mapped = mapTemporalError(err);
    // A merchant that refused to open its session failed the checkout: answered with what the failure stored.
    if (err instanceof WorkflowUpdateFailedError) throw await asCheckoutFailure(db, checkoutId, mapped, surface);
    throw mapped;
  }
}

export interface VerifyKeys {
  signingKey: SigningKey;
  issuer: string;
}

/** Verifies the confirm body's JWS against the service's match-token key; returns its claims. */
export async function verifyMatchTokenJws(
  keys: VerifyKeys,
  jws: string,
): Promise<{ jti?: string; proposal_id?: unknown; amount?: unknown; currency?: unknown }> {
  try {
    const { payload } = await jwtVerify(jws, createPublicKey(keys.signingKey.privateKey), {
      algorithms: [keys.signingKey.alg],
      issuer: keys.issuer,
      typ: 'match-token+jwt',
    });
    return payload as never;
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired)
      throw new AppError(409, 'match_token_expired', 'The match token has expired; accept the match again for a new one.');
    throw new AppError(409, 'match_token_invalid', 'The match token is not a valid signed token of this service.');
  }
}

/**
 * The outcome Postgres holds. The API reads outcomes here, never from the run's result: a failed
 * checkout ends its workflow Failed (for operators), which is not an API error. An expired or failed
 * checkout answers with what can be done next (src/checkout/next-steps.ts), worded for `surface`.
 */
async function storedOutcome(db: Db, c: CheckoutRow, surface: Surface): Promise<CheckoutView | null> {
  if (c.status === 'confirmed' || c.status === 'handed_off') return checkoutView(c);
  if (c.status === 'expired') {
    const next = await checkoutNextSteps(db, checkoutView(c), surface);
    throw new AppError(409, 'checkout_expired', `The checkout plan expired at ${c.expires_at.toISOString()}.`, {
      checkout_id: c.checkout_id,
      next_action: next[0],
      next_steps: next,
    });
  }
  if (c.status === 'failed') {
    const f = (c.failure ?? {}) as { code?: string; message?: string };
    throw new AppError(409, 'checkout_failed', `The checkout failed (${f.code ?? 'unknown'}): ${f.message ?? ''}`.trim(), {
      failure_code: f.code ?? null,
      ...(await failureDetails(db, checkoutView(c), surface)),
    });
  }
  return null;
}

/**
 * The confirm or plan that failed the checkout, answered from what the failure stored: its code and
 * status, with the checkout id, the merchant's reason, whether the payment was voided and the next
 * steps. Any other error (a refused Update: consent, amount, …) is answered as it is.
 */
async function asCheckoutFailure(db: Db, checkoutId: string, err: unknown, surface: Surface): Promise<unknown> {
  if (!(err instanceof AppError)) return err;
  const c = await findCheckout(db, checkoutId);
  if (c?.status !== 'failed' || c.failure?.code !== err.code) return err;
  return checkoutFailedError(db, checkoutView(c), surface);
}

/**
 * The confirm's payment credential, sealed on the checkout (never in the workflow's history) for the
 * completion of the merchant's session to read. The first confirm's credential is kept: a repeated
 * confirm joins the first.
 */
async function storePaymentCredential(
  deps: { db: Db; keyEncryptionKey?: Buffer },
  c: { checkout_id: string; merchant_session: unknown },
  credential: PaymentCredential,
): Promise<void> {
  if (!c.merchant_session) return;
  await deps.db
    .updateTable('agentic_checkouts')
    .set({ payment_credential_sealed: sealPaymentCredential(deps.keyEncryptionKey, c.checkout_id, credential) })
    .where('checkout_id', '=', c.checkout_id)
    .where('payment_credential_sealed', 'is', null)
    .where('status', '=', 'awaiting_confirmation')
    .execute();
}

/** POST /v1/agentic-checkout/{id}/confirm: the confirmed checkout, or past `waitMs` its id (202); no worker: 503 no_worker. */
export async function confirmCheckout(
  deps: {
    db: Db;
    temporal: TemporalHandle | null;
    keys: VerifyKeys;
    keyEncryptionKey?: Buffer;
    /** PROTOCOL_PAYMENT_HANDLER: a UCP/ACP merchant's session is paid with it when the confirm names no credential. */
    defaultPaymentHandler?: string;
    /** Who asked: a failure's next steps name that surface's calls (default REST). */
    surface?: Surface;
  },
  checkoutId: string,
  body: CheckoutConfirmBody,
  caller: Caller,
  waitMs = CHECKOUT_WAIT.defaultS * 1000,
): Promise<CheckoutWait> {
  const c = await getCheckoutAs(deps.db, checkoutId, caller);
  const claims = await verifyMatchTokenJws(deps.keys, body.match_token);
  if (claims.jti !== c.match_token_id || claims.proposal_id !== c.proposal_id) {
    throw new AppError(
      409,
      'match_token_mismatch',
      `The signed match token is not the token (${c.match_token_id}) this checkout was planned with.`,
    );
  }
  // Confirmed already: the stored result, nothing repeated. Expired/failed: nothing to confirm.
  const surface = deps.surface ?? 'rest';
  const done = await storedOutcome(deps.db, c, surface);
  if (done) return { done: true, checkout: done };
  const t = requireTemporal(deps.temporal);
  if (body.payment_credential) await storePaymentCredential(deps, c, body.payment_credential);
  else if (c.merchant_session && !c.payment_credential_sealed && !deps.defaultPaymentHandler && c.status === 'awaiting_confirmation') {
    // Refused before anything is authorized: the merchant is paid through one of its handlers.
    const handlers = c.merchant_session.payment_handlers.map((h) => h.id).join(', ') || 'none listed';
    throw new AppError(
      400,
      'payment_credential_required',
      `${c.merchant_id} is paid through one of its payment handlers (${handlers}): send payment_credential {handler, token} with the confirm.`,
      { fields: ['payment_credential'] },
    );
  }
  const input = {
    consent: body.consent,
    proposal_id: body.proposal_id,
    amount_minor: toMinorUnits(body.amount, body.currency),
    currency: body.currency,
  };
  try {
    const confirming = t.client.workflow.getHandle(c.workflow_id).executeUpdate(confirmUpdate, { args: [input] });
    const waited = await waitForAnswer(t, confirming, waitMs, 'Checkout');
    return waited.done ? { done: true, checkout: waited.value } : { done: false, checkoutId };
  } catch (err) {
    if (err instanceof AppError) throw err;
    const mapped = mapTemporalError(err);
    if (mapped !== err)
      throw err instanceof WorkflowUpdateFailedError ? await asCheckoutFailure(deps.db, checkoutId, mapped, surface) : mapped;
    // The run ended in between (timer, another confirm): answer from what it stored.
    const now = await findCheckout(deps.db, checkoutId);
    const stored = now ? await storedOutcome(deps.db, now, surface) : null;
    if (stored) return { done: true, checkout: stored };
    throw err;
  }
}
