import { randomBytes } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { RouteRegistry } from '../api/routes/registry';
import { checkoutRoutes } from '../api/routes/checkout';
import { buildOpenApiDocument } from '../api/openapi';
import { isAgentEndpoint } from '../src/checkout/seller';
import { startMerchantAgent, type MerchantAgent } from '../examples/merchant-agent/agent';

/**
 * The checkout's contracts without the stack: what the OpenAPI document says about the two modes
 * and failures, which endpoints count as an agent, and the merchant side of the handoff contract
 * (one order per Idempotency-Key) in the reference merchant agent.
 */

const agents: MerchantAgent[] = [];
afterAll(async () => {
  for (const a of agents) await a.close();
});

describe('the served OpenAPI document describes both checkout modes and the saga', () => {
  it('checkout_mode, handed_off, continue_url, failure.next_action, next_steps; confirm declares 502 merchant_handoff_failed and what its body carries', async () => {
    const r = new RouteRegistry();
    checkoutRoutes(r);
    const doc: any = buildOpenApiDocument(r.routes, { locale: 'en', serverUrl: 'http://127.0.0.1' });
    await SwaggerParser.validate(structuredClone(doc));
    const schemas = doc.components.schemas;
    expect(schemas.CheckoutMode.enum).toEqual(['agent_handoff', 'merchant_redirect']);
    expect(schemas.CheckoutMode.description).toMatch(/no payment/);
    const record = schemas.AgenticCheckout;
    expect(record.properties.status.enum).toContain('handed_off');
    expect(record.properties.checkout_mode.$ref).toBe('#/components/schemas/CheckoutMode');
    expect(Object.keys(record.properties)).toContain('continue_url');
    expect(schemas.AgenticCheckoutPlan.properties.checkout_mode.$ref).toBe('#/components/schemas/CheckoutMode');
    // The next steps of a checkout in every state (the three of a failed checkout kept, search_again added).
    expect(schemas.CheckoutNextAction.properties.action.enum).toEqual([
      'confirm_checkout',
      'poll_checkout',
      'follow_order',
      'continue_on_merchant_page',
      'plan_new_checkout',
      'accept_match_again',
      'choose_another_proposal',
      'search_again',
    ]);
    expect(schemas.AgenticCheckoutEnvelope.required).toEqual(['checkout', 'next_steps']);
    expect(schemas.AgenticCheckoutEnvelope.properties.next_steps.items.$ref).toBe('#/components/schemas/CheckoutNextAction');
    expect(Object.keys(schemas.CheckoutFailure.properties)).toEqual(['status', 'code', 'message', 'next_action', 'merchant_reason']);
    const confirm = doc.paths['/v1/agentic-checkout/{checkoutId}/confirm'].post;
    expect(confirm.responses['502'].description).toContain('merchant_handoff_failed');
    for (const member of ['checkout_id', 'merchant_reason', 'payment_voided', 'next_steps'])
      expect(confirm.responses['502'].description).toContain(member);
    expect(confirm.responses['200'].description).toMatch(/handed_off/);
    expect(doc.paths['/v1/agentic-checkout'].post.description).toMatch(/merchant_redirect/);
  });
});

describe('who has an agent endpoint', () => {
  it.each([
    ['https://gateway.invalid/catalog', false],
    ['https://shop.invalid./agent', false],
    ['https://invalid/agent', false],
    ['not a url', false],
    ['', false],
    ['https://acme.example.com/agent', true],
    ['http://127.0.0.1:8081/intents', true],
  ])('%s → %s', (endpoint, expected) => {
    expect(isAgentEndpoint(endpoint)).toBe(expected);
  });
});

describe('reference merchant agent: checkout handoffs, one order per Idempotency-Key', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const handoff = (checkoutId: string) =>
    JSON.stringify({
      type: 'checkout.handoff',
      checkout_id: checkoutId,
      amount: 34.49,
      currency: 'USD',
      plan: { totals: { total_minor: 3449 } },
    });
  /** As the gateway sends it: the same key and body every time, a fresh signature per attempt. */
  const send = (agent: MerchantAgent, checkoutId: string) => {
    const body = handoff(checkoutId);
    const at = new Date();
    return fetch(agent.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': checkoutId,
        'webhook-id': checkoutId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(checkoutId, at, body),
      },
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  };
  const start = async (acceptOrder?: Parameters<typeof startMerchantAgent>[0]['acceptOrder']) => {
    const a = await startMerchantAgent({
      merchantId: 'm-test',
      merchantToken: 'unused',
      webhookSecret: secret,
      apiKey: 'unused',
      acceptOrder,
    });
    agents.push(a);
    return a;
  };

  it('repeats, concurrent or later, answer the first order; another key is another order', async () => {
    let calls = 0;
    const agent = await start(async (h) => {
      calls++;
      await new Promise((r) => setTimeout(r, 300)); // slow: the concurrent repeat arrives meanwhile
      return { order_id: `shop-${h.checkout_id}` };
    });
    const [a, b] = await Promise.all([send(agent, 'chk_one'), send(agent, 'chk_one')]);
    const c = await send(agent, 'chk_one');
    for (const r of [a, b, c]) expect(r).toMatchObject({ status: 200, body: { order_id: 'shop-chk_one', status: 'accepted' } });
    expect([a, b, c].filter((r) => r.body.duplicate === true)).toHaveLength(2);
    expect(calls).toBe(1);
    expect(agent.orders()).toEqual([
      expect.objectContaining({
        order_id: 'shop-chk_one',
        idempotency_key: 'chk_one',
        checkout_id: 'chk_one',
        amount: 34.49,
        currency: 'USD',
      }),
    ]);

    expect((await send(agent, 'chk_two')).body.order_id).toBe('shop-chk_two');
    expect(agent.orders()).toHaveLength(2);
    expect(calls).toBe(2);
  });

  it('an order that could not be taken answers 500 and is taken by the retry (still once)', async () => {
    let calls = 0;
    const agent = await start(() => {
      calls++;
      if (calls === 1) throw new Error('stock service down');
      return { order_id: 'shop-ok' };
    });
    const first = await send(agent, 'chk_flaky');
    expect(first.status).toBe(500);
    expect(agent.orders()).toHaveLength(0);
    const retry = await send(agent, 'chk_flaky');
    expect(retry).toMatchObject({ status: 200, body: { order_id: 'shop-ok' } });
    expect((await send(agent, 'chk_flaky')).body).toMatchObject({ order_id: 'shop-ok', duplicate: true });
    expect(agent.orders()).toHaveLength(1);
  });

  it('an unsigned handoff is refused (401) and takes no order', async () => {
    const agent = await start();
    const res = await fetch(agent.url, {
      method: 'POST',
      body: handoff('chk_forged'),
      headers: { 'content-type': 'application/json', 'idempotency-key': 'chk_forged' },
    });
    expect(res.status).toBe(401);
    expect(agent.orders()).toHaveLength(0);
  });
});
