import type {
  CompleteSessionInput,
  CompleteSessionResult,
  MerchantSessionAdapter,
  OpenSessionInput,
  OpenSessionResult,
  SessionMerchant,
  SessionRefusal,
} from '../merchant-session';
import type { MerchantSession } from '../../schemas/merchant-session';
import { ucpCall, UcpCallError, ucpIdempotencyKey, type UcpAnswer, type UcpClientDeps } from './client';
import { readBusinessSummary, type UcpBusinessSummary, type UcpVersion } from './discovery';
import {
  cheapestOption,
  isErrorEnvelope,
  messagesOfError,
  refusalFrom,
  sameAddress,
  sessionHandlers,
  sessionTotals,
  shippingMethods,
  toSession,
  WireCheckout,
  wireAddress,
  wireBuyer,
} from './wire';

/**
 * The UCP platform side of a merchant session (src/protocols/merchant-session.ts): checkout sessions
 * over the business's REST binding (checkout-rest.md) in the version discovery negotiated.
 *
 * open: create (`<checkout_id>:create`) with the items, the buyer and, when there is one, the shipping
 * destination; then full-replacement updates (`:update:1`, `:update:2`, …, at most MAX_UPDATES) that
 * select the buyer's destination and, in every fulfillment group, the option the rule picks (cheapest),
 * until the business's answer already has what the gateway would send. The destination goes in the
 * create because the first release only lets a platform introduce a fulfillment method there (its
 * update requires the method's id, which the business assigns).
 *
 * complete: reads the session first; a completed one answers its order (a retried activity whose first
 * attempt placed it), a total other than the consented one is refused as `price_changed` without
 * completing, and otherwise completes once (`:complete`) with an instrument for the handler the
 * credential names.
 */

export type UcpAdapterDeps = UcpClientDeps;

/** Updates `open` sends at most (destination, then options that appear only once it is selected, then one spare). */
export const MAX_UPDATES = 3;

type Answered = { kind: 'checkout'; co: WireCheckout } | { kind: 'refusal'; refusal: SessionRefusal; continue_url: string | null };

function summaryOf(merchant: SessionMerchant): UcpBusinessSummary {
  const s = readBusinessSummary(merchant.profile);
  if (!s) {
    throw new UcpCallError(`merchant ${merchant.merchant_id} has no UCP profile on record (register it again to discover it)`, false);
  }
  return s;
}

/** Reads an answer: a checkout, or a refusal (4xx, or a 2xx envelope without a resource). */
function read(ans: UcpAnswer, what: string): Answered {
  if (ans.status >= 400) {
    const b = ans.body as { continue_url?: unknown } | null;
    return {
      kind: 'refusal',
      refusal: refusalFrom(messagesOfError(ans.body), ans.status),
      continue_url: typeof b?.continue_url === 'string' ? b.continue_url : null,
    };
  }
  if (isErrorEnvelope(ans.body)) {
    return { kind: 'refusal', refusal: refusalFrom(ans.body.messages ?? [], ans.status), continue_url: ans.body.continue_url ?? null };
  }
  const parsed = WireCheckout.safeParse(ans.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A business answering 2xx with something that is not a checkout is broken, not busy.
    throw new UcpCallError(`${what}: the answer is not a UCP checkout (${issue?.path.join('.')}: ${issue?.message})`, false, ans.status);
  }
  return { kind: 'checkout', co: parsed.data };
}

const errorMessages = (co: WireCheckout) => (co.messages ?? []).filter((m) => m.type === 'error');

/**
 * The item of a request line. The schemas mark `title` as omitted from requests, but the 2026-01-11
 * reference merchant fails every line without one (HTTP 500): for that version the title goes along,
 * which a business following the schema ignores (docs/MERCHANTS.md, "What differed").
 */
const requestItem = (v: UcpVersion, id: string, title: string | undefined) => ({ id, ...(v === '2026-01-11' && title ? { title } : {}) });

function lineItemsForUpdate(v: UcpVersion, co: WireCheckout) {
  return co.line_items.map((li) => ({ id: li.id, item: requestItem(v, li.item.id, li.item.title), quantity: li.quantity }));
}

function createBody(v: UcpVersion, input: OpenSessionInput): Record<string, unknown> {
  const body: Record<string, unknown> = {
    line_items: input.items.map((i) => ({ item: requestItem(v, i.item_id, i.title), quantity: i.quantity })),
  };
  if (input.buyer) body.buyer = wireBuyer(v, input.buyer);
  if (v === '2026-01-11') {
    body.currency = input.currency;
    // The first release's checkout requires `payment`; its handlers are the business's to list.
    body.payment = {};
  } else {
    body.context = { currency: input.currency, ...(input.shipping_address ? { address_country: input.shipping_address.country } : {}) };
  }
  if (input.shipping_address) {
    body.fulfillment = { methods: [{ type: 'shipping', destinations: [wireAddress(v, input.shipping_address)] }] };
  }
  return body;
}

/**
 * The update that moves the business's checkout towards the gateway's choices, or null when its answer
 * already has them: the buyer, the buyer's destination selected, and every group's cheapest option.
 */
function nextUpdate(v: UcpVersion, input: OpenSessionInput, co: WireCheckout): Record<string, unknown> | null {
  let change = false;
  const body: Record<string, unknown> = { line_items: lineItemsForUpdate(v, co) };
  if (v === '2026-01-11') Object.assign(body, { id: co.id, currency: co.currency, payment: {} });
  else body.context = { currency: input.currency };
  if (input.buyer) {
    body.buyer = wireBuyer(v, input.buyer);
    if ((co.buyer?.email ?? '').toLowerCase() !== input.buyer.email.toLowerCase()) change = true;
  }
  const address = input.shipping_address;
  if (address) {
    const allLineIds = co.line_items.map((li) => li.id);
    const methods = shippingMethods(co);
    if (methods.length === 0) {
      // The business made no method of the create's destination: only the current release lets the
      // platform introduce one on update.
      if (v === '2026-04-08') {
        change = true;
        body.fulfillment = { methods: [{ type: 'shipping', line_item_ids: allLineIds, destinations: [wireAddress(v, address)] }] };
      }
    } else {
      body.fulfillment = {
        methods: methods.map((m) => {
          const dests = (m.destinations ?? []) as Array<Record<string, unknown> & { id?: string }>;
          const mine = dests.find((d) => sameAddress(d, address));
          const out: Record<string, unknown> = { line_item_ids: m.line_item_ids ?? allLineIds };
          if (m.id) out.id = m.id;
          // 2026-01-11 marks `type` as omitted from updates, but its reference merchant refuses an update
          // without it (422); a business following the schema ignores it (docs/MERCHANTS.md).
          out.type = 'shipping';
          if (!mine) {
            change = true;
            out.destinations = [...dests, wireAddress(v, address)];
            return out;
          }
          out.destinations = dests;
          out.selected_destination_id = mine.id ?? null;
          if (mine.id && m.selected_destination_id !== mine.id) change = true;
          const groups = (m.groups ?? []).map((g) => {
            const best = cheapestOption(g);
            if (best && g.selected_option_id !== best.id) change = true;
            return { id: g.id, selected_option_id: best ? best.id : (g.selected_option_id ?? null) };
          });
          if (groups.length) out.groups = groups;
          return out;
        }),
      };
    }
  }
  return change ? body : null;
}

/** Why an opened session cannot go on to complete, or null when it can. */
function openRefusal(co: WireCheckout, input: OpenSessionInput): SessionRefusal | null {
  if (co.status === 'canceled') return { code: 'merchant_refused', message: 'the business canceled the checkout session', status: null };
  if (co.status !== 'incomplete') return null;
  const errors = errorMessages(co);
  if (!errors.length) return null;
  const refusal = refusalFrom(errors, null);
  if (
    refusal.code === 'merchant_refused' &&
    !input.shipping_address &&
    errors.some((m) => /fulfillment|destination|address/.test(m.path ?? ''))
  ) {
    return { ...refusal, code: 'buyer_details_missing', missing: ['shipping_address'] };
  }
  return refusal;
}

function instrumentFor(
  v: UcpVersion,
  handler: { id: string; name: string },
  business: UcpBusinessSummary,
  input: CompleteSessionInput,
): Record<string, unknown> {
  const credential = input.credential as CompleteSessionInput['credential'] & {
    brand?: string;
    last_digits?: string;
    instrument_type?: string;
  };
  const known = business.payment_handlers.find((h) => h.id === handler.id);
  const id = `pi_${input.checkout_id}`;
  const token = { type: 'token', token: credential.token };
  if (v === '2026-01-11') {
    // The first release's only instrument is a card, whose display fields are required; the gateway
    // passes what the credential carries and leaves them empty otherwise.
    return {
      payment_data: {
        id,
        handler_id: handler.id,
        type: 'card',
        brand: credential.brand ?? '',
        last_digits: credential.last_digits ?? '',
        credential: token,
      },
      risk_signals: {},
    };
  }
  return {
    payment: {
      instruments: [
        {
          id,
          handler_id: handler.id,
          type: credential.instrument_type ?? known?.instrument_types[0] ?? 'card',
          selected: true,
          credential: token,
        },
      ],
    },
  };
}

function escalationOf(co: WireCheckout): CompleteSessionResult {
  const message =
    errorMessages(co)
      .map((m) => m.content)
      .filter(Boolean)
      .join('; ') || 'the business needs the buyer to finish on its own page';
  if (!co.continue_url)
    return { ok: false, refusal: { code: 'merchant_refused', message: `${message} (and gave no page to finish on)`, status: null } };
  return { ok: false, escalation: { continue_url: co.continue_url, message } };
}

function completedOf(co: WireCheckout, business: UcpBusinessSummary): CompleteSessionResult {
  return {
    ok: true,
    order_id: co.order!.id,
    order_url: co.order!.permalink_url ?? null,
    status: co.status,
    session: toSession(co, business),
  };
}

export function createUcpAdapter(deps: UcpAdapterDeps): MerchantSessionAdapter {
  const getCheckout = async (business: UcpBusinessSummary, sessionId: string): Promise<Answered> =>
    read(await ucpCall(deps, business, { method: 'GET', path: `/checkout-sessions/${encodeURIComponent(sessionId)}` }), 'get checkout');

  return {
    protocol: 'ucp',

    async open(merchant: SessionMerchant, input: OpenSessionInput): Promise<OpenSessionResult> {
      const business = summaryOf(merchant);
      const v = business.version;
      const created = read(
        await ucpCall(deps, business, {
          method: 'POST',
          path: '/checkout-sessions',
          body: createBody(v, input),
          idempotencyKey: ucpIdempotencyKey(input.checkout_id, 'create'),
        }),
        'create checkout',
      );
      if (created.kind === 'refusal') return { ok: false, refusal: created.refusal, session_id: null };
      let co = created.co;
      for (let n = 1; n <= MAX_UPDATES; n++) {
        const body = nextUpdate(v, input, co);
        if (!body) break;
        const updated = read(
          await ucpCall(deps, business, {
            method: 'PUT',
            path: `/checkout-sessions/${encodeURIComponent(co.id)}`,
            body,
            idempotencyKey: ucpIdempotencyKey(input.checkout_id, `update:${n}`),
          }),
          'update checkout',
        );
        if (updated.kind === 'refusal') return { ok: false, refusal: updated.refusal, session_id: co.id };
        co = updated.co;
      }
      const refusal = openRefusal(co, input);
      if (refusal) return { ok: false, refusal, session_id: co.id };
      return { ok: true, session: toSession(co, business) };
    },

    async get(merchant: SessionMerchant, sessionId: string): Promise<MerchantSession> {
      const business = summaryOf(merchant);
      const got = await getCheckout(business, sessionId);
      if (got.kind === 'refusal') throw new UcpCallError(`get checkout ${sessionId}: ${got.refusal.message}`, false, got.refusal.status);
      return toSession(got.co, business);
    },

    async complete(merchant: SessionMerchant, input: CompleteSessionInput): Promise<CompleteSessionResult> {
      const business = summaryOf(merchant);
      const v = business.version;
      const current = await getCheckout(business, input.session_id);
      if (current.kind === 'refusal') return { ok: false, refusal: current.refusal };
      const co = current.co;
      if (co.status === 'completed' && co.order) return completedOf(co, business);
      if (co.status === 'canceled')
        return { ok: false, refusal: { code: 'merchant_refused', message: 'the checkout session was canceled', status: null } };
      if (co.status === 'complete_in_progress') throw new UcpCallError('the business is still placing the order', true);
      if (co.status === 'requires_escalation') return escalationOf(co);
      const totals = sessionTotals(co);
      if (co.currency.toUpperCase() !== input.currency.toUpperCase() || totals.total_minor !== input.expected_total_minor) {
        return {
          ok: false,
          refusal: {
            code: 'price_changed',
            message: `the business's total is now ${totals.total_minor} ${co.currency} (minor units); the buyer consented to ${input.expected_total_minor} ${input.currency}`,
            status: null,
          },
        };
      }
      const wanted = input.credential.handler;
      const handler = sessionHandlers(co, business).find((h) => h.id === wanted || h.name === wanted);
      if (!handler) {
        return {
          ok: false,
          refusal: {
            code: 'payment_handler_unsupported',
            message: `the business accepts no payment handler ${wanted} (it lists ${sessionHandlers(co, business)
              .map((h) => `${h.name} (${h.id})`)
              .join(', ')})`,
            status: null,
          },
        };
      }
      const done = read(
        await ucpCall(deps, business, {
          method: 'POST',
          path: `/checkout-sessions/${encodeURIComponent(input.session_id)}/complete`,
          body: instrumentFor(v, handler, business, input),
          idempotencyKey: ucpIdempotencyKey(input.checkout_id, 'complete'),
        }),
        'complete checkout',
      );
      if (done.kind === 'refusal') return { ok: false, refusal: done.refusal };
      const after = done.co;
      if (after.status === 'completed' && after.order) return completedOf(after, business);
      if (after.status === 'requires_escalation') return escalationOf(after);
      if (after.status === 'complete_in_progress') throw new UcpCallError('the business is still placing the order', true);
      const errors = errorMessages(after);
      return {
        ok: false,
        refusal: errors.length
          ? refusalFrom(errors, null)
          : {
              code: 'merchant_refused',
              message: `the business answered the completion with status ${after.status} and no order`,
              status: null,
            },
      };
    },

    async cancel(merchant: SessionMerchant, input: { checkout_id: string; session_id: string }): Promise<void> {
      const business = summaryOf(merchant);
      // A 4xx (already canceled or completed, or gone) leaves nothing to cancel; 5xx/408/429 throw.
      await ucpCall(deps, business, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(input.session_id)}/cancel`,
        idempotencyKey: ucpIdempotencyKey(input.checkout_id, 'cancel'),
      });
    },
  };
}
