import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';

/**
 * "Find me trail running shoes under $120 and buy the best one", finished over MCP with the official
 * clients (TypeScript SDK, and the Python `mcp` SDK from .venv): the real API, Postgres, Temporal and
 * a worker, and a merchant agent on loopback that subscribes to the shopper's tags, answers the
 * runtime's query with a trail runner and takes the order handoff.
 */
const ASK = 'find me trail running shoes under $120 and buy the best one';
const PYTHON = fileURLToPath(new URL('../.venv/bin/python', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./python/mcp_journey.py', import.meta.url));
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

let api: TestApi;
let dev: Onboarded;
let worker: { stop(): Promise<void> };
let shoe: { product_id: number; title: string; price_cents: number };
const servers: LoopbackServer[] = [];
const clients: Client[] = [];
const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

/**
 * A merchant agent: offers the shoe (a little under catalog, free 3-day shipping) and accepts handoffs
 * with an order id, or (`refuse`) refuses them with HTTP 422 and that message.
 */
async function shoeMerchant(opts: { refuse?: string } = {}) {
  const tag = letters();
  const handoffs: Array<{ headers: Record<string, unknown>; body: any }> = [];
  const server = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    if (body.type === 'checkout.handoff') {
      handoffs.push({ headers: req.headers, body });
      if (opts.refuse) return json(res, 422, { error: 'refused', message: opts.refuse });
      return json(res, 200, { order_id: `ord-${tag}-${handoffs.length}`, accepted: true });
    }
    if (body.type === 'runtime.query') {
      const price = Math.floor(shoe.price_cents * 0.95) / 100;
      return json(res, 200, {
        proposals: [
          {
            product_id: shoe.product_id,
            offer_title: `${shoe.title} (merchant ${tag})`,
            price,
            currency: 'USD',
            shipping_commitment: { max_days: 3, free: true },
          },
        ],
      });
    }
    json(res, 200, {}); // Intent.Surge deliveries: acknowledged
  });
  servers.push(server);
  const merchantId = `shoes-${tag}`;
  const reg = await call(api.url, 'POST', '/v1/merchant/register', {
    token: dev.apiKey,
    body: { merchant_id: merchantId, agent_endpoint: `${server.url}/agent`, subscription_tags: [tag] },
  });
  expect(reg.status, reg.text).toBe(200);
  return { tag, merchantId, token: reg.body.registration_token as string, handoffs };
}

async function connect(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
    requestInit: { headers: { authorization: `Bearer ${dev.apiKey}` } },
  });
  const client = new Client({ name: 'journey-test', version: '0.0.1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool's structured answer; a tool error fails the test with its {error, message}. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
  const text = res.content.find((c) => c.type === 'text');
  expect(res.isError, `${name}: ${text?.type === 'text' ? text.text : ''}`).not.toBe(true);
  return res.structuredContent;
}

beforeAll(async () => {
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: signingKey } });
  dev = await onboard(api.url);
  // The worker signs match tokens as the API's issuer (its PUBLIC_BASE_URL), so confirm can verify them.
  worker = await startTestWorker(api.config, api.db);
  shoe = await api.db
    .selectFrom('products as p')
    .innerJoin('categories as c', 'c.category_id', 'p.category_id')
    .select(['p.product_id', 'p.title', 'p.price_cents'])
    .where('c.name', '=', 'Running Shoes')
    .where('p.currency', '=', 'USD')
    .where('p.price_cents', '<', 11_000)
    .where('p.inventory_qty', '>', 20)
    .orderBy('p.product_id')
    .limit(1)
    .executeTakeFirstOrThrow();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await worker?.stop();
  await Promise.all(servers.map((s) => s.close()));
  await api?.close();
});

/** Plan, ask, confirm, read: what every journey below ends with. */
async function planAndBuy(client: Client, matchTokenId: string) {
  const plan = await tool(client, 'plan_checkout', {
    match_token_id: matchTokenId,
    buyer_agent_id: 'ts-shopper',
    ship_to_name: 'Ada Lovelace',
    ship_to_line1: '1 Main St',
    ship_to_city: 'Springfield',
    ship_to_country: 'US',
  });
  expect(plan).toMatchObject({ status: 'awaiting_confirmation', order_id: null });
  expect(plan.next_step).toMatch(/explicit consent/);
  // The user saw the plan and said yes.
  const confirmed = await tool(client, 'confirm_checkout', {
    checkout_id: plan.checkout_id,
    consent_granted: true,
    consent_statement: `Yes, buy ${plan.line_items[0].title} for ${plan.total} ${plan.currency}.`,
    amount: plan.total,
    currency: plan.currency,
  });
  const read = await tool(client, 'get_checkout', { checkout_id: plan.checkout_id });
  return { plan, confirmed, read };
}

describe('MCP journey with the TypeScript SDK: find trail running shoes under $120 and buy the best one', () => {
  it('run_commerce_runtime → plan_checkout → confirm_checkout (consent) → get_checkout: the merchant has the order', async () => {
    const m = await shoeMerchant();
    const client = await connect();
    const rt = await tool(client, 'run_commerce_runtime', { intent: ASK, intent_tags: [m.tag], wait_s: 45 });
    expect(rt).toMatchObject({
      status: 'finished',
      audit_status: 'completed',
      proposal: { merchant_id: m.merchantId, product_id: shoe.product_id },
      match_token: { acceptance_state: 'accepted' },
    });
    expect(rt.match_token.amount).toBeLessThanOrEqual(120);

    const { plan, confirmed, read } = await planAndBuy(client, rt.match_token.match_token_id);
    expect(plan).toMatchObject({
      merchant_id: m.merchantId,
      proposal_id: rt.proposal.proposal_id,
      total: rt.match_token.amount,
      currency: 'USD',
    });
    expect(confirmed).toMatchObject({ checkout_id: plan.checkout_id, status: 'confirmed', order_id: `ord-${m.tag}-1` });
    expect(confirmed.receipt_id).toMatch(/^rcpt_/);
    expect(confirmed.next_step).toContain(`ord-${m.tag}-1`);
    expect(read).toEqual(confirmed);
    // The merchant got one handoff, keyed by the checkout, with the address and the consented total.
    expect(m.handoffs).toHaveLength(1);
    expect(m.handoffs[0]!.headers['idempotency-key']).toBe(plan.checkout_id);
    expect(m.handoffs[0]!.body).toMatchObject({
      checkout_id: plan.checkout_id,
      amount: plan.total,
      shipping: { address: { city: 'Springfield' } },
    });
    // REST reads the same order.
    const rest = await call(api.url, 'GET', `/v1/agentic-checkout/${plan.checkout_id}`, { token: dev.apiKey });
    expect(rest.body.checkout).toMatchObject({ status: 'confirmed', receipt: { merchant_response: { order_id: `ord-${m.tag}-1` } } });

    // Confirming again (a retrying agent) returns the same order; the merchant is not called twice.
    const again = await tool(client, 'confirm_checkout', {
      checkout_id: plan.checkout_id,
      consent_granted: true,
      consent_statement: 'Yes.',
      amount: plan.total,
      currency: 'USD',
    });
    expect(again.order_id).toBe(confirmed.order_id);
    expect(m.handoffs).toHaveLength(1);
  });

  it('create_intent → (merchant proposes) → list_proposals → create_match → accept_match (the best) → plan → confirm → the order', async () => {
    const m = await shoeMerchant();
    const client = await connect();
    const intent = await tool(client, 'create_intent', { raw_query: ASK, intent_tags: [m.tag] });
    expect(intent.budget).toMatchObject({ max: 120 });
    // The merchant answers with two offers; the better one (cheaper, faster) must be the session's best.
    for (const [price, days] of [
      [shoe.price_cents / 100, 9],
      [Math.floor(shoe.price_cents * 0.9) / 100, 2],
    ] as const) {
      const p = await call(api.url, 'POST', '/v1/proposals', {
        token: dev.apiKey,
        headers: { 'x-merchant-token': m.token },
        body: {
          merchant_agent_id: m.merchantId,
          intent_id: intent.intent_id,
          product_id: shoe.product_id,
          offer_title: `${shoe.title}, ${days}-day`,
          price,
          shipping_commitment: { max_days: days, free: true },
        },
      });
      expect(p.status, p.text).toBe(201);
      expect(p.body.warnings).toEqual([]);
    }
    const listed = await tool(client, 'list_proposals', { intent_id: intent.intent_id });
    expect(listed.count).toBe(2);
    const match = await tool(client, 'create_match', { intent_id: intent.intent_id });
    expect(match.ranked).toHaveLength(2);
    expect(match.ranked[0].title).toContain('2-day');
    const accepted = await tool(client, 'accept_match', { match_session_id: match.match_session_id });
    expect(accepted.proposal_id).toBe(match.best_proposal_id);

    const { confirmed, read } = await planAndBuy(client, accepted.match_token_id);
    expect(confirmed).toMatchObject({ status: 'confirmed', proposal_id: match.best_proposal_id, order_id: `ord-${m.tag}-1` });
    expect(read.status).toBe('confirmed');
  });

  it('confirm_checkout without consent is refused and nothing is handed off', async () => {
    const m = await shoeMerchant();
    const client = await connect();
    const rt = await tool(client, 'run_commerce_runtime', { intent: ASK, intent_tags: [m.tag], wait_s: 45 });
    const plan = await tool(client, 'plan_checkout', { match_token_id: rt.match_token.match_token_id, buyer_agent_id: 'ts-shopper' });
    const refused = (await client.callTool({
      name: 'confirm_checkout',
      arguments: {
        checkout_id: plan.checkout_id,
        consent_granted: false,
        consent_statement: 'not asked',
        amount: plan.total,
        currency: plan.currency,
      },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toMatchObject({ error: 'consent_invalid' });
    const missing = (await client.callTool({
      name: 'confirm_checkout',
      arguments: { checkout_id: plan.checkout_id, amount: plan.total, currency: plan.currency },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect((await tool(client, 'get_checkout', { checkout_id: plan.checkout_id })).status).toBe('awaiting_confirmation');
    expect(m.handoffs).toHaveLength(0);
  });
});

describe('MCP journey: a merchant that refuses the order', () => {
  it('"Sorry, this item just sold out.": confirm_checkout and get_checkout say why, that nothing is charged, and the next steps REST answers, in the same words', async () => {
    const sorry = 'Sorry, this item just sold out.';
    const m = await shoeMerchant({ refuse: sorry });
    const client = await connect();
    const rt = await tool(client, 'run_commerce_runtime', { intent: ASK, intent_tags: [m.tag], wait_s: 45 });
    const plan = await tool(client, 'plan_checkout', { match_token_id: rt.match_token.match_token_id, buyer_agent_id: 'ts-shopper' });
    const refused = (await client.callTool(
      {
        name: 'confirm_checkout',
        arguments: {
          checkout_id: plan.checkout_id,
          consent_granted: true,
          consent_statement: `Yes, buy ${plan.line_items[0].title} for ${plan.total} ${plan.currency}.`,
          amount: plan.total,
          currency: plan.currency,
        },
      },
      undefined,
      { timeout: 90_000 },
    )) as CallToolResult;
    expect(refused.isError).toBe(true);
    const error = JSON.parse((refused.content[0] as { text: string }).text);
    expect(error).toMatchObject({
      error: 'merchant_handoff_failed',
      checkout_id: plan.checkout_id,
      merchant_reason: sorry,
      payment_voided: true,
    });
    expect(m.handoffs).toHaveLength(1);

    const read = await tool(client, 'get_checkout', { checkout_id: plan.checkout_id });
    expect(read).toMatchObject({
      status: 'failed',
      failure: { code: 'merchant_handoff_failed', merchant_reason: sorry, payment_voided: true },
    });
    expect(read.next_step).toContain(sorry);
    expect(read.next_step).toContain('nothing is charged');
    // The run's session ranked this merchant's offer only: nothing else to choose, search again.
    expect(read.next_steps.map((s: any) => s.action)).toEqual(['search_again']);
    expect(read.next_steps[0].how).toContain('recommend');
    // confirm_checkout's error and get_checkout say the same steps.
    const brief = (steps: any[]) => steps.map((s) => ({ action: s.action, description: s.description, how: s.how }));
    expect(brief(error.next_steps)).toEqual(read.next_steps);
    // REST says them in the same words, naming its own calls.
    const rest = await call(api.url, 'GET', `/v1/agentic-checkout/${plan.checkout_id}`, { token: dev.apiKey });
    expect(rest.body.next_steps.map((s: any) => [s.action, s.description])).toEqual(
      read.next_steps.map((s: any) => [s.action, s.description]),
    );
    expect(rest.body.next_steps[0].how).toContain('/v1/recommend');
  });
});

describe('MCP journey with the Python SDK (mcp from PyPI)', () => {
  const run = (...args: string[]) =>
    promisify(execFile)(PYTHON, [SCRIPT, api.url, ...args], { timeout: 120_000, maxBuffer: 4 * 1024 * 1024 });

  it('the .venv with the official Python client is there (CI builds it from test/python/requirements.txt)', () => {
    expect(existsSync(PYTHON), `${PYTHON} is missing: build it with .ci/run or pip install -r test/python/requirements.txt`).toBe(true);
  });

  it("runs the journey to the merchant's order", async () => {
    const m = await shoeMerchant();
    const { stdout } = await run(dev.apiKey, m.tag);
    const out = JSON.parse(stdout);
    expect(out.tools).toEqual(expect.arrayContaining(['run_commerce_runtime', 'plan_checkout', 'confirm_checkout', 'get_checkout']));
    expect(out.prompt).toContain(ASK);
    expect(out.runtime).toMatchObject({ status: 'finished', proposal: { merchant_id: m.merchantId } });
    expect(out.plan).toMatchObject({ status: 'awaiting_confirmation', merchant_id: m.merchantId });
    expect(out.confirmed).toMatchObject({ status: 'confirmed', order_id: `ord-${m.tag}-1` });
    expect(out.checkout).toEqual(out.confirmed);
    expect(m.handoffs).toHaveLength(1);
    expect(m.handoffs[0]!.body.shipping.address).toMatchObject({ name: 'Ada Lovelace', country: 'US' });
  });

  it('a bad key surfaces as "invalid API key"', async () => {
    const { stdout } = await run('cig_sk_not_a_real_key', '--bad-key');
    const out = JSON.parse(stdout);
    expect(out.error).toContain('invalid API key');
  });
});
