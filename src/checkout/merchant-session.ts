import { sql } from 'kysely';
import { checkoutFailureStatus } from './failures';
import { boundedReason } from './merchant-reason';
import type { Db } from '../db/connect';
import type { AuditEntry, OrderTracking, StoredMerchantOrder, StoredMerchantSession } from '../db/schema-checkout';
import { fromMinorUnits } from '../money';
import type {
  CompleteSessionResult,
  MerchantSessionAdapter,
  PaymentCredential,
  SessionAddress,
  SessionBuyer,
  SessionMerchant,
} from '../protocols/merchant-session';
import { merchantProtocolOf } from '../registry/merchant-protocol';
import { openSealedCredential, openSecret, sealSecret } from '../registry/secrets';
import { rereadUcpProfile } from '../registry/ucp-discovery';
import {
  checkoutView,
  getCheckout,
  HandoffRejected,
  type CheckoutView,
  settleAudit,
  type HandoffResult,
  type PlanResult,
} from './checkouts';
import type { Rejection } from '../schemas/checkout';

/**
 * A checkout with a merchant that sells through a commerce protocol (UCP business, ACP seller;
 * docs/CHECKOUT.md, "Protocol merchants"). The gateway's plan is made as for any merchant; then the
 * merchant's own checkout session is opened with its item ids, the buyer and the destination, and
 * the plan takes the merchant's authoritative totals (items, shipping, tax): the amount the buyer
 * consents to is the amount the merchant will charge. The confirm completes the session with a
 * payment credential after the gateway authorized the payment; a failed checkout cancels it.
 * The protocols themselves are adapters (src/protocols/ucp, src/protocols/acp) behind
 * `MerchantSessionAdapter`; nothing here knows a wire format.
 */

export interface SessionDeps {
  db: Db;
  keyEncryptionKey: Buffer | undefined;
  adapters: Partial<Record<'ucp' | 'acp', MerchantSessionAdapter>>;
  /** The deployment's payment handler, used when the confirm names none (e.g. a PSP tokenizer); null: none. */
  defaultHandler: string | null;
  /** Reads a UCP business's profile again (src/registry/ucp-discovery.ts): a session opens on a fresh one. */
  discoverUcp?: (baseUrl: string) => Promise<Record<string, unknown>>;
}

/** A UCP profile older than this is read again before a session opens (businesses change handlers and versions). */
export const UCP_PROFILE_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * The business's profile as of now: the stored one while it is younger than UCP_PROFILE_MAX_AGE_MS,
 * else read again and stored. A business that cannot be read right now keeps its stored profile
 * (the session's own calls say whether it is reachable).
 */
async function freshUcpProfile(
  deps: SessionDeps,
  m: {
    merchant_id: string;
    agent_endpoint: string;
    protocol_profile: Record<string, unknown> | null;
    protocol_profile_fetched_at: Date | null;
  },
): Promise<Record<string, unknown> | null> {
  const age = m.protocol_profile_fetched_at ? Date.now() - m.protocol_profile_fetched_at.getTime() : Number.POSITIVE_INFINITY;
  if (!deps.discoverUcp || age < UCP_PROFILE_MAX_AGE_MS) return m.protocol_profile;
  return (await rereadUcpProfile(deps.db, deps.discoverUcp, m)) ?? m.protocol_profile;
}

/** The payment credential a confirm named, sealed on its checkout (src/checkout/client.ts) and opened for the completion. */
export const sealPaymentCredential = (key: Buffer | undefined, checkoutId: string, credential: PaymentCredential) =>
  sealSecret(key, `payment-credential:${checkoutId}`, JSON.stringify(credential));
const openPaymentCredential = (key: Buffer | undefined, checkoutId: string, sealed: string) =>
  JSON.parse(openSecret(key, `payment-credential:${checkoutId}`, sealed)) as PaymentCredential;

const rejection = (status: number, code: string, message: string): { ok: false; rejection: Rejection } => ({
  ok: false,
  rejection: { status, code, message },
});

/** The merchant as the adapter calls it, from its registration. */
async function sessionMerchant(deps: SessionDeps, merchantId: string) {
  const m = await deps.db
    .selectFrom('merchants')
    .select([
      'merchant_id',
      'agent_endpoint',
      'protocol_version',
      'protocol_profile',
      'protocol_profile_fetched_at',
      'seller_credential_sealed',
    ])
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!m) throw new HandoffRejected(`merchant ${merchantId} is not registered`);
  const protocol = merchantProtocolOf(m);
  if (protocol === 'gateway') throw new HandoffRejected(`merchant ${merchantId} takes the gateway's webhooks, not a checkout session`);
  const adapter = deps.adapters[protocol];
  if (!adapter) throw new HandoffRejected(`this deployment has no ${protocol.toUpperCase()} adapter`);
  const merchant: SessionMerchant = {
    merchant_id: m.merchant_id,
    endpoint: m.agent_endpoint,
    credential: m.seller_credential_sealed ? openSealedCredential(deps.keyEncryptionKey, m.merchant_id, m.seller_credential_sealed) : null,
    profile: protocol === 'ucp' ? await freshUcpProfile(deps, m) : m.protocol_profile,
  };
  return { merchant, adapter };
}

/**
 * The merchant's own item id of the plan's line (the proposal's product): the variant the proposal
 * named (its feed id or SKU, kept in the proposal's snapshot), else the product's feed id, else the
 * gateway's id.
 */
async function itemIdOf(db: Db, proposalId: string, productId: number): Promise<string> {
  const row = await db
    .selectFrom('proposals as p')
    .leftJoin('products as pr', 'pr.product_id', 'p.product_id')
    .select([sql<string | null>`p.product_snapshot->>'variant_id'`.as('variant_id'), 'pr.external_id'])
    .where('p.proposal_id', '=', proposalId)
    .executeTakeFirst();
  return row?.variant_id ?? row?.external_id ?? String(productId);
}

const audit = (entries: AuditEntry[]) => sql<AuditEntry[]>`audit_trail || ${JSON.stringify(entries)}::jsonb`;

/**
 * Opens the merchant's session for a planned checkout and puts its totals in the plan (amount, line
 * items, shipping, tax). Safe to repeat: a checkout with a session answers with it; the adapter's
 * requests carry Idempotency-Keys derived from the checkout, so a retry after a crash opens no second
 * session. A refusal answers the rejection the plan fails with (the caller cancels the session the
 * refusal names, if any).
 */
export async function openMerchantSession(deps: SessionDeps, checkoutId: string): Promise<PlanResult & { session_id?: string | null }> {
  const c = await getCheckout(deps.db, checkoutId);
  if (c.merchant_session) return { ok: true, checkout: checkoutView(c) };
  const { merchant, adapter } = await sessionMerchant(deps, c.merchant_id);
  // A plan has one line: the proposal's product.
  const itemId = await itemIdOf(deps.db, c.proposal_id, c.plan.line_items[0]!.product_id);
  const opened = await adapter.open(merchant, {
    checkout_id: checkoutId,
    currency: c.currency,
    items: c.plan.line_items.map((l) => ({
      item_id: itemId,
      title: l.title,
      quantity: l.quantity,
      unit_amount_minor: l.unit_amount_minor,
    })),
    buyer: (c.buyer as SessionBuyer | null) ?? null,
    shipping_address: (c.shipping_address as SessionAddress | null) ?? null,
    shipping_rule: 'cheapest',
  });
  if (!opened.ok) {
    const r = opened.refusal;
    const code = REFUSAL_CODES[r.code] ?? r.code;
    const named = r.missing?.length ? ` (missing: ${r.missing.join(', ')})` : '';
    // The merchant's own words, bounded as every reason the gateway passes on (src/checkout/merchant-reason.ts).
    const reason = boundedReason(r.message);
    const refused = rejection(checkoutFailureStatus(code), code, `${merchant.merchant_id}: ${reason ?? 'no reason given'}${named}`);
    return { ok: false, rejection: { ...refused.rejection, merchant_reason: reason }, session_id: opened.session_id };
  }
  const s = opened.session;
  if (s.currency.toUpperCase() !== c.currency) {
    return {
      ...rejection(409, 'currency_mismatch', `${merchant.merchant_id} prices the session in ${s.currency}, the proposal in ${c.currency}.`),
      session_id: s.session_id,
    };
  }
  const stored: StoredMerchantSession = { ...s, opened_at: new Date().toISOString() };
  const plan = {
    ...c.plan,
    merchant_protocol: s.protocol,
    line_items: c.plan.line_items.map((l, i) => {
      const theirs = s.line_items[i];
      return theirs ? { ...l, unit_amount_minor: theirs.unit_amount_minor, amount_minor: theirs.amount_minor } : l;
    }),
    shipping: {
      amount_minor: s.totals.shipping_minor,
      commitment: { ...c.plan.shipping.commitment, fulfillment: s.fulfillment },
    },
    totals: {
      subtotal_minor: s.totals.subtotal_minor,
      shipping_minor: s.totals.shipping_minor,
      tax_minor: s.totals.tax_minor,
      discount_minor: s.totals.discount_minor,
      total_minor: s.totals.total_minor,
    },
    amount: fromMinorUnits(s.totals.total_minor, c.currency),
    merchant_session: { protocol: s.protocol, session_id: s.session_id, status: s.status },
  };
  const row = await deps.db
    .updateTable('agentic_checkouts')
    .set({
      merchant_session: JSON.stringify(stored),
      plan: JSON.stringify(plan),
      amount_cents: s.totals.total_minor,
      updated_at: new Date(),
      audit_trail: audit([
        {
          step: 'merchant_session_opened',
          at: stored.opened_at,
          outcome: s.status,
          detail: { protocol: s.protocol, session_id: s.session_id, totals: s.totals, fulfillment: s.fulfillment },
        },
      ]),
    })
    .where('checkout_id', '=', checkoutId)
    .where('merchant_session', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return { ok: true, checkout: checkoutView(row ?? (await getCheckout(deps.db, checkoutId))) };
}

/** Refusals at complete, as the checkout's failure codes. */
const REFUSAL_CODES: Record<string, string> = { out_of_stock: 'inventory_unavailable' };

/** Thrown for a refused completion: the checkout fails with the merchant's message under `code`. */
export class SessionRefused extends HandoffRejected {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SessionRefused';
  }
}

/**
 * The confirm's handoff to a protocol merchant: completes its session with a payment credential
 * (the one the confirm named; else the deployment's handler with the gateway's payment authorization
 * as the token). The order is placed once: the complete carries `<checkout_id>:complete` as its
 * Idempotency-Key. A refusal throws SessionRefused (not retried); an escalation answers a result
 * whose `escalation` the settle turns into a redirect.
 */
export async function completeMerchantSession(deps: SessionDeps, checkoutId: string): Promise<HandoffResult> {
  const c = await getCheckout(deps.db, checkoutId);
  const session = c.merchant_session;
  if (!session) throw new HandoffRejected(`checkout ${checkoutId} has no merchant session`);
  const { merchant, adapter } = await sessionMerchant(deps, c.merchant_id);
  const named = c.payment_credential_sealed ? openPaymentCredential(deps.keyEncryptionKey, checkoutId, c.payment_credential_sealed) : null;
  const chosen =
    named ??
    (deps.defaultHandler && c.payment_authorization_id ? { handler: deps.defaultHandler, token: c.payment_authorization_id } : null);
  if (!chosen) {
    throw new SessionRefused(
      'payment_credential_required',
      `${merchant.merchant_id} needs a payment credential: send payment_credential {handler, token} with the confirm (its handlers: ${session.payment_handlers.map((h) => h.name || h.id).join(', ') || 'none declared'}).`,
    );
  }
  const step = 'merchant_session_complete';
  const at = new Date().toISOString();
  await deps.db
    .updateTable('agentic_checkouts')
    .set({
      audit_trail: sql<
        AuditEntry[]
      >`case when audit_trail @> ${JSON.stringify([{ step }])}::jsonb then audit_trail else audit_trail || ${JSON.stringify([
        {
          step,
          at,
          outcome: 'sending',
          detail: { session_id: session.session_id, handler: chosen.handler, idempotency_step: 'complete' },
        },
      ])}::jsonb end`,
      updated_at: new Date(),
    })
    .where('checkout_id', '=', checkoutId)
    .execute();
  const done: CompleteSessionResult = await adapter.complete(merchant, {
    checkout_id: checkoutId,
    session_id: session.session_id,
    credential: chosen,
    expected_total_minor: c.amount_cents,
    currency: c.currency,
    buyer: (c.buyer as SessionBuyer | null) ?? null,
  });
  const handedOffAt = new Date().toISOString();
  if (done.ok) {
    return {
      status_code: 200,
      order_id: done.order_id,
      response: {
        protocol: session.protocol,
        session_id: session.session_id,
        status: done.status,
        order_id: done.order_id,
        order_url: done.order_url,
      },
      handed_off_at: handedOffAt,
      order: { order_id: done.order_id, order_url: done.order_url, status: 'placed', tracking: [], updated_at: handedOffAt },
      answer: { step, detail: { session_id: session.session_id, handler: chosen.handler, order_id: done.order_id } },
    };
  }
  if ('escalation' in done) {
    return {
      status_code: 200,
      order_id: null,
      response: {
        protocol: session.protocol,
        session_id: session.session_id,
        status: 'requires_escalation',
        message: done.escalation.message,
      },
      handed_off_at: handedOffAt,
      escalation: done.escalation,
      answer: { step, detail: { session_id: session.session_id, handler: chosen.handler, continue_url: done.escalation.continue_url } },
    };
  }
  const code = REFUSAL_CODES[done.refusal.code] ?? done.refusal.code;
  const reason = boundedReason(done.refusal.message);
  // The attempt's entry says how it ended (a refusal is not retried, so nothing settles it later).
  await deps.db
    .updateTable('agentic_checkouts')
    .set({
      audit_trail: settleAudit(step, 'refused', { session_id: session.session_id, code, message: reason }),
      updated_at: new Date(),
    })
    .where('checkout_id', '=', checkoutId)
    .execute();
  throw new SessionRefused(code, `${merchant.merchant_id} refused the order: ${reason ?? 'no reason given'}`);
}

/** Cancels the merchant's session of a checkout that failed or expired (once; a session already gone is fine). */
export async function cancelMerchantSession(deps: SessionDeps, checkoutId: string, sessionId?: string | null): Promise<void> {
  const c = await getCheckout(deps.db, checkoutId);
  const id = sessionId ?? c.merchant_session?.session_id;
  if (!id) return;
  if (c.audit_trail.some((e) => e.step === 'merchant_session_canceled')) return;
  const { merchant, adapter } = await sessionMerchant(deps, c.merchant_id);
  await adapter.cancel(merchant, { checkout_id: checkoutId, session_id: id });
  await deps.db
    .updateTable('agentic_checkouts')
    .set({
      updated_at: new Date(),
      audit_trail: sql<
        AuditEntry[]
      >`case when audit_trail @> ${JSON.stringify([{ step: 'merchant_session_canceled' }])}::jsonb then audit_trail else audit_trail || ${JSON.stringify(
        [{ step: 'merchant_session_canceled', at: new Date().toISOString(), outcome: 'canceled', detail: { session_id: id } }],
      )}::jsonb end`,
    })
    .where('checkout_id', '=', checkoutId)
    .execute();
}

export interface OrderEvent {
  event_id: string;
  session_id: string | null;
  order_id: string | null;
  status: string;
  tracking: OrderTracking[];
  occurred_at: string | null;
}

/**
 * An order event a protocol merchant sent (placed, shipped, canceled, refunded, …), already verified
 * by its protocol's adapter: stored once (by the merchant's event id) and applied to the checkout it
 * names (by its session or order id): the order's status and tracking, and an audit entry. Returns the
 * checkout it applied to (null: none of this merchant's checkouts) and whether it was a repeat.
 */
export async function recordOrderEvent(
  db: Db,
  merchantId: string,
  protocol: string,
  event: OrderEvent,
  body: unknown,
): Promise<{ checkout_id: string | null; duplicate: boolean; checkout: CheckoutView | null }> {
  return db.transaction().execute(async (trx) => {
    const c = await trx
      .selectFrom('agentic_checkouts')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where((eb) =>
        eb.or([
          ...(event.session_id ? [eb(sql<string>`merchant_session->>'session_id'`, '=', event.session_id)] : []),
          ...(event.order_id ? [eb(sql<string>`merchant_order->>'order_id'`, '=', event.order_id)] : []),
          sql<boolean>`false`,
        ]),
      )
      .orderBy('created_at', 'desc')
      .forUpdate()
      .executeTakeFirst();
    const inserted = await trx
      .insertInto('merchant_order_events')
      .values({
        merchant_id: merchantId,
        event_id: event.event_id,
        checkout_id: c?.checkout_id ?? null,
        protocol,
        status: event.status,
        body: JSON.stringify(body),
      })
      .onConflict((oc) => oc.columns(['merchant_id', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!c) return { checkout_id: null, duplicate: !inserted, checkout: null };
    if (!inserted) return { checkout_id: c.checkout_id, duplicate: true, checkout: checkoutView(c) };
    const now = new Date().toISOString();
    const before = c.merchant_order;
    const order: StoredMerchantOrder = {
      order_id: event.order_id ?? before?.order_id ?? '',
      order_url: before?.order_url ?? null,
      status: event.status,
      tracking: event.tracking.length ? event.tracking : (before?.tracking ?? []),
      updated_at: now,
    };
    const row = await trx
      .updateTable('agentic_checkouts')
      .set({
        merchant_order: JSON.stringify(order),
        updated_at: new Date(now),
        audit_trail: audit([
          {
            step: `order_event_${event.event_id}`,
            at: now,
            outcome: event.status,
            detail: { order_id: order.order_id, tracking: event.tracking, occurred_at: event.occurred_at },
          },
        ]),
      })
      .where('checkout_id', '=', c.checkout_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { checkout_id: c.checkout_id, duplicate: false, checkout: checkoutView(row) };
  });
}
