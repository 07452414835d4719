import { createHmac } from 'node:crypto';
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createAcpAdapter, type AcpAdapterDeps } from '../src/protocols/acp/adapter';
import { AcpRequestError } from '../src/protocols/acp/client';
import { AcpDelegationRefused, delegatePayment, pspDelegator, type AcpCardPaymentMethod } from '../src/protocols/acp/delegate-payment';
import { parseAcpOrderEvent, verifyAcpOrderEvent } from '../src/protocols/acp/order-events';
import type { MerchantSessionAdapter, OpenSessionInput, SessionMerchant } from '../src/protocols/merchant-session';
import { startAcpSeller, type AcpSellerOptions, type AcpTestSeller } from './helpers/acp-seller';
import { answersWithin } from './helpers/deadline';
import { json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { DECLINED_CARD, startTestPsp, type TestPsp } from './helpers/test-psp';

/**
 * The ACP agent-side adapter against a real loopback ACP seller and PSP that validate every message
 * against the official 2026-04-17 OpenAPI documents (each test ends by asserting no message broke
 * them). Prices: kettle 3450, mug 1200; shipping express 1500 (the seller's preselection) or
 * standard 500; tax 10 % of the items.
 */

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

let seq = 0;
const checkoutId = () => `chk_acp_${Date.now().toString(36)}_${++seq}`;

const BUYER = { full_name: 'Ada Lovelace', email: 'ada@example.com', phone: '+441234567890' };
const ADDRESS = { line1: '12 St James Square', city: 'London', region: 'LDN', postal_code: 'SW1Y 4JH', country: 'GB' };
/** 2 kettles + 1 mug = 8100; standard shipping 500; tax 810. */
const EXPECTED_TOTAL = 8100 + 500 + 810;

function openInput(checkout_id: string, over: Partial<OpenSessionInput> = {}): OpenSessionInput {
  return {
    checkout_id,
    currency: 'USD',
    items: [
      { item_id: 'sku_kettle', title: 'Kettle', quantity: 2, unit_amount_minor: 3450 },
      { item_id: 'sku_mug', title: 'Mug', quantity: 1, unit_amount_minor: 1200 },
    ],
    buyer: BUYER,
    shipping_address: ADDRESS,
    shipping_rule: 'cheapest',
    ...over,
  };
}

async function seller(options: AcpSellerOptions = {}): Promise<AcpTestSeller> {
  const s = await startAcpSeller(options);
  closers.push(() => s.close());
  return s;
}

async function psp(): Promise<TestPsp> {
  const p = await startTestPsp();
  closers.push(() => p.close());
  return p;
}

const merchantOf = (s: AcpTestSeller, over: Partial<SessionMerchant> = {}): SessionMerchant => ({
  merchant_id: 'mer_acp_loopback',
  endpoint: s.url,
  credential: s.credential,
  profile: null,
  ...over,
});

const adapter = (over: Partial<AcpAdapterDeps> = {}): MerchantSessionAdapter =>
  createAcpAdapter({ allowPrivateEndpoints: true, timeoutMs: 5_000, ...over });

/** Calls `fn` until it stops throwing a retryable AcpRequestError, at most `attempts` times (as the activity's retry would). */
async function withRetries<T>(attempts: number, fn: () => Promise<T>): Promise<{ result: T; failures: AcpRequestError[] }> {
  const failures: AcpRequestError[] = [];
  for (let i = 0; i < attempts; i++) {
    try {
      return { result: await fn(), failures };
    } catch (err) {
      if (!(err instanceof AcpRequestError) || !err.retryable) throw err;
      failures.push(err);
    }
  }
  throw new Error(`still failing after ${attempts} attempts: ${failures.map((f) => f.message).join('; ')}`);
}

async function openReady(a: MerchantSessionAdapter, s: AcpTestSeller, id: string) {
  const opened = await a.open(merchantOf(s), openInput(id));
  if (!opened.ok) throw new Error(`open refused: ${JSON.stringify(opened.refusal)}`);
  return opened.session;
}

const credential = { handler: 'card_tokenized', token: 'tok_agent_test' };

describe('ACP agent adapter against a loopback ACP seller', () => {
  it('happy path: creates, sends buyer and address, switches to the cheapest shipping, completes one order', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);

    expect(session).toMatchObject({ protocol: 'acp', status: 'ready_for_payment', currency: 'USD', continue_url: null });
    expect(session.totals).toEqual({
      subtotal_minor: 8100,
      shipping_minor: 500,
      tax_minor: 810,
      discount_minor: 0,
      total_minor: EXPECTED_TOTAL,
    });
    expect(session.line_items).toEqual([
      { item_id: 'sku_kettle', title: 'Stovetop kettle', quantity: 2, unit_amount_minor: 3450, amount_minor: 6900 },
      { item_id: 'sku_mug', title: 'Enamel mug', quantity: 1, unit_amount_minor: 1200, amount_minor: 1200 },
    ]);
    expect(session.fulfillment).toEqual({ option_id: 'ship_standard', title: 'Standard (4-6 days)', amount_minor: 500 });
    expect(session.payment_handlers).toEqual([{ id: 'card_tokenized', name: 'dev.acp.tokenized.card' }]);
    // create, buyer + address, then the selection of the cheaper option: keys from the checkout id and step.
    expect(s.requests.map((r) => [r.op, r.idempotencyKey])).toEqual([
      ['create', `${id}:create`],
      ['update', `${id}:update:1`],
      ['update', `${id}:update:2`],
    ]);
    expect(s.requests.every((r) => r.requestId?.startsWith('req_'))).toBe(true);

    const again = await a.get(merchantOf(s), session.session_id);
    expect(again.totals.total_minor).toBe(EXPECTED_TOTAL);

    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: true, status: 'confirmed' });
    if (!done.ok) throw new Error('unreachable');
    expect(s.orders).toHaveLength(1);
    expect(done.order_id).toBe(s.orders[0]!.order_id);
    expect(done.order_url).toBe(`${s.url}/orders/${done.order_id}`);
    expect(s.orders[0]).toMatchObject({ total: EXPECTED_TOTAL, token: 'tok_agent_test', handler_id: 'card_tokenized' });
    expect(s.requests.find((r) => r.op === 'complete')!.idempotencyKey).toBe(`${id}:complete`);
    expect(s.validationErrors).toEqual([]);
  });

  it('totals change between open and complete: refused as price_changed, complete never sent, no order', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    s.setPrice('sku_kettle', 3950);

    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: false, refusal: { code: 'price_changed' } });
    if (done.ok || !('refusal' in done)) throw new Error('unreachable');
    expect(done.refusal.message).toContain(String(EXPECTED_TOTAL + 1000 + 100));
    expect(s.count('complete')).toBe(0);
    expect(s.orders).toHaveLength(0);
    expect(s.validationErrors).toEqual([]);
  });

  it('declined payment: refused as payment_declined with the seller message, no order', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    s.declinePayments(true);

    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toEqual({
      ok: false,
      refusal: { code: 'payment_declined', message: 'The card issuer declined this payment.', status: 402 },
    });
    expect(s.orders).toHaveLength(0);
    expect(s.validationErrors).toEqual([]);
  });

  it('out of stock: open refuses out_of_stock with the seller message and its session id', async () => {
    const s = await seller();
    s.setStock('sku_kettle', 1);
    const opened = await adapter().open(merchantOf(s), openInput(checkoutId()));
    expect(opened).toMatchObject({ ok: false, refusal: { code: 'out_of_stock', status: 201 } });
    if (opened.ok) throw new Error('unreachable');
    expect(opened.refusal.message).toBe("Sorry, only 1 of 'Stovetop kettle' left in stock.");
    expect(opened.session_id).toMatch(/^cs_/);
    // Nothing more is sent once the seller says an item cannot be had.
    expect(s.count('update')).toBe(0);
    expect(s.validationErrors).toEqual([]);
  });

  it('no buyer and no address: open refuses buyer_details_missing naming what is missing', async () => {
    const s = await seller();
    const opened = await adapter().open(merchantOf(s), openInput(checkoutId(), { buyer: null, shipping_address: null }));
    expect(opened).toMatchObject({ ok: false, refusal: { code: 'buyer_details_missing' } });
    if (opened.ok) throw new Error('unreachable');
    expect(opened.refusal.missing?.sort()).toEqual(['buyer.email', 'shipping_address']);
    expect(opened.refusal.message).toContain('A shipping address is needed.');
    expect(s.validationErrors).toEqual([]);
  });

  it('a quantity is sent as that many entries of the item and read back as one line', async () => {
    const s = await seller();
    const id = checkoutId();
    await openReady(adapter(), s, id);
    const create = s.requests.find((r) => r.op === 'create')!.body as { line_items: Array<{ id: string }>; currency: string };
    expect(create.line_items).toEqual([{ id: 'sku_kettle' }, { id: 'sku_kettle' }, { id: 'sku_mug' }]);
    expect(create.currency).toBe('usd');
  });

  it('5xx then recovery: open and complete throw retryable errors, the retries succeed with one order', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    s.failNext('create', 1, 500);
    const opened = await withRetries(4, () => a.open(merchantOf(s), openInput(id)));
    expect(opened.failures.map((f) => [f.retryable, f.status])).toEqual([[true, 500]]);
    if (!opened.result.ok) throw new Error('open refused');

    s.failNext('complete', 2, 503);
    const done = await withRetries(5, () =>
      a.complete(merchantOf(s), {
        checkout_id: id,
        session_id: opened.result.ok ? opened.result.session.session_id : '',
        credential,
        expected_total_minor: EXPECTED_TOTAL,
        currency: 'USD',
        buyer: BUYER,
      }),
    );
    expect(done.failures.map((f) => f.status)).toEqual([503, 503]);
    expect(done.result.ok).toBe(true);
    expect(s.orders).toHaveLength(1);
    // Every complete attempt carried the same key; the 5xx answers were not stored against it.
    expect(new Set(s.requests.filter((r) => r.op === 'complete').map((r) => r.idempotencyKey))).toEqual(new Set([`${id}:complete`]));
    expect(s.validationErrors).toEqual([]);
  });

  it('idempotent retried complete: the seller placed the order but the answer was lost; the retry gets the stored answer, one order', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    s.loseAnswer('complete');
    const input = {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    };

    const first = await withRetries(3, () => a.complete(merchantOf(s), input));
    expect(first.result.ok).toBe(true);
    // Called again later (an activity retried after the result was lost on our side): same order.
    const second = await a.complete(merchantOf(s), input);
    if (!first.result.ok || !second.ok) throw new Error('unreachable');
    expect(second.order_id).toBe(first.result.order_id);
    expect(s.orders).toHaveLength(1);
    const completes = s.requests.filter((r) => r.op === 'complete');
    expect(completes.length).toBeGreaterThanOrEqual(2);
    expect(completes.every((r) => r.idempotencyKey === `${id}:complete`)).toBe(true);
    expect(completes.filter((r) => r.replayed).length).toBeGreaterThanOrEqual(1);
    expect(s.validationErrors).toEqual([]);
  });

  it('a complete retried with another token after the order was placed: the seller answers 422 idempotency_conflict, no second order, the adapter reads the session as completed', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    const input = {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    };
    const first = await a.complete(merchantOf(s), input);
    expect(first.ok).toBe(true);

    const second = await a.complete(merchantOf(s), { ...input, credential: { handler: 'card_tokenized', token: 'tok_other' } });
    expect(second.ok).toBe(true);
    expect(s.requests.filter((r) => r.op === 'complete').map((r) => r.status)).toEqual([200, 422]);
    expect(s.orders).toHaveLength(1);
    expect(s.validationErrors).toEqual([]);
  });

  it('a hanging seller: complete throws a retryable timeout, the retry completes one order', async () => {
    const s = await seller();
    const a = adapter({ timeoutMs: 400 });
    const id = checkoutId();
    const session = await openReady(a, s, id);
    s.hang('complete');
    const input = {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    };

    const err = await answersWithin('complete against a hanging seller', a.complete(merchantOf(s), input), 10_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AcpRequestError);
    expect(err).toMatchObject({ retryable: true, reason: 'timeout' });
    const done = await a.complete(merchantOf(s), input);
    expect(done.ok).toBe(true);
    expect(s.orders).toHaveLength(1);
    expect(s.validationErrors).toEqual([]);
  });

  it('cancel: cancels an open session; cancelling a completed session is not an error', async () => {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    await a.cancel(merchantOf(s), { checkout_id: id, session_id: session.session_id });
    expect(s.session(session.session_id)).toMatchObject({ status: 'canceled' });
    expect(s.requests.find((r) => r.op === 'cancel')).toMatchObject({ idempotencyKey: `${id}:cancel`, status: 200 });
    // The same cancel again (a retry) is answered from the key; nothing changes.
    await a.cancel(merchantOf(s), { checkout_id: id, session_id: session.session_id });

    const id2 = checkoutId();
    const other = await openReady(a, s, id2);
    const done = await a.complete(merchantOf(s), {
      checkout_id: id2,
      session_id: other.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done.ok).toBe(true);
    await a.cancel(merchantOf(s), { checkout_id: id2, session_id: other.session_id });
    expect(s.requests.filter((r) => r.op === 'cancel').map((r) => r.status)).toEqual([200, 200, 405]);
    expect(s.session(other.session_id)).toMatchObject({ status: 'completed' });
    expect(s.validationErrors).toEqual([]);
  });

  it('a seller that needs the buyer on its page: open keeps the session, complete escalates with its continue_url', async () => {
    const s = await seller();
    s.requireEscalation(true);
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    expect(session).toMatchObject({ status: 'requires_escalation', continue_url: `${s.url}/continue/${session.session_id}` });
    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: false, escalation: { continue_url: `${s.url}/continue/${session.session_id}` } });
    expect(s.count('complete')).toBe(0);
    expect(s.validationErrors).toEqual([]);
  });

  it('a wrong seller credential: open refuses merchant_refused with the seller message (401)', async () => {
    const s = await seller();
    const opened = await adapter().open(merchantOf(s, { credential: 'not-the-issued-one' }), openInput(checkoutId()));
    expect(opened).toEqual({
      ok: false,
      refusal: { code: 'merchant_refused', message: 'Unknown or missing credential.', status: 401 },
      session_id: null,
    });
    expect(s.validationErrors).toEqual([]);
  });

  it('an unknown item id: open refuses merchant_refused with the seller message (400)', async () => {
    const s = await seller();
    const opened = await adapter().open(
      merchantOf(s),
      openInput(checkoutId(), { items: [{ item_id: 'sku_nope', title: 'Nope', quantity: 1, unit_amount_minor: 100 }] }),
    );
    expect(opened).toMatchObject({
      ok: false,
      refusal: { code: 'merchant_refused', message: "There is no item 'sku_nope'.", status: 400 },
    });
    expect(s.validationErrors).toEqual([]);
  });

  it('endpoint safety: with private endpoints not allowed, a loopback seller is never called', async () => {
    const s = await seller();
    const err = await adapter({ allowPrivateEndpoints: false })
      .open(merchantOf(s), openInput(checkoutId()))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AcpRequestError', retryable: false, reason: 'unsafe_endpoint' });
    expect(s.requests).toHaveLength(0);
  });
});

describe('ACP order events (Merchant-Signature)', () => {
  const SECRET = 'whsec_acp_loopback_secret';

  /** A webhook receiver as the gateway would run one: verify the raw body, then parse. */
  async function receiver(): Promise<{ server: LoopbackServer; received: ReturnType<typeof parseAcpOrderEvent>[] }> {
    const received: ReturnType<typeof parseAcpOrderEvent>[] = [];
    const server = await startLoopback((req: http.IncomingMessage, res: http.ServerResponse) => {
      void readBody(req).then((raw) => {
        const check = verifyAcpOrderEvent(req.headers, raw, SECRET);
        if (!check.ok) return json(res, 401, { type: 'invalid_request', code: 'invalid_signature', message: `signature ${check.reason}` });
        received.push(parseAcpOrderEvent(raw, { signedAt: check.timestamp }));
        json(res, 200, { received: true });
      });
    });
    closers.push(() => server.close());
    return { server, received };
  }

  async function placedOrder() {
    const s = await seller();
    const a = adapter();
    const id = checkoutId();
    const session = await openReady(a, s, id);
    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    if (!done.ok) throw new Error('complete failed');
    return { s, orderId: done.order_id, sessionId: session.session_id };
  }

  it('good signature: order_create and a shipped order_update are accepted and parsed with tracking', async () => {
    const { s, orderId, sessionId } = await placedOrder();
    const { server, received } = await receiver();

    expect((await s.sendOrderEvent(server.url, SECRET, s.orderEvent(orderId, 'order_create'))).status).toBe(200);
    const shipped = s.orderEvent(orderId, 'order_update', {
      status: 'shipped',
      fulfillments: [
        {
          id: 'ful_1',
          type: 'shipping',
          status: 'shipped',
          carrier: 'Royal Mail',
          tracking_number: 'RM123456789GB',
          tracking_url: 'https://track.example/RM123456789GB',
          events: [{ id: 'fe_1', type: 'shipped', occurred_at: '2026-04-20T09:30:00Z' }],
        },
      ],
    });
    expect((await s.sendOrderEvent(server.url, SECRET, shipped)).status).toBe(200);

    expect(received).toHaveLength(2);
    expect(received[0]).toMatchObject({
      type: 'order_create',
      order_id: orderId,
      session_id: sessionId,
      status: 'confirmed',
      tracking: [],
    });
    expect(received[0]!.occurred_at).not.toBeNull();
    expect(received[1]).toMatchObject({
      type: 'order_update',
      order_id: orderId,
      session_id: sessionId,
      status: 'shipped',
      tracking: [{ carrier: 'Royal Mail', number: 'RM123456789GB', url: 'https://track.example/RM123456789GB' }],
      occurred_at: '2026-04-20T09:30:00.000Z',
    });
    expect(received[0]!.event_id).not.toBe(received[1]!.event_id);
    // A redelivery of the same event has the same id (the receiver de-duplicates on it).
    expect(parseAcpOrderEvent(JSON.stringify(shipped)).event_id).toBe(received[1]!.event_id);
    expect(s.validationErrors).toEqual([]);
  });

  it('bad signatures are refused: wrong secret, a timestamp outside the window, a changed body, no or a malformed header', async () => {
    const { s, orderId } = await placedOrder();
    const { server, received } = await receiver();
    const event = s.orderEvent(orderId, 'order_update', { status: 'processing' });

    const wrongSecret = await s.sendOrderEvent(server.url, 'whsec_someone_else', event);
    expect(wrongSecret).toMatchObject({ status: 401, body: { code: 'invalid_signature', message: 'signature mismatch' } });
    const stale = await s.sendOrderEvent(server.url, SECRET, event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale).toMatchObject({ status: 401, body: { message: 'signature outside_window' } });
    expect(received).toHaveLength(0);

    const raw = JSON.stringify(event);
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', SECRET).update(`${t}.${raw}`).digest('hex');
    const header = { 'Merchant-Signature': `t=${t},v1=${v1}` };
    expect(verifyAcpOrderEvent(header, raw, SECRET)).toEqual({ ok: true, timestamp: t });
    expect(verifyAcpOrderEvent(header, raw.replace('processing', 'completed'), SECRET)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyAcpOrderEvent({}, raw, SECRET)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyAcpOrderEvent({ 'merchant-signature': `v1=${v1}` }, raw, SECRET)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAcpOrderEvent({ 'merchant-signature': `t=${t},v1=xyz` }, raw, SECRET)).toEqual({ ok: false, reason: 'malformed' });
    // From the future is refused as well.
    expect(verifyAcpOrderEvent(header, raw, SECRET, { now: new Date((t - 400) * 1000) })).toEqual({ ok: false, reason: 'outside_window' });
    expect(s.validationErrors).toEqual([]);
  });

  it('a body that is not an order event is refused by the parser', () => {
    expect(() => parseAcpOrderEvent('{"type":"order_update"}')).toThrow(/not an ACP order event/);
    expect(() => parseAcpOrderEvent('not json')).toThrow(/not JSON/);
  });
});

describe('ACP delegated payment (PSP delegate_payment)', () => {
  const CARD: AcpCardPaymentMethod = {
    type: 'card',
    card_number_type: 'fpan',
    number: '4242424242424242',
    exp_month: '11',
    exp_year: '2030',
    name: 'Ada Lovelace',
    cvc: '123',
    display_card_funding_type: 'credit',
    display_brand: 'visa',
    display_last4: '4242',
    metadata: {},
  };
  const deps = { allowPrivateEndpoints: true, timeoutMs: 5_000 };

  it('delegatePayment: a token under an allowance; the same key replays the same token; a changed body is refused', async () => {
    const p = await psp();
    const input = {
      idempotency_key: 'chk_x:delegate_payment',
      payment_method: CARD,
      allowance: {
        max_amount_minor: 9410,
        currency: 'USD',
        checkout_session_id: 'cs_123',
        merchant_id: 'acct_loopback_seller',
        expires_at: new Date(Date.now() + 3600_000),
      },
    };
    const first = await delegatePayment(deps, p.url, p.key, input);
    expect(first.token_id).toMatch(/^vt_/);
    expect(first.replayed).toBe(false);
    expect(p.tokens.get(first.token_id)!.allowance).toMatchObject({
      reason: 'one_time',
      max_amount: 9410,
      currency: 'usd',
      checkout_session_id: 'cs_123',
      merchant_id: 'acct_loopback_seller',
    });
    const again = await delegatePayment(deps, p.url, p.key, input);
    expect(again).toMatchObject({ token_id: first.token_id, replayed: true });
    expect(p.tokens.size).toBe(1);

    const changed = await delegatePayment(deps, p.url, p.key, {
      ...input,
      allowance: { ...input.allowance, max_amount_minor: 99_999 },
    }).catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(AcpDelegationRefused);
    expect(changed).toMatchObject({ code: 'idempotency_conflict', status: 422 });
    const wrongKey = await delegatePayment(deps, p.url, 'not-the-key', input).catch((e: unknown) => e);
    expect(wrongKey).toMatchObject({ name: 'AcpRequestError', retryable: false, status: 401 });
    expect(p.validationErrors).toEqual([]);
  });

  it('delegated token flow: complete obtains a token scoped to the session and consented total, the seller charges it once', async () => {
    const p = await psp();
    const s = await seller({ psp: p });
    const resolved: string[] = [];
    const a = adapter({
      delegatePayment: pspDelegator(deps, {
        pspBaseUrl: p.url,
        pspKey: p.key,
        resolveCard: async (ref) => {
          resolved.push(ref);
          return CARD;
        },
      }),
    });
    const id = checkoutId();
    const session = await openReady(a, s, id);
    const input = {
      checkout_id: id,
      session_id: session.session_id,
      credential: { handler: 'dev.acp.tokenized.card', token: 'vault_ref_ada_visa' },
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    };
    s.loseAnswer('complete');
    const done = await withRetries(3, () => a.complete(merchantOf(s), input));
    expect(done.result.ok).toBe(true);

    expect(p.tokens.size).toBe(1);
    const [token] = [...p.tokens.values()];
    expect(token!.allowance).toMatchObject({
      reason: 'one_time',
      max_amount: EXPECTED_TOTAL,
      currency: 'usd',
      checkout_session_id: session.session_id,
      merchant_id: 'acct_loopback_seller',
    });
    expect(token!.used).toBe(true);
    expect(s.orders).toHaveLength(1);
    expect(s.orders[0]).toMatchObject({ token: token!.id, handler_id: 'card_tokenized' });
    expect(resolved.every((r) => r === 'vault_ref_ada_visa')).toBe(true);
    // Each attempt asked the PSP under one key; the retries were answered from it.
    expect(new Set(p.requests.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(p.requests[0]!.idempotencyKey).toMatch(new RegExp(`^${id}:delegate_payment:`));
    expect(p.validationErrors).toEqual([]);
    expect(s.validationErrors).toEqual([]);
  });

  it('delegated token flow: a card the PSP declines at charge time is refused as payment_declined, no order', async () => {
    const p = await psp();
    const s = await seller({ psp: p });
    const a = adapter({
      delegatePayment: pspDelegator(deps, {
        pspBaseUrl: p.url,
        pspKey: p.key,
        resolveCard: async () => ({ ...CARD, number: DECLINED_CARD }),
      }),
    });
    const id = checkoutId();
    const session = await openReady(a, s, id);
    const done = await a.complete(merchantOf(s), {
      checkout_id: id,
      session_id: session.session_id,
      credential,
      expected_total_minor: EXPECTED_TOTAL,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toEqual({ ok: false, refusal: { code: 'payment_declined', message: 'Your card was declined.', status: 402 } });
    expect(s.orders).toHaveLength(0);
    expect(p.validationErrors).toEqual([]);
    expect(s.validationErrors).toEqual([]);
  });

  it('delegated token flow: a PSP 5xx makes complete throw retryable; the retry delegates and completes one order', async () => {
    const p = await psp();
    const s = await seller({ psp: p });
    const a = adapter({ delegatePayment: pspDelegator(deps, { pspBaseUrl: p.url, pspKey: p.key, resolveCard: async () => CARD }) });
    const id = checkoutId();
    const session = await openReady(a, s, id);
    p.failNext(1, 503);
    const done = await withRetries(3, () =>
      a.complete(merchantOf(s), {
        checkout_id: id,
        session_id: session.session_id,
        credential,
        expected_total_minor: EXPECTED_TOTAL,
        currency: 'USD',
        buyer: BUYER,
      }),
    );
    expect(done.failures.map((f) => f.status)).toEqual([503]);
    expect(done.result.ok).toBe(true);
    expect(s.count('complete')).toBe(1);
    expect(s.orders).toHaveLength(1);
    expect(p.validationErrors).toEqual([]);
    expect(s.validationErrors).toEqual([]);
  });
});
