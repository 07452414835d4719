import type {
  CompleteSessionInput,
  CompleteSessionResult,
  MerchantSessionAdapter,
  OpenSessionInput,
  OpenSessionResult,
  SessionAddress,
  SessionBuyer,
  SessionMerchant,
  SessionRefusal,
  ShippingRule,
} from '../merchant-session';
import type { MerchantSession, SessionTotals } from '../../schemas/merchant-session';
import { AcpRequestError, acpPaths, acpSessionCall, type AcpClientDeps, type AcpSeller, type AcpSessionAnswer } from './client';
import { AcpDelegationRefused, type AcpDelegatePayment } from './delegate-payment';
import type { AcpAddress, AcpCheckoutSession, AcpFulfillmentOption, AcpLineItem, AcpMessage, AcpPaymentHandler, AcpTotal } from './wire';

/**
 * The ACP agent side of the merchant session port (src/protocols/merchant-session.ts): the gateway
 * plays ACP's agent towards a merchant that is an ACP seller (API-Version 2026-04-17).
 *
 * open: create the session with the merchant's own item ids (`<checkout_id>:create`), send the
 * buyer and the shipping address (`<checkout_id>:update:1`), then select the fulfillment option
 * the rule picks (`<checkout_id>:update:<n>`, only when the seller's selection differs). Every
 * body is a pure function of the input and the previous answer, so an `open` retried after a throw
 * sends the same requests under the same keys and the seller replays its stored answers.
 *
 * complete: read the session (no side effect), refuse `price_changed` when its total is not the one
 * the buyer consented to, obtain a delegated payment token scoped to that total when the handler
 * asks for one, then complete (`<checkout_id>:complete`).
 */

export interface AcpAdapterDeps extends AcpClientDeps {
  /** Absent: the credential token is sent to the seller as given (already a delegated token). */
  delegatePayment?: AcpDelegatePayment;
  /** The clock (tests): only used for the default expiry of a delegated token. */
  now?: () => Date;
}

/**
 * The port's complete input, plus what only ACP uses. `payment_expires_at` is the delegated token's
 * expiry: the token is part of the complete body, and a retried complete must send the same body
 * (a changed body under the same Idempotency-Key is refused 422 by the seller), so the expiry must not
 * move between attempts. Pass a time fixed per checkout (the buyer's consent time plus a margin);
 * without one the adapter uses the seller session's `expires_at`, else the end of the next full UTC
 * hour, which only moves when retries straddle an hour boundary.
 */
export interface AcpCompleteSessionInput extends CompleteSessionInput {
  payment_expires_at?: string;
}

/** Session statuses where the seller needs the buyer on its own page (3DS, sign-in, approval). */
const BUYER_ACTION_STATUSES = new Set(['requires_escalation', 'authentication_required', 'pending_approval']);
/** Error codes (messages or flat errors) the agent cannot resolve through the API. */
const BUYER_ACTION_CODES = new Set([
  'requires_sign_in',
  'requires_3ds',
  'intervention_required',
  'age_verification_required',
  'approval_required',
]);
const NOT_READY_STATUSES = new Set(['not_ready_for_payment', 'incomplete']);
const CLOSED_STATUSES = new Set(['canceled', 'expired']);
/** Pickup sends the buyer to a store; the gateway's buyer asked for delivery, so pickup is never picked by a rule. */
const PICKUP = 'pickup';

const sellerOf = (m: SessionMerchant): AcpSeller => ({ endpoint: m.endpoint, credential: m.credential });

// ---------------------------------------------------------------------------------------------
// Totals, line items, fulfillment: ACP's arrays of typed totals, read as the port's numbers.

const sumOf = (totals: readonly AcpTotal[] | undefined, type: string) =>
  (totals ?? []).filter((t) => t.type === type).reduce((sum, t) => sum + t.amount, 0);
const firstOf = (totals: readonly AcpTotal[] | undefined, type: string) => (totals ?? []).find((t) => t.type === type)?.amount;

function lineAmount(li: AcpLineItem): number {
  // Before tax: the line's subtotal (after its own discounts), else its base amount.
  const fromTotals = firstOf(li.totals, 'subtotal') ?? firstOf(li.totals, 'items_base_amount') ?? firstOf(li.totals, 'base_amount');
  if (fromTotals !== undefined) return fromTotals;
  const unit = li.unit_amount ?? li.item.unit_amount;
  if (unit !== undefined) return unit * li.quantity;
  return firstOf(li.totals, 'total') ?? 0;
}

function lineUnit(li: AcpLineItem): number {
  const unit = li.unit_amount ?? li.item.unit_amount;
  if (unit !== undefined) return unit;
  const base = firstOf(li.totals, 'items_base_amount') ?? firstOf(li.totals, 'base_amount') ?? firstOf(li.totals, 'subtotal');
  return base !== undefined && li.quantity > 0 ? Math.round(base / li.quantity) : 0;
}

/**
 * The port's totals from the seller's typed totals. Discounts are positive amounts in ACP. When the
 * seller states the items' base amount, that is the subtotal and item discounts count as discount
 * (so subtotal − discount + shipping + tax adds up); otherwise its `subtotal` is taken as is. The
 * total is always the seller's own `total` when it gives one.
 */
export function acpSessionTotals(session: Pick<AcpCheckoutSession, 'totals' | 'line_items'>): SessionTotals {
  const t = session.totals;
  const base = firstOf(t, 'items_base_amount');
  const subtotal = base ?? firstOf(t, 'subtotal') ?? session.line_items.reduce((sum, li) => sum + lineAmount(li), 0);
  const discount = (base !== undefined ? Math.abs(sumOf(t, 'items_discount')) : 0) + Math.abs(sumOf(t, 'discount'));
  const shipping = sumOf(t, 'fulfillment');
  const tax = sumOf(t, 'tax');
  const extras = sumOf(t, 'fee') + sumOf(t, 'gift_wrap') + sumOf(t, 'tip') - Math.abs(sumOf(t, 'store_credit'));
  const total = firstOf(t, 'total') ?? subtotal - discount + shipping + tax + extras;
  return { subtotal_minor: subtotal, shipping_minor: shipping, tax_minor: tax, discount_minor: discount, total_minor: total };
}

/** What an option costs: its `total`, else the sum of what it lists. */
export function acpOptionAmount(option: AcpFulfillmentOption): number {
  return firstOf(option.totals, 'total') ?? (option.totals ?? []).reduce((sum, t) => sum + t.amount, 0);
}

/** The option the rule picks, or null when the seller offers none the rule may pick. */
export function pickFulfillmentOption(options: readonly AcpFulfillmentOption[], rule: ShippingRule, selectedIds: readonly string[]) {
  const candidates = options.filter((o) => o.type !== PICKUP);
  if (candidates.length === 0) return null;
  switch (rule) {
    case 'cheapest': {
      const cheapest = Math.min(...candidates.map(acpOptionAmount));
      const tied = candidates.filter((o) => acpOptionAmount(o) === cheapest);
      // On a tie the seller's own selection stays (no update needed), else the first it lists.
      return tied.find((o) => selectedIds.includes(o.id)) ?? tied[0]!;
    }
  }
}

function toMerchantSession(s: AcpCheckoutSession): MerchantSession {
  // The agent sends one entry per unit (see createBody), and a seller may answer one line per entry:
  // the port's lines are per item id.
  const lines = new Map<string, MerchantSession['line_items'][number]>();
  for (const li of s.line_items) {
    const id = li.item.id;
    const prev = lines.get(id);
    if (prev) {
      prev.quantity += li.quantity;
      prev.amount_minor += lineAmount(li);
    } else {
      lines.set(id, {
        item_id: id,
        title: li.name ?? li.item.name ?? id,
        quantity: li.quantity,
        unit_amount_minor: lineUnit(li),
        amount_minor: lineAmount(li),
      });
    }
  }
  const totals = acpSessionTotals(s);
  const selected = s.selected_fulfillment_options?.[0];
  let fulfillment: MerchantSession['fulfillment'] = null;
  if (selected) {
    const option = s.fulfillment_options.find((o) => o.id === selected.option_id);
    fulfillment = option
      ? { option_id: option.id, title: option.title, amount_minor: acpOptionAmount(option) }
      : { option_id: selected.option_id, title: selected.option_id, amount_minor: totals.shipping_minor };
  }
  return {
    protocol: 'acp',
    session_id: s.id,
    status: s.status,
    currency: s.currency.toUpperCase(),
    totals,
    line_items: [...lines.values()],
    fulfillment,
    payment_handlers: (s.capabilities?.payment?.handlers ?? []).map((h) => ({ id: h.id, name: h.name })),
    continue_url: s.continue_url ?? null,
    messages: s.messages.map((m) => ({ type: m.type, code: m.code ?? null, content: m.content })),
  };
}

// ---------------------------------------------------------------------------------------------
// Requests.

function acpAddress(address: SessionAddress, fallbackName: string | undefined): AcpAddress {
  return {
    // ACP requires a name on an address; the buyer's is the recipient when the address has none.
    name: address.name ?? fallbackName ?? '',
    line_one: address.line1,
    ...(address.line2 ? { line_two: address.line2 } : {}),
    city: address.city,
    state: address.region,
    country: address.country.toUpperCase(),
    postal_code: address.postal_code,
  };
}

/** ACP's buyer: the full name as the buyer gave it (splitting it into first and last guesses wrong too often). */
function acpBuyer(buyer: SessionBuyer) {
  return { full_name: buyer.full_name, email: buyer.email, ...(buyer.phone ? { phone_number: buyer.phone } : {}) };
}

/**
 * ACP 2026-04-17's `Item` in a create request has an id but no quantity (the schema closes it with
 * additionalProperties: false, though the RFC's prose shows `quantity`): a quantity is sent as that
 * many entries of the item, which the schema allows and a seller adds up.
 */
function createBody(input: OpenSessionInput) {
  return {
    line_items: input.items.flatMap((item) => Array.from({ length: item.quantity }, () => ({ id: item.item_id }))),
    currency: input.currency.toLowerCase(),
    // The gateway handles no intervention itself (3DS, biometrics): the seller then says so with
    // `intervention_required` or an escalation, and the buyer finishes on the seller's page.
    capabilities: { interventions: { supported: [] } },
  };
}

function detailsBody(input: OpenSessionInput) {
  const { buyer, shipping_address: address } = input;
  if (!buyer && !address) return null;
  const fulfillment: Record<string, unknown> = {};
  const name = address?.name ?? buyer?.full_name;
  if (name !== undefined) fulfillment.name = name;
  if (buyer) {
    fulfillment.email = buyer.email;
    if (buyer.phone) fulfillment.phone_number = buyer.phone;
  }
  if (address) fulfillment.address = acpAddress(address, buyer?.full_name);
  return { ...(buyer ? { buyer: acpBuyer(buyer) } : {}), fulfillment_details: fulfillment };
}

function selectionBody(s: AcpCheckoutSession, rule: ShippingRule) {
  const selectedIds = (s.selected_fulfillment_options ?? []).map((o) => o.option_id);
  const option = pickFulfillmentOption(s.fulfillment_options, rule, selectedIds);
  if (!option) return null;
  if (selectedIds.length > 0 && selectedIds.every((id) => id === option.id)) return null;
  // `item_ids` holds the items' ids, as every example of the specification does (its field text says
  // "line item identifier"; the examples pair `line_item_456` with `item_ids: ["item_456"]`).
  const itemIds = [...new Set(s.line_items.map((li) => li.item.id))];
  return { selected_fulfillment_options: [{ type: option.type, option_id: option.id, item_ids: itemIds }] };
}

// ---------------------------------------------------------------------------------------------
// Answers: refusals, escalations.

type Verdict =
  { kind: 'ok' } | { kind: 'refusal'; refusal: SessionRefusal } | { kind: 'escalation'; continue_url: string | null; message: string };

/** The port's field for a JSONPath the seller says is missing or invalid, or null when it is not a buyer detail. */
export function missingFieldOf(param: string | null | undefined): string | null {
  if (!param) return null;
  const p = param.replace(/\[['"]?(\w+)['"]?\]/g, '.$1');
  if (/^\$\.(buyer|fulfillment_details)\.email\b/.test(p)) return 'buyer.email';
  if (/^\$\.(buyer|fulfillment_details)\.phone(_number)?\b/.test(p)) return 'buyer.phone';
  if (/^\$\.buyer\.(full_name|first_name|last_name)\b/.test(p) || /^\$\.fulfillment_details\.name\b/.test(p)) return 'buyer.full_name';
  if (/^\$\.buyer$/.test(p)) return 'buyer';
  if (/^\$\.fulfillment_details(\.address\b.*)?$/.test(p)) return 'shipping_address';
  return null;
}

const joined = (messages: readonly AcpMessage[]) => messages.map((m) => m.content).join(' ');

/** What a session's status and error messages say about going on. */
function judgeSession(s: AcpCheckoutSession, httpStatus: number | null): Verdict {
  const refusal = (code: string, message: string, extra: Partial<SessionRefusal> = {}): Verdict => ({
    kind: 'refusal',
    refusal: { code, message, status: httpStatus, ...extra },
  });
  if (CLOSED_STATUSES.has(s.status))
    return refusal('merchant_refused', joined(s.messages) || `the seller's checkout session is ${s.status}`);
  const errors = s.messages.filter((m) => m.type === 'error');
  const withCode = (code: string) => errors.filter((m) => m.code === code);
  if (withCode('out_of_stock').length > 0) return refusal('out_of_stock', joined(withCode('out_of_stock')));
  if (withCode('payment_declined').length > 0) return refusal('payment_declined', joined(withCode('payment_declined')));
  const details = errors.filter((m) => (m.code === 'missing' || m.code === 'invalid') && missingFieldOf(m.param) !== null);
  if (details.length > 0) {
    const missing = [...new Set(details.map((m) => missingFieldOf(m.param)!))];
    return refusal('buyer_details_missing', joined(details), { missing });
  }
  const buyerAction = errors.filter(
    (m) => BUYER_ACTION_CODES.has(m.code ?? '') || m.resolution === 'requires_buyer_input' || m.resolution === 'requires_buyer_review',
  );
  if (BUYER_ACTION_STATUSES.has(s.status) || buyerAction.length > 0) {
    return {
      kind: 'escalation',
      continue_url: s.continue_url ?? null,
      message: joined(buyerAction) || `the seller needs the buyer on its own page (${s.status})`,
    };
  }
  if (errors.length > 0) return refusal('merchant_refused', joined(errors));
  if (NOT_READY_STATUSES.has(s.status))
    return refusal('merchant_refused', `the seller's checkout session is ${s.status} and says nothing more`);
  return { kind: 'ok' };
}

/** A seller's flat error (a 4xx) as a verdict; the seller's own message is kept. */
function judgeError(answer: Extract<AcpSessionAnswer, { kind: 'error' }>, continueUrl: string | null): Verdict {
  const { error, status } = answer;
  const code = error.code.toLowerCase();
  const refusal = (c: string, extra: Partial<SessionRefusal> = {}): Verdict => ({
    kind: 'refusal',
    refusal: { code: c, message: error.message, status, ...extra },
  });
  if (code.includes('declined') || status === 402) return refusal('payment_declined');
  if (code.includes('out_of_stock')) return refusal('out_of_stock');
  const field = missingFieldOf(error.param);
  if (field && (code.includes('missing') || code.includes('invalid') || code.includes('required'))) {
    return refusal('buyer_details_missing', { missing: [field] });
  }
  if (BUYER_ACTION_CODES.has(code)) return { kind: 'escalation', continue_url: continueUrl, message: error.message };
  return refusal('merchant_refused');
}

/** An escalation needs a page to send the buyer to; a seller that gives none has refused. */
function escalationResult(v: Extract<Verdict, { kind: 'escalation' }>, httpStatus: number | null): CompleteSessionResult {
  if (v.continue_url) return { ok: false, escalation: { continue_url: v.continue_url, message: v.message } };
  return {
    ok: false,
    refusal: { code: 'merchant_refused', message: `${v.message} (the seller gave no page to continue on)`, status: httpStatus },
  };
}

function pickHandler(s: AcpCheckoutSession, wanted: string): AcpPaymentHandler | null {
  const handlers = s.capabilities?.payment?.handlers ?? [];
  return handlers.find((h) => h.id === wanted) ?? handlers.find((h) => h.name === wanted) ?? null;
}

/** The default expiry of a delegated token: the session's own, else the end of the next full UTC hour. */
function defaultExpiry(s: AcpCheckoutSession, now: Date): string {
  if (s.expires_at && Date.parse(s.expires_at) > now.getTime()) return new Date(Date.parse(s.expires_at)).toISOString();
  const hour = 3600_000;
  return new Date((Math.floor(now.getTime() / hour) + 2) * hour).toISOString();
}

// ---------------------------------------------------------------------------------------------

export function createAcpAdapter(deps: AcpAdapterDeps): MerchantSessionAdapter {
  const now = deps.now ?? (() => new Date());

  async function getSession(merchant: SessionMerchant, sessionId: string) {
    const seller = sellerOf(merchant);
    return acpSessionCall(deps, seller, { method: 'GET', url: acpPaths.session(seller, sessionId) });
  }

  return {
    protocol: 'acp',

    async open(merchant: SessionMerchant, input: OpenSessionInput): Promise<OpenSessionResult> {
      const seller = sellerOf(merchant);
      const created = await acpSessionCall(deps, seller, {
        method: 'POST',
        url: acpPaths.create(seller),
        idempotencyKey: `${input.checkout_id}:create`,
        body: createBody(input),
      });
      if (created.kind === 'error') {
        const v = judgeError(created, null);
        const refusal =
          v.kind === 'refusal' ? v.refusal : { code: 'merchant_refused', message: created.error.message, status: created.status };
        return { ok: false, refusal, session_id: null };
      }
      let session = created.session;
      // Missing buyer details are expected before the update sends them; anything else is final.
      const early = judgeSession(session, created.status);
      if (early.kind === 'refusal' && early.refusal.code !== 'buyer_details_missing' && early.refusal.code !== 'merchant_refused') {
        return { ok: false, refusal: early.refusal, session_id: session.id };
      }
      let step = 0;
      const update = async (body: unknown) => {
        step += 1;
        return acpSessionCall(deps, seller, {
          method: 'POST',
          url: acpPaths.session(seller, session.id),
          idempotencyKey: `${input.checkout_id}:update:${step}`,
          body,
        });
      };
      const details = detailsBody(input);
      let lastStatus = created.status;
      if (details) {
        const answer = await update(details);
        if (answer.kind === 'error') return { ok: false, refusal: refusalOf(judgeError(answer, null), answer), session_id: session.id };
        session = answer.session;
        lastStatus = answer.status;
      }
      const selection = selectionBody(session, input.shipping_rule);
      if (selection) {
        const answer = await update(selection);
        if (answer.kind === 'error') return { ok: false, refusal: refusalOf(judgeError(answer, null), answer), session_id: session.id };
        session = answer.session;
        lastStatus = answer.status;
      }
      const verdict = judgeSession(session, lastStatus);
      // An escalation is not a refusal at open: the session stands, and complete() sends the buyer
      // to the seller's page (the port's open result has no escalation of its own).
      if (verdict.kind === 'refusal') return { ok: false, refusal: verdict.refusal, session_id: session.id };
      return { ok: true, session: toMerchantSession(session) };
    },

    async get(merchant: SessionMerchant, sessionId: string): Promise<MerchantSession> {
      const answer = await getSession(merchant, sessionId);
      if (answer.kind === 'error') {
        throw new AcpRequestError(
          `the seller refused to show checkout session ${sessionId}: ${answer.error.message}`,
          false,
          'bad_answer',
          answer.status,
        );
      }
      return toMerchantSession(answer.session);
    },

    async complete(merchant: SessionMerchant, input: AcpCompleteSessionInput): Promise<CompleteSessionResult> {
      const seller = sellerOf(merchant);
      const read = await getSession(merchant, input.session_id);
      if (read.kind === 'error') return { ok: false, refusal: refusalOf(judgeError(read, null), read) };
      const current = read.session;
      if (current.status === 'complete_in_progress') {
        throw new AcpRequestError(`the seller is still placing the order of session ${current.id}`, true, 'retryable_status', read.status);
      }
      // A session already completed is this checkout's earlier attempt whose answer was lost: the same
      // complete request (below) gets the seller's stored answer, with the order, and places nothing.
      if (current.status !== 'completed') {
        const verdict = judgeSession(current, read.status);
        if (verdict.kind === 'refusal') return { ok: false, refusal: verdict.refusal };
        if (verdict.kind === 'escalation') return escalationResult(verdict, read.status);
        const totals = acpSessionTotals(current);
        const sameCurrency = current.currency.toLowerCase() === input.currency.toLowerCase();
        if (!sameCurrency || totals.total_minor !== input.expected_total_minor) {
          return {
            ok: false,
            refusal: {
              code: 'price_changed',
              message: `the seller's total is now ${totals.total_minor} ${current.currency.toUpperCase()}; the buyer agreed to ${input.expected_total_minor} ${input.currency.toUpperCase()}`,
              status: null,
            },
          };
        }
      }

      const handler = pickHandler(current, input.credential.handler);
      let token = input.credential.token;
      if (handler?.requires_delegate_payment && deps.delegatePayment) {
        try {
          const delegated = await deps.delegatePayment({
            checkout_id: input.checkout_id,
            merchant,
            session_id: current.id,
            handler: { id: handler.id, name: handler.name, psp: handler.psp ?? null, config: handler.config ?? {} },
            payment_method_token: input.credential.token,
            // The allowance is the consented total: the PSP refuses any charge above it, also when the
            // seller's total moved after the check above.
            max_amount_minor: input.expected_total_minor,
            currency: input.currency.toLowerCase(),
            expires_at: input.payment_expires_at ?? defaultExpiry(current, now()),
          });
          token = delegated.token;
        } catch (err) {
          if (err instanceof AcpDelegationRefused) {
            return { ok: false, refusal: { code: 'payment_declined', message: err.message, status: err.status } };
          }
          throw err;
        }
      }

      const answer = await acpSessionCall(deps, seller, {
        method: 'POST',
        url: acpPaths.complete(seller, current.id),
        idempotencyKey: `${input.checkout_id}:complete`,
        body: {
          ...(input.buyer ? { buyer: acpBuyer(input.buyer) } : {}),
          payment_data: {
            handler_id: handler?.id ?? input.credential.handler,
            // The delegated token is a card credential (delegate_payment tokenizes cards only); `spt`
            // is the credential type the specification's examples give such a token.
            instrument: { type: 'card', credential: { type: 'spt', token } },
          },
        },
      });
      if (answer.kind === 'error') {
        if (answer.error.code === 'idempotency_conflict') return afterConflict(merchant, input, answer);
        const v = judgeError(answer, current.continue_url ?? null);
        if (v.kind === 'escalation') return escalationResult(v, answer.status);
        return { ok: false, refusal: refusalOf(v, answer) };
      }
      return completedOrNot(answer.session, answer.status);
    },

    async cancel(merchant: SessionMerchant, input: { checkout_id: string; session_id: string }): Promise<void> {
      const seller = sellerOf(merchant);
      const answer = await acpSessionCall(deps, seller, {
        method: 'POST',
        url: acpPaths.cancel(seller, input.session_id),
        idempotencyKey: `${input.checkout_id}:cancel`,
        body: {},
      });
      if (answer.kind === 'session') return;
      // 405: already completed or canceled; 404: nothing to cancel. Other refusals are checked against
      // the session itself: one that is over (completed, canceled, expired) is what cancel wanted.
      if (answer.status === 405 || answer.status === 404) return;
      const read = await getSession(merchant, input.session_id);
      if (read.kind === 'session' && (read.session.status === 'completed' || CLOSED_STATUSES.has(read.session.status))) return;
      throw new AcpRequestError(
        `the seller refused to cancel checkout session ${input.session_id}: ${answer.error.message}`,
        false,
        'bad_answer',
        answer.status,
      );
    },
  };

  /** The complete answer of a session: the order when completed, else why not. */
  function completedOrNot(s: AcpCheckoutSession, httpStatus: number): CompleteSessionResult {
    if (s.status === 'completed') {
      // ACP requires the order on a completed session; a seller that leaves it out still took the
      // payment, so its session id stands in for the order id rather than losing the purchase.
      return {
        ok: true,
        order_id: s.order?.id ?? s.id,
        order_url: s.order?.permalink_url ?? null,
        status: s.order?.status ?? s.status,
        session: toMerchantSession(s),
      };
    }
    if (s.status === 'complete_in_progress') {
      throw new AcpRequestError(`the seller is still placing the order of session ${s.id}`, true, 'retryable_status', httpStatus);
    }
    const v = judgeSession(s, httpStatus);
    if (v.kind === 'refusal') return { ok: false, refusal: v.refusal };
    if (v.kind === 'escalation') return escalationResult(v, httpStatus);
    return {
      ok: false,
      refusal: {
        code: 'merchant_refused',
        message: `the seller answered complete with status ${s.status} and no order`,
        status: httpStatus,
      },
    };
  }

  /**
   * 422 idempotency_conflict on complete: an earlier attempt of this checkout was completed with another
   * body (a delegated token minted again). The session tells whether that attempt placed the order.
   */
  async function afterConflict(
    merchant: SessionMerchant,
    input: CompleteSessionInput,
    answer: Extract<AcpSessionAnswer, { kind: 'error' }>,
  ): Promise<CompleteSessionResult> {
    const read = await getSession(merchant, input.session_id);
    if (read.kind === 'session' && read.session.status === 'completed') return completedOrNot(read.session, read.status);
    return { ok: false, refusal: { code: 'merchant_refused', message: answer.error.message, status: answer.status } };
  }
}

function refusalOf(v: Verdict, answer: Extract<AcpSessionAnswer, { kind: 'error' }>): SessionRefusal {
  if (v.kind === 'refusal') return v.refusal;
  return { code: 'merchant_refused', message: answer.error.message, status: answer.status };
}
