import type http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OpenSessionInput, SessionMerchant } from '../src/protocols/merchant-session';
import { createUcpAdapter } from '../src/protocols/ucp/adapter';
import { searchUcpCatalog } from '../src/protocols/ucp/catalog';
import { UcpCallError, ucpIdempotencyKey } from '../src/protocols/ucp/client';
import {
  discoverBusiness,
  UcpProfileInvalid,
  UcpProfileUnreachable,
  UcpVersionUnsupported,
  type UcpBusinessSummary,
  type UcpVersion,
} from '../src/protocols/ucp/discovery';
import { parseUcpOrderEvent, verifyUcpOrderEvent } from '../src/protocols/ucp/order-events';
import { orderWebhookUrl, platformProfile, platformProfileUrl, platformProfileUrlFor } from '../src/protocols/ucp/platform-profile';
import { generateUcpSigner, type UcpSigner } from '../src/protocols/ucp/signing';
import { answersWithin } from './helpers/deadline';
import { closedPort, json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import {
  GPAY_HANDLER,
  MOCK_HANDLER,
  startUcpBusiness,
  TOKEN_DECLINE,
  TOKEN_OK,
  type UcpBusiness,
  type UcpBusinessOptions,
} from './helpers/ucp-business';
import { ucpSchemas } from './helpers/ucp-schemas';

const CATALOG = [
  { id: 'sku_mug', title: 'Ceramic Mug', price: 1800, image_url: 'https://shop.example/mug.jpg' },
  { id: 'sku_tea', title: 'Green Tea Tin', price: 1200 },
  { id: 'sku_pot', title: 'Ceramic Tea Pot', price: 4500 },
];

const BUYER = { full_name: 'Jane Doe', email: 'jane@example.com', phone: '+15555550100' };
const ADDRESS = { name: 'Jane Doe', line1: '123 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' };

let signer: UcpSigner;
let profileServer: LoopbackServer;
let webhook: LoopbackServer;
const received: Array<{ headers: http.IncomingHttpHeaders; body: Buffer; path: string }> = [];
const open: UcpBusiness[] = [];

beforeAll(async () => {
  signer = await generateUcpSigner('gateway-ucp-test');
  // The gateway's platform profile, as the API will serve it: one document per version.
  profileServer = await startLoopback((req, res) => {
    const base = `http://127.0.0.1:${profileServer.port}`;
    const version: UcpVersion = req.url?.endsWith('/2026-01-11') ? '2026-01-11' : '2026-04-08';
    json(res, 200, platformProfile({ publicBaseUrl: base, version, signingJwks: [signer.publicJwk] }));
  });
  webhook = await startLoopback((req, res) => {
    void readBody(req).then((raw) => {
      received.push({ headers: req.headers, body: Buffer.from(raw), path: req.url ?? '' });
      json(res, 200, { ucp: { version: '2026-04-08' } });
    });
  });
});

afterAll(async () => {
  await profileServer.close();
  await webhook.close();
});

afterEach(async () => {
  // Every business a test started: nothing it received or sent broke its version's schemas.
  for (const b of open.splice(0)) {
    expect(b.validationErrors).toEqual([]);
    await b.close();
  }
});

async function business(opts: Partial<UcpBusinessOptions> & { version: UcpVersion }): Promise<UcpBusiness> {
  const b = await startUcpBusiness({ catalog: CATALOG.map((c) => ({ ...c })), ...opts });
  open.push(b);
  return b;
}

const profileUrl = () => `http://127.0.0.1:${profileServer.port}/ucp/platform-profile`;

function adapterFor(opts: { timeoutMs?: number; signed?: boolean } = {}) {
  return createUcpAdapter({
    allowPrivateEndpoints: true,
    timeoutMs: opts.timeoutMs ?? 5000,
    platformProfileUrl: profileUrl(),
    ...(opts.signed === false ? {} : { signer }),
  });
}

async function merchantOf(b: UcpBusiness): Promise<SessionMerchant & { summary: UcpBusinessSummary }> {
  const summary = await discoverBusiness({ allowPrivateEndpoints: true, timeoutMs: 5000 }, b.url);
  return {
    merchant_id: 'merchant_ucp',
    endpoint: b.url,
    credential: null,
    profile: summary as unknown as Record<string, unknown>,
    summary,
  };
}

let checkoutSeq = 0;
function input(over: Partial<OpenSessionInput> = {}): OpenSessionInput {
  return {
    checkout_id: `chk_gw_${Date.now()}_${++checkoutSeq}`,
    currency: 'USD',
    items: [
      { item_id: 'sku_mug', title: 'Ceramic Mug', quantity: 2, unit_amount_minor: 1800 },
      { item_id: 'sku_tea', title: 'Green Tea Tin', quantity: 1, unit_amount_minor: 1200 },
    ],
    buyer: BUYER,
    shipping_address: ADDRESS,
    shipping_rule: 'cheapest',
    ...over,
  };
}

/** Subtotal 2×1800 + 1200 = 4800, cheapest shipping 500, tax 8% of the subtotal 384. */
const EXPECTED = { subtotal_minor: 4800, shipping_minor: 500, tax_minor: 384, discount_minor: 0, total_minor: 5684 };

describe.each(['2026-04-08', '2026-01-11'] as const)('UCP %s business', (version) => {
  it('discovery reads the profile into a summary: version, REST endpoint, handlers, signing keys', async () => {
    const b = await business({ version, catalogSearch: true });
    const { summary } = await merchantOf(b);
    expect(summary.version).toBe(version);
    expect(summary.rest_endpoint).toBe(b.endpoint);
    expect(summary.capabilities).toContain('dev.ucp.shopping.checkout');
    expect(summary.payment_handlers.map((h) => [h.id, h.name])).toEqual([
      [MOCK_HANDLER.id, MOCK_HANDLER.name],
      [GPAY_HANDLER.id, GPAY_HANDLER.name],
    ]);
    expect(summary.signing_keys?.[0]?.kid).toBe(b.kid);
    expect(summary.request_signing).toBe(version === '2026-04-08' ? 'rfc9421' : 'jws-detached');
    expect(summary.catalog_search).toBe(version === '2026-04-08');
    // The summary is what the merchant record stores: plain JSON.
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
    // The business's profile itself follows the official profile schema.
    const res = await fetch(`${b.url}/.well-known/ucp`);
    const doc = await res.json();
    const ref =
      version === '2026-04-08'
        ? 'https://ucp.dev/schemas/discovery/profile.json#/$defs/business_profile'
        : 'https://ucp.dev/schemas/discovery/profile.json';
    expect(ucpSchemas(version).validate(ref, 'response', 'read', doc)).toEqual([]);
  });

  it('open creates the session, sets buyer and destination, picks the cheapest shipping option and reads the totals', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const inp = input();
    const r = await adapterFor().open(m, inp);
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.session.status).toBe('ready_for_complete');
    expect(r.session.totals).toEqual(EXPECTED);
    expect(r.session.currency).toBe('USD');
    expect(r.session.fulfillment).toEqual({ option_id: 'standard', title: 'Standard', amount_minor: 500 });
    expect(r.session.line_items.map((l) => [l.item_id, l.quantity, l.unit_amount_minor, l.amount_minor])).toEqual([
      ['sku_mug', 2, 1800, 3600],
      ['sku_tea', 1, 1200, 1200],
    ]);
    expect(r.session.payment_handlers).toContainEqual(MOCK_HANDLER);
    expect(b.count('POST /checkout-sessions')).toBe(1);
    expect(b.count('PUT /checkout-sessions/{id}')).toBe(1);
    // Every call names the gateway's profile for this version, a Request-Id, and the step's key.
    const calls = b.requests.filter((r) => r.path.startsWith('/ucp/'));
    for (const c of calls) expect(c.headers['ucp-agent']).toBe(`profile="${platformProfileUrlFor(profileUrl(), version)}"`);
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual([
      ucpIdempotencyKey(inp.checkout_id, 'create'),
      ucpIdempotencyKey(inp.checkout_id, 'update:1'),
    ]);
    expect(new Set(calls.map((c) => c.headers['request-id'])).size).toBe(calls.length);
  });

  it('complete places the order once with the payment handler named by id', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    if (!done.ok || !('order_id' in done)) throw new Error(JSON.stringify(done));
    expect(done.status).toBe('completed');
    expect(done.order_url).toBe(`${b.url}/orders/${done.order_id}`);
    expect(done.session.totals.total_minor).toBe(EXPECTED.total_minor);
    expect(b.ordersPlaced()).toBe(1);
    const completes = b.requests.filter((r) => r.path.endsWith('/complete'));
    expect(completes).toHaveLength(1);
    expect(completes[0]!.headers['idempotency-key']).toBe(ucpIdempotencyKey(inp.checkout_id, 'complete'));
  });

  it('complete accepts the handler by its name as well as its id', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.name, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done.ok).toBe(true);
    const body = b.requests.find((r) => r.path.endsWith('/complete'))!.body as Record<string, unknown>;
    const instrument =
      version === '2026-04-08'
        ? (body.payment as { instruments: Array<Record<string, unknown>> }).instruments[0]!
        : (body.payment_data as Record<string, unknown>);
    expect(instrument.handler_id).toBe(MOCK_HANDLER.id);
  });

  it('a completion whose answer was lost is retried under the same key and places ONE order', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const req = {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    };
    b.loseAnswerAfterActing('complete', 1);
    const first = await a.complete(m, req).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(UcpCallError);
    expect((first as UcpCallError).retryable).toBe(true);
    const second = await a.complete(m, req);
    if (!second.ok || !('order_id' in second)) throw new Error(JSON.stringify(second));
    expect(b.ordersPlaced()).toBe(1);
  });

  it('a create whose answer was lost is answered from the business idempotency store on retry (one session)', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    b.loseAnswerAfterActing('create', 1);
    await expect(a.open(m, inp)).rejects.toMatchObject({ retryable: true });
    const r = await a.open(m, inp);
    expect(r.ok).toBe(true);
    expect(b.count('POST /checkout-sessions')).toBe(2);
    expect(b.keyCount(ucpIdempotencyKey(inp.checkout_id, 'create'))).toBe(2);
    expect(b.replays).toBe(1);
  });

  it('5xx answers throw retryable errors until the business recovers; the retry sends the same keys', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    b.failNext('update', 2, 503);
    for (let i = 0; i < 2; i++) await expect(a.open(m, inp)).rejects.toMatchObject({ name: 'UcpCallError', retryable: true, status: 503 });
    const r = await a.open(m, inp);
    expect(r.ok).toBe(true);
    expect(b.keyCount(ucpIdempotencyKey(inp.checkout_id, 'update:1'))).toBe(3);
    // The three creates were one: the retries were answered from the store.
    expect(b.replays).toBeGreaterThanOrEqual(2);
  });

  it('429 and 408 are retryable too', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    b.failNext('create', 1, 429);
    await expect(adapterFor().open(m, input())).rejects.toMatchObject({ retryable: true, status: 429 });
    b.failNext('create', 1, 408);
    await expect(adapterFor().open(m, input())).rejects.toMatchObject({ retryable: true, status: 408 });
  });

  it('a business that hangs makes the call time out as a retryable error', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    b.hangNext('create');
    const err = await answersWithin('hanging create', adapterFor({ timeoutMs: 800 }).open(m, input()), 15_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UcpCallError);
    expect((err as UcpCallError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/timeout/);
  });

  it('a declined payment is refused as payment_declined with the business message', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_DECLINE },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: false, refusal: { code: 'payment_declined', message: expect.stringMatching(/insufficient funds/i) } });
    expect(b.ordersPlaced()).toBe(0);
  });

  it('items out of stock at create are refused as out_of_stock without a session', async () => {
    const b = await business({ version });
    b.setStock('sku_mug', 0);
    b.setStock('sku_tea', 0);
    const r = await adapterFor().open(await merchantOf(b), input());
    expect(r).toMatchObject({
      ok: false,
      session_id: null,
      refusal: { code: 'out_of_stock', message: expect.stringMatching(/out of stock/i) },
    });
  });

  it('one item out of stock leaves the session incomplete: refused as out_of_stock with the session id', async () => {
    const b = await business({ version });
    b.setStock('sku_tea', 0);
    const r = await adapterFor().open(await merchantOf(b), input());
    expect(r).toMatchObject({ ok: false, refusal: { code: 'out_of_stock' } });
    expect(!r.ok && r.session_id).toMatch(/^chk_/);
  });

  it('a price changed between open and complete is refused as price_changed and not completed', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    b.setPrice('sku_mug', 2100);
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: false, refusal: { code: 'price_changed' } });
    expect(b.count('POST /checkout-sessions/{id}/complete')).toBe(0);
    expect(b.ordersPlaced()).toBe(0);
  });

  it('a business requiring escalation answers an escalation with its continue_url', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    b.requireEscalation('https://shop.example/verify/3ds');
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toEqual({
      ok: false,
      escalation: { continue_url: 'https://shop.example/verify/3ds', message: 'The bank needs the buyer to verify this payment' },
    });
    expect(b.ordersPlaced()).toBe(0);
  });

  it('a session without buyer details is refused as buyer_details_missing naming the field', async () => {
    const b = await business({ version });
    const r = await adapterFor().open(await merchantOf(b), input({ buyer: null }));
    expect(r).toMatchObject({ ok: false, refusal: { code: 'buyer_details_missing', missing: ['buyer.email'] } });
  });

  it('a session without a shipping address is refused as buyer_details_missing naming shipping_address', async () => {
    const b = await business({ version });
    const r = await adapterFor().open(await merchantOf(b), input({ shipping_address: null }));
    expect(r).toMatchObject({ ok: false, refusal: { code: 'buyer_details_missing', missing: ['shipping_address'] } });
    expect(!r.ok && r.session_id).toMatch(/^chk_/);
  });

  it('get reads the session again without side effects', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const opened = await a.open(m, input());
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const again = await a.get(m, opened.session.session_id);
    expect(again).toEqual(opened.session);
    const gets = b.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/ucp/'));
    expect(gets).toHaveLength(1);
    expect(gets[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('an unknown payment handler is refused before anything is sent', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: 'com.nowhere.pay', token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done).toMatchObject({ ok: false, refusal: { code: 'payment_handler_unsupported' } });
    expect(b.count('POST /checkout-sessions/{id}/complete')).toBe(0);
  });

  it('cancel cancels the session; canceling again is not an error', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    await a.cancel(m, { checkout_id: inp.checkout_id, session_id: opened.session.session_id });
    expect((await a.get(m, opened.session.session_id)).status).toBe('canceled');
    await a.cancel(m, { checkout_id: inp.checkout_id, session_id: opened.session.session_id });
    const cancels = b.requests.filter((r) => r.path.endsWith('/cancel'));
    expect(cancels.map((c) => c.headers['idempotency-key'])).toEqual([
      ucpIdempotencyKey(inp.checkout_id, 'cancel'),
      ucpIdempotencyKey(inp.checkout_id, 'cancel'),
    ]);
    expect(b.replays).toBe(1);
  });

  it('a business that requires signed requests accepts the gateway signatures (keys from its platform profile)', async () => {
    const b = await business({ version, requireSignedRequests: true });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    expect(done.ok).toBe(true);
    expect(b.signatureErrors).toEqual([]);
    const header = version === '2026-04-08' ? 'signature-input' : 'request-signature';
    for (const r of b.requests.filter((x) => x.path.startsWith('/ucp/'))) expect(r.headers[header]).toBeTruthy();
  });

  it('without a signing key the same business refuses the gateway (401: merchant_refused)', async () => {
    const b = await business({ version, requireSignedRequests: true });
    const r = await adapterFor({ signed: false }).open(await merchantOf(b), input());
    expect(r).toMatchObject({ ok: false, refusal: { code: 'merchant_refused', status: 401 } });
    expect(b.signatureErrors.length).toBeGreaterThan(0);
  });

  it('order events: signed placed, shipped (with tracking), canceled and refunded events verify and parse', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    if (!done.ok || !('order_id' in done)) throw new Error(JSON.stringify(done));
    const url = orderWebhookUrl(`http://127.0.0.1:${webhook.port}`);
    const statuses: string[] = [];
    for (const kind of ['placed', 'shipped', 'refunded', 'canceled'] as const) {
      received.length = 0;
      const sent = await b.sendOrderEvent(done.order_id, kind, url);
      expect(sent.status).toBe(200);
      const got = received[0]!;
      const check = await verifyUcpOrderEvent(got.headers, got.body, m.summary, { method: 'POST', path: got.path });
      expect(check).toMatchObject({ ok: true, kid: b.kid, scheme: version === '2026-04-08' ? 'rfc9421' : 'jws-detached' });
      const ev = parseUcpOrderEvent(got.body, got.headers);
      expect(ev.event_id).toBe(sent.eventId);
      expect(ev.order_id).toBe(done.order_id);
      expect(ev.checkout_id).toBe(opened.session.session_id);
      expect(Date.parse(ev.occurred_at)).not.toBeNaN();
      statuses.push(ev.status);
      if (kind === 'shipped') {
        expect(ev.tracking).toEqual([
          {
            carrier: 'UPS',
            number: `1Z${done.order_id.toUpperCase()}`,
            url: `https://www.ups.com/track?tracknum=1Z${done.order_id.toUpperCase()}`,
          },
        ]);
      }
    }
    expect(statuses).toEqual(['placed', 'shipped', 'refunded', 'canceled']);
  });

  it('order events: a bad signature, a tampered body and a missing signature are refused', async () => {
    const b = await business({ version });
    const m = await merchantOf(b);
    const a = adapterFor();
    const inp = input();
    const opened = await a.open(m, inp);
    if (!opened.ok) throw new Error(JSON.stringify(opened));
    const done = await a.complete(m, {
      checkout_id: inp.checkout_id,
      session_id: opened.session.session_id,
      credential: { handler: MOCK_HANDLER.id, token: TOKEN_OK },
      expected_total_minor: EXPECTED.total_minor,
      currency: 'USD',
      buyer: BUYER,
    });
    if (!done.ok || !('order_id' in done)) throw new Error(JSON.stringify(done));
    const url = orderWebhookUrl(`http://127.0.0.1:${webhook.port}`);
    const verdict = async (o: { tamperBody?: boolean; wrongKey?: boolean; unsigned?: boolean }) => {
      received.length = 0;
      await b.sendOrderEvent(done.order_id, 'shipped', url, o);
      const got = received[0]!;
      return verifyUcpOrderEvent(got.headers, got.body, m.summary, { method: 'POST', path: got.path });
    };
    expect(await verdict({ wrongKey: true })).toMatchObject({ ok: false, code: 'signature_invalid' });
    expect(await verdict({ tamperBody: true })).toMatchObject({
      ok: false,
      code: version === '2026-04-08' ? 'digest_mismatch' : 'signature_invalid',
    });
    expect(await verdict({ unsigned: true })).toMatchObject({ ok: false, code: 'signature_missing' });
    // Keys of another business do not verify this one's events.
    const other = await business({ version });
    received.length = 0;
    await b.sendOrderEvent(done.order_id, 'shipped', url);
    const got = received[0]!;
    const otherSummary = (await merchantOf(other)).summary;
    expect(await verifyUcpOrderEvent(got.headers, got.body, { signing_keys: otherSummary.signing_keys })).toMatchObject({
      ok: false,
      code: 'key_not_found',
    });
  });
});

describe('UCP discovery and negotiation', () => {
  const deps = { allowPrivateEndpoints: true, timeoutMs: 5000 };

  it('a business offering only an unsupported version is refused with both sides named', async () => {
    const b = await business({
      version: '2026-04-08',
      profile: (p) => ({
        ...p,
        ucp: {
          ...(p.ucp as object),
          version: '2025-10-01',
          supported_versions: { '2025-06-01': 'https://x.example/.well-known/ucp/2025-06-01' },
        },
      }),
    });
    const err = await discoverBusiness(deps, b.url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UcpVersionUnsupported);
    expect((err as UcpVersionUnsupported).offered).toEqual(['2025-10-01', '2025-06-01']);
    expect((err as Error).message).toBe('the business offers UCP 2025-10-01, 2025-06-01; the gateway speaks UCP 2026-04-08 and 2026-01-11');
    expect((err as UcpVersionUnsupported).status).toBe(422);
  });

  it('a newer business that still serves 2026-04-08 is negotiated down through supported_versions', async () => {
    const b = await business({
      version: '2026-04-08',
      profile: (p, biz) => ({
        ...p,
        ucp: { ...(p.ucp as object), version: '2026-09-01', supported_versions: { '2026-04-08': `${biz.url}/.well-known/ucp/2026-04-08` } },
      }),
    });
    const s = await discoverBusiness(deps, b.url);
    expect(s.version).toBe('2026-04-08');
    expect(s.profile_url).toBe(`${b.url}/.well-known/ucp/2026-04-08`);
    expect(s.rest_endpoint).toBe(b.endpoint);
  });

  it('an unreachable profile and a profile without a REST endpoint are typed errors', async () => {
    const port = await closedPort();
    await expect(discoverBusiness(deps, `http://127.0.0.1:${port}`)).rejects.toBeInstanceOf(UcpProfileUnreachable);
    const b = await business({
      version: '2026-04-08',
      profile: (p) => ({ ...p, ucp: { ...(p.ucp as object), services: { 'dev.ucp.shopping': [] } } }),
    });
    await expect(discoverBusiness(deps, b.url)).rejects.toBeInstanceOf(UcpProfileInvalid);
    // Without the private-endpoint flag a loopback business is not called at all.
    await expect(discoverBusiness({ allowPrivateEndpoints: false, timeoutMs: 5000 }, b.url)).rejects.toBeInstanceOf(UcpProfileInvalid);
  });

  it('the platform profile of each version follows the official profile schema and names the webhook and keys', async () => {
    const base = 'https://gateway.example';
    for (const version of ['2026-04-08', '2026-01-11'] as const) {
      const doc = platformProfile({ publicBaseUrl: base, version, signingJwks: [{ ...signer.publicJwk, d: 'secret' } as never] });
      const ref =
        version === '2026-04-08'
          ? 'https://ucp.dev/schemas/discovery/profile.json#/$defs/platform_profile'
          : 'https://ucp.dev/schemas/discovery/profile.json';
      expect(ucpSchemas(version).validate(ref, 'response', 'read', doc)).toEqual([]);
      const text = JSON.stringify(doc);
      expect(text).toContain(`${base}/ucp/webhooks/orders`);
      expect(text).not.toContain('secret');
      expect((doc.signing_keys as Array<{ kid: string; crv: string }>)[0]).toMatchObject({ kid: signer.kid, crv: 'P-256', kty: 'EC' });
    }
    expect(platformProfileUrl(base)).toBe(`${base}/ucp/platform-profile`);
  });
});

describe('UCP catalog search', () => {
  it('searches a business that declares catalog search, with a price cap', async () => {
    const b = await business({ version: '2026-04-08', catalogSearch: true });
    const m = await merchantOf(b);
    const deps = { allowPrivateEndpoints: true, timeoutMs: 5000, platformProfileUrl: profileUrl(), signer };
    const items = await searchUcpCatalog(deps, m, { query: 'ceramic', limit: 10, max_price: 2000, currency: 'USD' });
    expect(items).toEqual([
      {
        item_id: 'sku_mug',
        product_id: 'prod_sku_mug',
        title: 'Ceramic Mug',
        price_minor: 1800,
        currency: 'USD',
        url: `${b.url}/products/sku_mug`,
        image: 'https://shop.example/mug.jpg',
        in_stock: true,
      },
    ]);
    b.setStock('sku_pot', 0);
    const all = await searchUcpCatalog(deps, m, { query: 'ceramic', limit: 10 });
    expect(all.map((i) => [i.item_id, i.in_stock])).toEqual([
      ['sku_mug', true],
      ['sku_pot', false],
    ]);
    expect(b.count('POST /catalog/search')).toBe(2);
  });

  it('a business without catalog search is refused before any call', async () => {
    const b = await business({ version: '2026-04-08' });
    const m = await merchantOf(b);
    await expect(
      searchUcpCatalog({ allowPrivateEndpoints: true, timeoutMs: 5000, platformProfileUrl: profileUrl() }, m, { query: 'mug', limit: 5 }),
    ).rejects.toThrow(/does not declare UCP catalog search/);
    expect(b.count('POST /catalog/search')).toBe(0);
  });
});
