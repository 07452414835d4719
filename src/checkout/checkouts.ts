import { sql, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { Db } from '../db/connect';
import type { AgenticCheckoutsTable, AuditEntry, CheckoutStatus, StoredMerchantOrder } from '../db/schema-checkout';
import { AppError } from '../errors';
import { authorizeInTransaction, voidAuthorization } from '../matching/payments';
import { fromMinorUnits, toMinorUnits } from '../money';
import { transitionProposal } from '../matching/proposals';
import { callMerchant, merchantSecretOrNull } from '../outbound/merchant';
import { iso } from '../time';
import { mayAct, SYSTEM, type Caller } from '../tenancy';
import { checkoutFailureStatus } from './failures';
import { merchantReasonOf, reasonFromBody } from './merchant-reason';
import { nextStepFacts, nextSteps } from './next-steps';
import { missingBuyerDetails, type SessionAddress, type SessionBuyer } from '../protocols/merchant-session';
import { checkoutModeOf, checkoutSellerFrom, continueUrl, redirectRecId } from './seller';
import type { z } from 'zod';
import type { CheckoutPlan, NextAction as NextActionSchema, Rejection } from '../schemas/checkout';

/**
 * Agentic checkout (docs/CHECKOUT.md). Every function here is called by one
 * activity of the `agenticCheckout` workflow (the API only reads): plan, authorize, hand off (to the
 * merchant agent, or to the merchant's site), settle, expire, fail (voiding a payment authorization
 * that can no longer be handed off). Each is safe to run again (activity retries, workflow resets).
 */

export type CheckoutRow = Selectable<AgenticCheckoutsTable>;

/** What the buyer's agent can do after a failed checkout (in the failure record and the error body). */
export type NextAction = z.infer<typeof NextActionSchema>;

export const checkoutNotFound = (id: string) => new AppError(404, 'checkout_not_found', `No agentic checkout '${id}'.`);

export interface CheckoutRequest {
  checkoutId: string;
  workflowId: string;
  buyer_agent_id: string;
  intent_id: string;
  proposal_id: string;
  match_token_id: string;
  amount: number;
  currency: string;
  shipping_address?: Record<string, unknown> | null;
  /** The buyer's contact details (a UCP/ACP merchant needs them to open its session). */
  buyer?: SessionBuyer | null;
  metadata?: Record<string, unknown>;
}

export function checkoutView(c: CheckoutRow) {
  return {
    checkout_id: c.checkout_id,
    status: c.status,
    buyer_agent_id: c.buyer_agent_id,
    intent_id: c.intent_id,
    proposal_id: c.proposal_id,
    match_token_id: c.match_token_id,
    merchant_id: c.merchant_id,
    checkout_mode: c.checkout_mode,
    continue_url: c.continue_url,
    amount: fromMinorUnits(c.amount_cents, c.currency),
    currency: c.currency,
    // Plans stored before checkout modes existed have none: the column (default agent_handoff) is the truth.
    plan: { ...c.plan, checkout_mode: c.checkout_mode },
    expires_at: c.expires_at.toISOString(),
    shipping_address: c.shipping_address,
    metadata: c.metadata,
    payment_authorization_id: c.payment_authorization_id,
    buyer: c.buyer,
    merchant_session: c.merchant_session && {
      protocol: c.merchant_session.protocol,
      session_id: c.merchant_session.session_id,
      status: c.merchant_session.status,
      fulfillment: c.merchant_session.fulfillment,
      payment_handlers: c.merchant_session.payment_handlers,
      continue_url: c.merchant_session.continue_url,
      messages: c.merchant_session.messages,
    },
    order: c.merchant_order,
    receipt: c.receipt,
    audit_trail: c.audit_trail,
    failure: c.failure,
    workflow_id: c.workflow_id,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
    confirmed_at: iso(c.confirmed_at),
    expired_at: iso(c.expired_at),
  };
}
export type CheckoutView = ReturnType<typeof checkoutView>;

export async function findCheckout(db: Db, id: string): Promise<CheckoutRow | undefined> {
  return db.selectFrom('agentic_checkouts').selectAll().where('checkout_id', '=', id).executeTakeFirst();
}

export async function getCheckout(db: Db, id: string): Promise<CheckoutRow> {
  const c = await findCheckout(db, id);
  if (!c) throw checkoutNotFound(id);
  return c;
}

/** A checkout as `caller` may see it: its developer's keys only (another's is 404 checkout_not_found). */
export async function getCheckoutAs(db: Db, id: string, caller: Caller): Promise<CheckoutRow> {
  const c = await findCheckout(db, id);
  if (!c || !mayAct(caller, c.developer_id)) throw checkoutNotFound(id);
  return c;
}

/** Appends an audit entry unless one with the same step is there already (retries append once). */
function appendAudit(step: string, outcome: string, detail?: Record<string, unknown>): RawBuilder<AuditEntry[]> {
  const entry: AuditEntry = { step, at: new Date().toISOString(), outcome, ...(detail ? { detail } : {}) };
  return sql<
    AuditEntry[]
  >`case when audit_trail @> ${JSON.stringify([{ step }])}::jsonb then audit_trail else audit_trail || ${JSON.stringify([entry])}::jsonb end`;
}

/** Sets the outcome (and detail) of the entry `step`, keeping its place and `at`; appends it if absent. */
export function settleAudit(
  step: string,
  outcome: string,
  detail: Record<string, unknown>,
  answeredAt = new Date().toISOString(),
): RawBuilder<AuditEntry[]> {
  const entry: AuditEntry = { step, at: answeredAt, outcome, detail };
  const patch = JSON.stringify({ outcome, detail: { ...detail, answered_at: answeredAt } });
  return sql<AuditEntry[]>`case when audit_trail @> ${JSON.stringify([{ step }])}::jsonb
    then (select jsonb_agg(case when e->>'step' = ${step} then e || ${patch}::jsonb else e end order by i) from jsonb_array_elements(audit_trail) with ordinality as x(e, i))
    else audit_trail || ${JSON.stringify([entry])}::jsonb end`;
}

/** Shipping cost from the proposal's shipping_commitment: `free: true` → 0, else a numeric cost/price/amount/fee. */
export function shippingMinor(commitment: Record<string, unknown>, currency = 'USD'): number {
  if (commitment.free === true) return 0;
  for (const k of ['cost', 'price', 'amount', 'fee']) {
    const v = commitment[k];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return toMinorUnits(v, currency);
  }
  return 0;
}

const reject = (status: number, code: string, message: string): { ok: false; rejection: Rejection } => ({
  ok: false,
  rejection: { status, code, message },
});

export type PlanResult = { ok: true; checkout: CheckoutView } | { ok: false; rejection: Rejection };

/**
 * Validates proposal, inventory and token against the request and stores the plan (status
 * awaiting_confirmation, expires_at = now + ttl). A repeated run returns the stored checkout.
 */
export async function planCheckout(db: Db, req: CheckoutRequest, ttlSeconds: number, publicBaseUrl: string): Promise<PlanResult> {
  // One read for the repeated run's checkout, the intent, the proposal, the token and the proposal's
  // merchant (src/checkout/seller.ts decides what it means); each may be missing.
  const r = await db
    .selectFrom(sql<{ one: number }>`(select 1)`.as('x'))
    .leftJoin('agentic_checkouts as c', (j) => j.on('c.checkout_id', '=', req.checkoutId))
    .leftJoin('intents as i', (j) => j.on('i.intent_id', '=', req.intent_id))
    .leftJoin('proposals as p', (j) => j.on('p.proposal_id', '=', req.proposal_id))
    .leftJoin('match_tokens as t', (j) => j.on('t.match_token_id', '=', req.match_token_id))
    .leftJoin('merchants as m', 'm.merchant_id', 'p.merchant_agent_id')
    // The merchant's own id of the product (its feed id): the item id a merchant's protocol names.
    .leftJoin('products as pr', 'pr.product_id', 'p.product_id')
    .select([
      'c.checkout_id as existing_id',
      'i.intent_id as found_intent_id',
      'i.developer_id as intent_developer_id',
      'p.proposal_id',
      'p.intent_id',
      'p.proposal_state',
      'p.status',
      'p.valid_until',
      'p.inventory_status',
      'p.shipping_commitment',
      'p.currency',
      'p.price_cents',
      'p.product_id',
      'pr.external_id as product_external_id',
      'p.offer_title',
      'p.merchant_agent_id',
      'p.provenance',
      'p.metadata',
      't.match_token_id',
      't.proposal_id as token_proposal_id',
      't.intent_id as token_intent_id',
      't.acceptance_state',
      't.expires_at as token_expires_at',
      't.match_session_id',
      'm.merchant_id as seller_merchant_id',
      'm.agent_endpoint as seller_agent_endpoint',
      'm.protocol_version as seller_protocol',
      'm.workflow_context as seller_workflow_context',
    ])
    .executeTakeFirstOrThrow();
  if (r.existing_id) return { ok: true, checkout: checkoutView(await getCheckout(db, req.checkoutId)) };

  if (!r.found_intent_id) return reject(404, 'intent_not_found', `No intent '${req.intent_id}'.`);
  const intent = { intent_id: r.found_intent_id, developer_id: r.intent_developer_id };
  if (!r.proposal_id) return reject(404, 'proposal_not_found', `No proposal '${req.proposal_id}'.`);
  const proposal = {
    proposal_id: r.proposal_id,
    intent_id: r.intent_id!,
    proposal_state: r.proposal_state!,
    status: r.status!,
    valid_until: r.valid_until,
    inventory_status: r.inventory_status,
    shipping_commitment: r.shipping_commitment,
    currency: r.currency!,
    price_cents: r.price_cents!,
    product_id: r.product_id!,
    offer_title: r.offer_title!,
    merchant_agent_id: r.merchant_agent_id!,
    provenance: r.provenance!,
    metadata: r.metadata!,
  };
  if (proposal.intent_id !== req.intent_id) {
    return reject(
      409,
      'proposal_intent_mismatch',
      `Proposal ${proposal.proposal_id} answers intent ${proposal.intent_id}, not ${req.intent_id}.`,
    );
  }
  const now = new Date();
  if (proposal.proposal_state === 'expired' || proposal.status === 'expired' || (proposal.valid_until && proposal.valid_until <= now)) {
    return reject(409, 'proposal_expired', `Proposal ${proposal.proposal_id} has expired.`);
  }
  if (proposal.status !== 'active' || !['pending_confirmation', 'accepted'].includes(proposal.proposal_state)) {
    return reject(
      409,
      'proposal_state_invalid',
      `Proposal ${proposal.proposal_id} is ${proposal.status}/${proposal.proposal_state}; checkout needs an active proposal a match token names.`,
    );
  }
  if (proposal.inventory_status === 'out_of_stock') {
    return reject(409, 'inventory_unavailable', `Proposal ${proposal.proposal_id} is out of stock.`);
  }

  if (!r.match_token_id) return reject(404, 'match_token_not_found', `No match token '${req.match_token_id}'.`);
  const token = {
    match_token_id: r.match_token_id,
    proposal_id: r.token_proposal_id!,
    intent_id: r.token_intent_id!,
    acceptance_state: r.acceptance_state!,
    expires_at: r.token_expires_at!,
    match_session_id: r.match_session_id ?? null,
  };
  if (token.proposal_id !== proposal.proposal_id || token.intent_id !== req.intent_id) {
    return reject(
      409,
      'match_token_mismatch',
      `Match token ${token.match_token_id} names proposal ${token.proposal_id}, not ${proposal.proposal_id}.`,
    );
  }
  if (
    token.acceptance_state === 'expired' ||
    token.acceptance_state === 'revoked' ||
    (['issued', 'accepted'].includes(token.acceptance_state) && token.expires_at <= now)
  ) {
    return reject(409, 'match_token_expired', `Match token ${token.match_token_id} expired at ${token.expires_at.toISOString()}.`);
  }
  if (token.acceptance_state !== 'accepted' && token.acceptance_state !== 'payment_authorized') {
    return reject(
      409,
      'acceptance_state_invalid',
      `Match token ${token.match_token_id} is ${token.acceptance_state}; checkout needs an accepted token.`,
    );
  }

  const commitment = (proposal.shipping_commitment ?? {}) as Record<string, unknown>;
  const shipping = shippingMinor(commitment, proposal.currency);
  const total = proposal.price_cents + shipping;
  if (req.currency.toUpperCase() !== proposal.currency) {
    return reject(409, 'currency_mismatch', `currency ${req.currency} does not match the proposal currency ${proposal.currency}.`);
  }
  if (toMinorUnits(req.amount, proposal.currency) !== total) {
    const m = (minor: number) => fromMinorUnits(minor, proposal.currency);
    return reject(
      409,
      'amount_mismatch',
      `amount ${req.amount} does not match the checkout total ${m(total)} (price ${m(proposal.price_cents)} + shipping ${m(shipping)}).`,
    );
  }

  // The mode is fixed with the plan: the buyer consents to what the plan says will happen.
  const seller = checkoutSellerFrom(
    proposal,
    r.seller_merchant_id
      ? { agent_endpoint: r.seller_agent_endpoint!, protocol_version: r.seller_protocol!, workflow_context: r.seller_workflow_context! }
      : undefined,
  );
  const mode = checkoutModeOf(seller);
  // A merchant that sells through a protocol session needs the buyer and the destination to open it.
  const sessionMerchant = mode === 'agent_handoff' && seller.protocol !== 'gateway';
  if (sessionMerchant) {
    const missing = missingBuyerDetails(req.buyer, req.shipping_address as Partial<SessionAddress> | null | undefined);
    if (missing.length) {
      return reject(
        400,
        'buyer_details_missing',
        `${seller.merchant_id} sells through ${seller.protocol.toUpperCase()} and needs ${missing.join(', ')} in the plan request.`,
      );
    }
  }
  const recId =
    mode === 'merchant_redirect'
      ? await redirectRecId(db, { checkoutId: req.checkoutId, proposal, matchSessionId: token.match_session_id, publicBaseUrl })
      : null;

  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const plan: CheckoutPlan = {
    checkout_id: req.checkoutId,
    intent_id: req.intent_id,
    proposal_id: proposal.proposal_id,
    match_token_id: token.match_token_id,
    merchant_id: seller.merchant_id,
    checkout_mode: mode,
    merchant_protocol: mode === 'agent_handoff' ? seller.protocol : null,
    ...(mode === 'merchant_redirect' ? { rec_id: recId } : {}),
    buyer_agent_id: req.buyer_agent_id,
    line_items: [
      {
        product_id: proposal.product_id,
        external_id: r.product_external_id ?? null,
        title: proposal.offer_title,
        quantity: 1,
        unit_amount_minor: proposal.price_cents,
        amount_minor: proposal.price_cents,
      },
    ],
    shipping: { amount_minor: shipping, commitment },
    totals: { subtotal_minor: proposal.price_cents, shipping_minor: shipping, total_minor: total },
    amount: fromMinorUnits(total, proposal.currency),
    currency: proposal.currency,
    shipping_address: req.shipping_address ?? null,
    expires_at: expiresAt.toISOString(),
  };
  const audit: AuditEntry[] = [
    {
      step: 'plan_created',
      at: now.toISOString(),
      outcome: 'awaiting_confirmation',
      detail: { total_minor: total, currency: proposal.currency, expires_at: plan.expires_at, checkout_mode: mode },
    },
  ];
  try {
    const row = await db
      .insertInto('agentic_checkouts')
      .values({
        checkout_id: req.checkoutId,
        status: 'awaiting_confirmation',
        buyer_agent_id: req.buyer_agent_id,
        intent_id: req.intent_id,
        proposal_id: proposal.proposal_id,
        match_token_id: token.match_token_id,
        merchant_id: seller.merchant_id,
        checkout_mode: mode,
        amount_cents: total,
        currency: proposal.currency,
        plan: JSON.stringify(plan),
        shipping_address: req.shipping_address ? JSON.stringify(req.shipping_address) : null,
        buyer: req.buyer ? JSON.stringify(req.buyer) : null,
        metadata: JSON.stringify(req.metadata ?? {}),
        audit_trail: JSON.stringify(audit),
        workflow_id: req.workflowId,
        // The checkout belongs to its intent's developer (the API checked the caller is that developer).
        developer_id: intent.developer_id,
        expires_at: expiresAt,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ok: true, checkout: checkoutView(row) };
  } catch (err) {
    if ((err as { code?: string }).code === ABANDONED)
      return reject(
        409,
        'checkout_abandoned',
        `Checkout ${req.checkoutId} was given up before it was planned (its caller was answered 503 no_worker); plan again.`,
      );
    if ((err as { constraint?: string }).constraint === 'agentic_checkouts_live_token_key') {
      const live = await db
        .selectFrom('agentic_checkouts')
        .select(['checkout_id', 'developer_id'])
        .where('match_token_id', '=', token.match_token_id)
        .where('status', 'in', ['awaiting_confirmation', 'confirming', 'confirmed'])
        .executeTakeFirst();
      // Name the other checkout only when it is the same developer's: ids never cross tenants.
      const named =
        live && live.developer_id !== null && live.developer_id === intent.developer_id
          ? `checkout ${live.checkout_id}`
          : 'another checkout';
      return reject(409, 'match_token_in_checkout', `Match token ${token.match_token_id} is already used by ${named}.`);
    }
    throw err;
  }
}

/** The error the insert of an abandoned checkout raises (migration 0033's trigger). */
const ABANDONED = 'P0A01';

/** The lock migration 0033's trigger takes on a checkout id. */
const lockCheckoutId = (db: Db, checkoutId: string) =>
  sql`select pg_advisory_xact_lock(hashtextextended(${`checkout:${checkoutId}`}, 0))`.execute(db);

/**
 * The caller of a plan was answered 503 no_worker: the run may still start, or have just planned,
 * after the API gave up on it. Records the checkout id as abandoned (a later plan of it is refused)
 * and fails a plan that got in first, so nothing holds the match token for a checkout nobody knows.
 */
export async function abandonCheckout(db: Db, checkoutId: string, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockCheckoutId(trx, checkoutId);
    await trx
      .insertInto('checkout_abandonments')
      .values({ checkout_id: checkoutId, reason })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const failure: Rejection = { status: 503, code: 'no_worker', message: reason };
    await trx
      .updateTable('agentic_checkouts')
      .set({ status: 'failed', failure: JSON.stringify(failure), updated_at: new Date() })
      .where('checkout_id', '=', checkoutId)
      .where('status', '=', 'awaiting_confirmation')
      .execute();
  });
}

/** A retry under the same Idempotency-Key (the same checkout id) wants that checkout again. */
export async function reclaimCheckout(db: Db, checkoutId: string): Promise<void> {
  await db.deleteFrom('checkout_abandonments').where('checkout_id', '=', checkoutId).execute();
}

export interface Consent {
  granted: boolean;
  statement?: string;
  granted_at?: string;
}

/** The payment authorization of a confirm: its id, or the refusal the checkout fails with. */
export type AuthorizeResult = { ok: true; authorization_id: string } | { ok: false; rejection: Rejection };

/**
 * Records the consent and authorizes payment on the match token (token → payment_authorized, proposal
 * → accepted), in one transaction. A refused authorization commits the consent alone (and a token
 * found expired); a retry finds the authorization stored and answers with it.
 */
export async function authorizeCheckout(db: Db, checkoutId: string, consent: Consent): Promise<AuthorizeResult> {
  return db.transaction().execute(async (trx) => {
    const c = await trx.selectFrom('agentic_checkouts').selectAll().where('checkout_id', '=', checkoutId).forUpdate().executeTakeFirst();
    if (!c) throw checkoutNotFound(checkoutId);
    if (c.payment_authorization_id) return { ok: true as const, authorization_id: c.payment_authorization_id };
    // Money is only authorized for an order an agent will take (the workflow never asks otherwise).
    if (c.checkout_mode !== 'agent_handoff') throw new Error(`checkout ${checkoutId} is ${c.checkout_mode}: no payment is authorized`);
    const result = await authorizeInTransaction(trx, c.match_token_id, { proposal_id: c.proposal_id, currency: c.currency }, SYSTEM);
    const at = new Date().toISOString();
    const consenting = c.status === 'awaiting_confirmation';
    const audit: AuditEntry[] = [];
    if (consenting) {
      const detail = { statement: consent.statement ?? null, granted_at: consent.granted_at ?? null };
      audit.push({ step: 'consent_recorded', at, outcome: 'granted', detail });
    }
    if (result.ok) {
      const { authorization_id, amount_cents, currency } = result.authorization;
      audit.push({
        step: 'payment_authorized',
        at,
        outcome: 'authorized',
        detail: { authorization_id, amount_minor: amount_cents, currency },
      });
    }
    await trx
      .updateTable('agentic_checkouts')
      .set({
        ...(consenting ? { status: 'confirming' as const, consent: JSON.stringify(consent) } : {}),
        ...(result.ok ? { payment_authorization_id: result.authorization.authorization_id } : {}),
        audit_trail: sql<AuditEntry[]>`audit_trail || ${JSON.stringify(audit)}::jsonb`,
        updated_at: new Date(at),
      })
      .where('checkout_id', '=', checkoutId)
      .execute();
    if (!result.ok)
      return { ok: false as const, rejection: { status: result.error.status, code: result.error.code, message: result.error.message } };
    return { ok: true as const, authorization_id: result.authorization.authorization_id };
  });
}

export interface HandoffResult {
  status_code: number;
  order_id: string | null;
  response: unknown;
  handed_off_at: string;
  /** A protocol merchant's order (src/checkout/merchant-session.ts), stored on the checkout by the settle. */
  order?: StoredMerchantOrder;
  /**
   * A protocol merchant that needs the buyer on its own page (UCP `requires_escalation`): the settle
   * voids the payment authorization and hands the buyer to `continue_url` instead of confirming.
   */
  escalation?: { continue_url: string; message: string };
  /**
   * The audit step of the attempt the merchant took and what to record on it, when that is left to
   * the settle (`recordAnswer: false`), which writes it in its own transaction.
   */
  answer?: { step: string; detail: Record<string, unknown> };
}

/** Thrown for a merchant answer that must not be retried (4xx other than 408/429, unsafe endpoint). */
export class HandoffRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandoffRejected';
  }
}

/** The exact body the merchant receives: built from the stored checkout, so every retry sends the same. */
export function handoffPayload(c: CheckoutRow) {
  return JSON.stringify({
    type: 'checkout.handoff',
    checkout_id: c.checkout_id,
    intent_id: c.intent_id,
    proposal_id: c.proposal_id,
    match_token_id: c.match_token_id,
    payment_authorization_id: c.payment_authorization_id,
    buyer: { buyer_agent_id: c.buyer_agent_id },
    shipping: { address: c.shipping_address, ...c.plan.shipping },
    plan: c.plan,
    amount: fromMinorUnits(c.amount_cents, c.currency),
    currency: c.currency,
  });
}

export interface HandoffDeps {
  db: Db;
  keyEncryptionKey: Buffer | undefined;
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
}

/** The audit steps of handoff attempts are this prefix and the attempt's number (1, 2, …). */
const HANDOFF_STEP = 'merchant_handoff_attempt_';

/**
 * POSTs the checkout to the merchant agent's endpoint with `Idempotency-Key: <checkout_id>` (and the
 * merchant's Standard Webhooks signature, webhook-id = checkout id). 2xx → the receipt data; other
 * answers throw (retryable unless HandoffRejected). Each attempt is in the audit trail, written
 * BEFORE the request goes out (outcome `sending`), then settled with the answer: an attempt cut off
 * by a worker crash stays `sending`, so the trail names every attempt that may have reached the
 * merchant (which de-duplicates them by the Idempotency-Key).
 */
export async function handOffToMerchant(
  deps: HandoffDeps,
  checkoutId: string,
  { recordAnswer = true }: { recordAnswer?: boolean } = {},
): Promise<HandoffResult> {
  // One statement reads the checkout and its merchant and writes the attempt (`sending`). The attempt
  // number is counted from the trail, not taken from Temporal: a local activity's attempt count starts
  // again after a worker died, and every attempt that may have reached the merchant needs its own entry.
  const c = await deps.db
    .updateTable('agentic_checkouts as c')
    .from('merchants as m')
    .set({
      audit_trail: sql<AuditEntry[]>`c.audit_trail || jsonb_build_array(jsonb_build_object(
        'step', 'merchant_handoff_attempt_' || (1 + (select count(*) from jsonb_array_elements(c.audit_trail) e where starts_with(e->>'step', ${HANDOFF_STEP}))),
        'at', ${new Date().toISOString()}::text, 'outcome', 'sending',
        'detail', jsonb_build_object('endpoint', m.agent_endpoint, 'idempotency_key', c.checkout_id)))`,
      updated_at: new Date(),
    })
    .whereRef('m.merchant_id', '=', 'c.merchant_id')
    .where('c.checkout_id', '=', checkoutId)
    .where('c.checkout_mode', '=', 'agent_handoff')
    .returningAll('c')
    .returning(['m.agent_endpoint', 'm.webhook_secret_sealed'])
    .executeTakeFirst();
  if (!c) {
    const stored = await getCheckout(deps.db, checkoutId);
    if (stored.checkout_mode !== 'agent_handoff')
      throw new HandoffRejected(`checkout ${checkoutId} is ${stored.checkout_mode}: there is no merchant agent to hand off to`);
    throw new HandoffRejected(`merchant ${stored.merchant_id} is not registered`);
  }
  const m = { merchant_id: c.merchant_id, agent_endpoint: c.agent_endpoint, webhook_secret_sealed: c.webhook_secret_sealed };
  const body = handoffPayload(c);
  const step = c.audit_trail.at(-1)!.step;
  const note = (outcome: string, detail: Record<string, unknown>) =>
    deps.db
      .updateTable('agentic_checkouts')
      .set({ audit_trail: settleAudit(step, outcome, detail), updated_at: new Date() })
      .where('checkout_id', '=', checkoutId)
      .execute();
  let res;
  try {
    res = await callMerchant(deps, {
      endpoint: m.agent_endpoint,
      messageId: c.checkout_id,
      body,
      // A secret sealed under another key cannot be opened: the handoff still goes out, unsigned.
      secret: merchantSecretOrNull(deps.keyEncryptionKey, m.merchant_id, m.webhook_secret_sealed),
      headers: { 'idempotency-key': c.checkout_id },
      timeoutMs: deps.timeoutMs,
      maxBytes: 64 * 1024,
    });
  } catch (err) {
    await note('failed', { endpoint: m.agent_endpoint, error: (err as Error).message });
    throw new Error(`merchant handoff failed: ${(err as Error).message}`, { cause: err });
  }
  if (res.status === null) {
    const reason = `${res.failure!.reason}: ${res.failure!.message}`;
    await note('failed', { endpoint: m.agent_endpoint, error: reason });
    if (res.outcome === 'unsafe') throw new HandoffRejected(reason);
    throw new Error(`merchant handoff failed: ${reason}`);
  }
  if (res.outcome !== 'accepted') {
    // A refusal's reason ("Sorry, this item just sold out.") is passed on to the buyer's agent, bounded.
    const reason = res.outcome === 'refused' ? reasonFromBody(res.body, res.headers) : null;
    await note('failed', { endpoint: m.agent_endpoint, status_code: res.status, ...(reason ? { reason } : {}) });
    if (res.outcome === 'refused') throw new HandoffRejected(`merchant answered HTTP ${res.status}${reason ? `: ${reason}` : ''}`);
    throw new Error(`merchant answered HTTP ${res.status}`);
  }
  let response: unknown;
  const text = res.body.toString('utf8');
  try {
    response = text ? JSON.parse(text) : null;
  } catch {
    response = text.slice(0, 500);
  }
  const r = (response && typeof response === 'object' ? response : {}) as Record<string, unknown>;
  const orderId = typeof r.order_id === 'string' ? r.order_id : typeof r.merchant_order_id === 'string' ? r.merchant_order_id : null;
  const handedOffAt = new Date().toISOString();
  const answer = { step, detail: { endpoint: m.agent_endpoint, status_code: res.status, order_id: orderId } };
  const result = { status_code: res.status, order_id: orderId, response, handed_off_at: handedOffAt };
  if (!recordAnswer) return { ...result, answer };
  await note('handed_off', answer.detail);
  return result;
}

/**
 * Receipt stored; proposal → settled, token → consumed, checkout → confirmed, and the handoff's
 * answer when it was left to this step (one transaction).
 */
export async function settleCheckout(db: Db, checkoutId: string, handoff: HandoffResult): Promise<CheckoutView> {
  return db.transaction().execute(async (trx) => {
    const c = await trx.selectFrom('agentic_checkouts').selectAll().where('checkout_id', '=', checkoutId).forUpdate().executeTakeFirst();
    if (!c) throw checkoutNotFound(checkoutId);
    if (c.status === 'confirmed' || c.status === 'handed_off') return checkoutView(c);
    if (handoff.escalation) return escalateInTransaction(trx, c, handoff, handoff.escalation);
    await transitionProposal(trx, c.proposal_id, 'settled', `checkout ${checkoutId}: merchant handoff receipt`);
    const now = new Date();
    await trx
      .updateTable('match_tokens')
      .set({ acceptance_state: 'consumed', updated_at: now })
      .where('match_token_id', '=', c.match_token_id)
      .where('acceptance_state', '=', 'payment_authorized')
      .execute();
    const answered = handoff.answer
      ? settleAudit(handoff.answer.step, 'handed_off', handoff.answer.detail, handoff.handed_off_at)
      : sql<AuditEntry[]>`audit_trail`;
    const receipt = {
      receipt_id: `rcpt_${checkoutId.replace(/^chk_/, '')}`,
      // The merchant took the order (`handed_off` is the redirect's word: the buyer went to the merchant's page).
      status: 'order_placed',
      merchant_id: c.merchant_id,
      merchant_response: { status_code: handoff.status_code, order_id: handoff.order_id, body: handoff.response },
      payment_authorization_id: c.payment_authorization_id,
      amount: fromMinorUnits(c.amount_cents, c.currency),
      currency: c.currency,
      handed_off_at: handoff.handed_off_at,
    };
    const row = await trx
      .updateTable('agentic_checkouts')
      .set({
        status: 'confirmed',
        receipt: JSON.stringify(receipt),
        ...(handoff.order ? { merchant_order: JSON.stringify(handoff.order) } : {}),
        confirmed_at: now,
        updated_at: now,
        audit_trail: sql<AuditEntry[]>`${answered} || ${JSON.stringify([
          { step: 'proposal_settled', at: now.toISOString(), outcome: 'settled', detail: { proposal_id: c.proposal_id } },
          { step: 'match_token_consumed', at: now.toISOString(), outcome: 'consumed', detail: { match_token_id: c.match_token_id } },
          { step: 'confirmed', at: now.toISOString(), outcome: 'confirmed', detail: { receipt_id: receipt.receipt_id } },
        ])}::jsonb`,
      })
      .where('checkout_id', '=', checkoutId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return checkoutView(row);
  });
}

/** Voids the checkout's standing payment authorization, if any: the audit entry saying so (none when nothing was voided). */
async function voidStanding(trx: Transaction<Database>, c: CheckoutRow, reason: string, note: string): Promise<AuditEntry[]> {
  if (!c.payment_authorization_id) return [];
  const v = await voidAuthorization(trx, c.payment_authorization_id, note);
  if (!v.voided) return [];
  const detail = { authorization_id: c.payment_authorization_id, reason, match_token_id: v.tokenId, acceptance_state: v.acceptanceState };
  return [{ step: 'payment_voided', at: new Date().toISOString(), outcome: 'voided', detail }];
}

/**
 * A protocol merchant answered the completion with "the buyer must finish on our page": the
 * authorization is voided (no money moves through the gateway), and the checkout is handed off to
 * the merchant's `continue_url` as a merchant_redirect (status handed_off), in the settle's transaction.
 */
async function escalateInTransaction(
  trx: Transaction<Database>,
  c: CheckoutRow,
  handoff: HandoffResult,
  escalation: NonNullable<HandoffResult['escalation']>,
) {
  const now = new Date();
  const audit: AuditEntry[] = [];
  const answered = handoff.answer
    ? settleAudit(handoff.answer.step, 'requires_escalation', handoff.answer.detail, handoff.handed_off_at)
    : sql<AuditEntry[]>`audit_trail`;
  audit.push(
    ...(await voidStanding(trx, c, 'requires_escalation', `checkout ${c.checkout_id}: the merchant asked for the buyer on its page`)),
  );
  audit.push({
    step: 'handed_off_to_merchant_site',
    at: now.toISOString(),
    outcome: 'handed_off',
    detail: { continue_url: escalation.continue_url, reason: escalation.message, payment: 'none' },
  });
  const receipt = {
    receipt_id: `rcpt_${c.checkout_id.replace(/^chk_/, '')}`,
    status: 'handed_off',
    checkout_mode: 'merchant_redirect',
    merchant_id: c.merchant_id,
    continue_url: escalation.continue_url,
    reason: escalation.message,
    payment_authorization_id: null,
    amount: fromMinorUnits(c.amount_cents, c.currency),
    currency: c.currency,
    handed_off_at: handoff.handed_off_at,
  };
  const row = await trx
    .updateTable('agentic_checkouts')
    .set({
      status: 'handed_off',
      checkout_mode: 'merchant_redirect',
      continue_url: escalation.continue_url,
      receipt: JSON.stringify(receipt),
      updated_at: now,
      audit_trail: sql<AuditEntry[]>`${answered} || ${JSON.stringify(audit)}::jsonb`,
    })
    .where('checkout_id', '=', c.checkout_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return checkoutView(row);
}

/** The plan's timer fired before a confirm: awaiting_confirmation → expired (token and proposal stay as they are). */
export async function expireCheckout(db: Db, checkoutId: string): Promise<CheckoutStatus> {
  const now = new Date();
  const row = await db
    .updateTable('agentic_checkouts')
    .set({
      status: 'expired',
      expired_at: now,
      updated_at: now,
      audit_trail: appendAudit('expired', 'expired', { reason: 'plan not confirmed before expires_at' }),
    })
    .where('checkout_id', '=', checkoutId)
    .where('status', '=', 'awaiting_confirmation')
    .returning('status')
    .executeTakeFirst();
  return row?.status ?? (await getCheckout(db, checkoutId)).status;
}

/**
 * merchant_redirect confirm: no payment, no merchant call. The consent is recorded and the buyer is
 * handed the attributable link to the product page; the merchant's order, when it comes, is
 * attributed by that rec_id. Status handed_off (terminal); token and proposal stay as they are.
 */
export async function handOffToMerchantSite(db: Db, checkoutId: string, consent: Consent, publicBaseUrl: string): Promise<CheckoutView> {
  const c = await getCheckout(db, checkoutId);
  if (c.status === 'handed_off') return checkoutView(c);
  if (c.checkout_mode !== 'merchant_redirect') throw new Error(`checkout ${checkoutId} is ${c.checkout_mode}, not merchant_redirect`);
  const plan = c.plan;
  if (!plan.rec_id) throw new Error(`checkout ${checkoutId} has no rec_id to redirect through`);
  const url = continueUrl(publicBaseUrl, plan.rec_id);
  const now = new Date();
  const receipt = {
    receipt_id: `rcpt_${checkoutId.replace(/^chk_/, '')}`,
    status: 'handed_off',
    checkout_mode: 'merchant_redirect',
    merchant_id: c.merchant_id,
    continue_url: url,
    rec_id: plan.rec_id,
    payment_authorization_id: null,
    amount: c.amount_cents / 100,
    currency: c.currency,
    handed_off_at: now.toISOString(),
  };
  const row = await db
    .updateTable('agentic_checkouts')
    .set({
      status: 'handed_off',
      consent: JSON.stringify(consent),
      continue_url: url,
      receipt: JSON.stringify(receipt),
      updated_at: now,
      audit_trail: sql<AuditEntry[]>`audit_trail || ${JSON.stringify([
        {
          step: 'consent_recorded',
          at: now.toISOString(),
          outcome: 'granted',
          detail: { statement: consent.statement ?? null, granted_at: consent.granted_at ?? null },
        },
        {
          step: 'handed_off_to_merchant_site',
          at: now.toISOString(),
          outcome: 'handed_off',
          detail: { continue_url: url, rec_id: plan.rec_id, payment: 'none' },
        },
      ])}::jsonb`,
    })
    .where('checkout_id', '=', checkoutId)
    .where('status', 'in', ['awaiting_confirmation', 'confirming'])
    .returningAll()
    .executeTakeFirst();
  return checkoutView(row ?? (await getCheckout(db, checkoutId)));
}

/**
 * A confirm that could not complete (payment refused, merchant handoff failed): the saga's
 * compensation and the failure in one transaction. A payment authorization still standing is voided
 * (audit `payment_voided`; token back to `accepted` while unexpired, proposal back to
 * `pending_confirmation`), then the checkout is `failed` with the reason and the next action. So no
 * token stays `payment_authorized` without a live checkout. Returns the rejection as stored.
 */
export async function failCheckout(
  db: Db,
  checkoutId: string,
  rejection: Rejection,
  opts: { merchantRefused?: boolean } = {},
): Promise<Rejection> {
  return db.transaction().execute(async (trx) => {
    const c = await trx.selectFrom('agentic_checkouts').selectAll().where('checkout_id', '=', checkoutId).forUpdate().executeTakeFirst();
    if (!c) throw checkoutNotFound(checkoutId);
    // A failed checkout always has its failure stored (this function writes both at once).
    if (c.status === 'failed') return c.failure ?? rejection;
    if (c.status !== 'awaiting_confirmation' && c.status !== 'confirming') return rejection;
    const audit: AuditEntry[] = [];
    audit.push(...(await voidStanding(trx, c, rejection.code, `checkout ${checkoutId} failed: ${rejection.code}`)));
    // The merchant's own reason: from its refusal of the plan's session, else from the refused attempt's audit entry.
    const merchantReason = rejection.merchant_reason ?? merchantReasonOf(c.audit_trail);
    const failed: AuditEntry = {
      step: 'failed',
      at: new Date().toISOString(),
      outcome: rejection.code,
      detail: { message: rejection.message, merchant_refused: opts.merchantRefused === true },
    };
    // The first next step, from the token, proposal and session as the void left them (src/checkout/next-steps.ts).
    const asFailed = { ...checkoutView(c), status: 'failed', failure: rejection, audit_trail: [...c.audit_trail, ...audit, failed] };
    const nextAction = rejection.next_action ?? nextSteps(asFailed, await nextStepFacts(trx, c), 'rest')[0]!;
    const stored: Rejection = {
      ...rejection,
      status: rejection.status ?? checkoutFailureStatus(rejection.code),
      next_action: nextAction,
      ...(merchantReason ? { merchant_reason: merchantReason } : {}),
    };
    failed.detail = { ...failed.detail, next_action: nextAction.action };
    audit.push(failed);
    await trx
      .updateTable('agentic_checkouts')
      .set({
        status: 'failed',
        failure: JSON.stringify(stored),
        updated_at: new Date(),
        audit_trail: sql<AuditEntry[]>`audit_trail || ${JSON.stringify(audit)}::jsonb`,
      })
      .where('checkout_id', '=', checkoutId)
      .execute();
    return stored;
  });
}
