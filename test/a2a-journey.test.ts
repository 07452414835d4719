import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { closedPort, json, readBody, startLoopback, type LoopbackServer } from './helpers/loopback';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';

/**
 * The shopper's whole journey over A2A with the official clients and their defaults: "Find me trail
 * running shoes under $120 and buy the best one" → the commerce runtime asks a real merchant agent
 * (loopback HTTP) → the task waits for consent (input-required) → the reply confirms → the merchant
 * takes the handoff → the task completes with the order. Once with `@a2a-js/sdk`'s
 * `new ClientFactory().createFromUrl(base)`, once with the Python `a2a-sdk` ClientFactory.
 */
const REQUEST = 'Find me trail running shoes under $120 and buy the best one';
const PYTHON = fileURLToPath(new URL('../.venv/bin/python', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./python/a2a_journey.py', import.meta.url));
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

let api: TestApi;
let dev: Onboarded;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let merchant: LoopbackServer;
let merchantId: string;
let shoe: { product_id: number; title: string; price_cents: number };
const handoffs: any[] = [];

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

beforeAll(async () => {
  // The agent card names PUBLIC_BASE_URL, which defaults to http://127.0.0.1:$PORT: listen there, so
  // the clients follow the card exactly as they would in production.
  const port = await closedPort();
  api = await startTestApi({ port, env: { PORT: String(port), ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: signingKey } });
  dev = await onboard(api.url);
  worker = await startTestWorker(api.config, api.db);
  shoe = await api.db
    .selectFrom('products')
    .select(['product_id', 'title', 'price_cents'])
    .where('category_l2', '=', 'Running Shoes')
    .where('price_cents', '<', 12_000)
    .where('currency', '=', 'USD')
    .where('inventory_qty', '>', 20)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirstOrThrow();

  // A merchant agent subscribed to running shoes: it offers the shoe at catalog price with free
  // shipping, and accepts every checkout handoff with an order id.
  merchant = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    if (body.type === 'checkout.handoff') {
      handoffs.push(body);
      return json(res, 200, { order_id: `ord-${handoffs.length}`, accepted: true });
    }
    json(res, 200, {
      proposals: [
        {
          product_id: shoe.product_id,
          offer_title: shoe.title,
          price: shoe.price_cents / 100,
          currency: 'USD',
          shipping_commitment: { free: true, max_days: 3 },
        },
      ],
    });
  });
  merchantId = `trail-shop-${letters()}`;
  const reg = await call(api.url, 'POST', '/v1/merchant/register', {
    token: dev.apiKey,
    body: { merchant_id: merchantId, agent_endpoint: merchant.url, subscription_tags: ['running', 'shoes', 'trail'] },
  });
  expect(reg.status, reg.text).toBe(200);
});

afterAll(async () => {
  await worker?.stop();
  await merchant?.close();
  await api?.close();
});

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });

function userMessage(parts: Part[], task?: Task): Message {
  return {
    messageId: `msg-${letters()}`,
    contextId: task?.contextId ?? '',
    taskId: task?.id ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const texts = (m: Message | undefined) => (m?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
const dataOf = (parts: Part[] | undefined) => (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as any] : []));
/** The consent the checkout workflow stored with the confirm. */
const storedConsent = async (checkoutId: string) =>
  (await api.db.selectFrom('agentic_checkouts').select('consent').where('checkout_id', '=', checkoutId).executeTakeFirstOrThrow()).consent;
const artifact = (task: Task, name: string) => dataOf(task.artifacts.find((a) => a.name === name)?.parts)[0];

describe('A2A journey: find and buy, official clients with their defaults', () => {
  it('@a2a-js/sdk: new ClientFactory().createFromUrl(base) → input-required → "yes, buy it" → completed with the order', async () => {
    const client = await new ClientFactory().createFromUrl(api.url);
    // The card's single interface, negotiated without legacyCompat: JSON-RPC, protocol 1.0, at /a2a.
    expect(client.protocolVersion).toBe('1.0');
    expect((await client.getAgentCard()).supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${api.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
    ]);

    const auth = { serviceParameters: { Authorization: `Bearer ${dev.apiKey}` } };
    const send = (message: Message) => client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, auth);

    const asked = (await send(userMessage([textPart(REQUEST)]))) as Task;
    expect(asked.status?.state, JSON.stringify(asked.status)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const runtime = artifact(asked, 'commerce_runtime').runtime;
    // Read like recommend reads it: keywords as tags, "under $120" as the budget ceiling.
    expect(runtime.intent).toMatchObject({
      raw_query: REQUEST,
      intent_tags: expect.arrayContaining(['trail', 'running', 'shoes']),
      budget_range: { max: 120 },
    });
    expect(runtime.proposal).toMatchObject({ merchant_agent_id: merchantId, product_id: shoe.product_id });
    const plan = artifact(asked, 'agentic_checkout').checkout;
    expect(plan).toMatchObject({
      status: 'awaiting_confirmation',
      merchant_id: merchantId,
      amount: shoe.price_cents / 100,
      currency: 'USD',
    });
    expect(texts(asked.status?.message).join(' ')).toMatch(/yes, buy it/);
    expect(dataOf(asked.status?.message?.parts)[0].consent_request).toMatchObject({ checkout_id: plan.checkout_id, amount: plan.amount });
    expect(handoffs).toHaveLength(0);

    // Words that are not a yes keep the task waiting, and nothing is bought.
    const unsure = (await send(userMessage([textPart('hmm, let me think about it')], asked))) as Task;
    expect(unsure.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(texts(unsure.status?.message)[0]).toMatch(/^That is not an explicit consent/);
    expect(handoffs).toHaveLength(0);

    const done = (await send(userMessage([textPart('Yes, buy it.')], asked))) as Task;
    expect(done.id).toBe(asked.id);
    expect(done.contextId).toBe(asked.contextId);
    expect(done.status?.state, JSON.stringify(done.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    const bought = artifact(done, 'agentic_checkout').checkout;
    expect(bought).toMatchObject({
      checkout_id: plan.checkout_id,
      status: 'confirmed',
      receipt: { merchant_response: { order_id: 'ord-1' } },
    });
    // The buyer's words are the recorded consent statement.
    expect(await storedConsent(plan.checkout_id)).toMatchObject({ granted: true, statement: expect.stringContaining('Yes, buy it.') });
    expect(texts(done.status?.message)[0]).toMatch(/^Bought .* order ord-1/);
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]).toMatchObject({ checkout_id: plan.checkout_id, proposal_id: runtime.proposal.proposal_id });

    // GetTask rebuilds the same finished task; a further message to it is refused.
    const again = await client.getTask({ tenant: '', id: done.id, historyLength: undefined }, auth);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(send(userMessage([textPart('yes, buy it again')], asked))).rejects.toMatchObject({ envelopeCode: -32004 });
    expect(handoffs).toHaveLength(1);
    // Over REST the same checkout reads as confirmed.
    expect((await call(api.url, 'GET', `/v1/agentic-checkout/${plan.checkout_id}`, { token: dev.apiKey })).body.checkout.status).toBe(
      'confirmed',
    );
  });

  it('"Find me trail running shoes under $120" (find only): input-required naming the product, price and merchant and how to buy; a compact event; "buy it" plans, "yes" buys', async () => {
    const FIND = 'Find me trail running shoes under $120';
    const messageId = `msg-${letters()}`;
    // The wire, as any client receives it (1.0 JSON-RPC): one event, compact by default.
    const raw = await call(api.url, 'POST', '/a2a', {
      token: dev.apiKey,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId, role: 'ROLE_USER', parts: [{ text: FIND }] } },
      },
    });
    expect(raw.status, raw.text).toBe(200);
    const found = raw.body.result.task;
    expect(found.status.state, JSON.stringify(found.status)).toBe('TASK_STATE_INPUT_REQUIRED');
    const said = found.status.message.parts[0].text as string;
    const price = (shoe.price_cents / 100).toFixed(2);
    expect(said).toBe(
      `Found: ${shoe.title} from ${merchantId} at ${price} USD with free shipping. To buy it, reply on this task with "buy it": the checkout is planned and its total (with shipping and any tax) shown to you for your explicit consent; nothing is charged before you confirm. The offer holds until ${found.status.message.parts[1].data.expires_at}.`,
    );
    expect(found.status.message.parts[1].data).toMatchObject({
      found: { title: shoe.title, merchant_id: merchantId, price: shoe.price_cents / 100, currency: 'USD', product_id: shoe.product_id },
      reply_with: { text: 'buy it' },
    });
    // Only the runtime, compact: nothing is planned for a request that only finds.
    expect(found.artifacts.map((a: any) => a.name)).toEqual(['commerce_runtime']);
    expect(found.artifacts[0].parts[0].data.runtime.agent_steps).toBeUndefined();
    // A compact event: under 4 KB on the wire (the whole runtime document is several times that).
    const FOUR_KB = 4096;
    expect(Buffer.byteLength(raw.text)).toBeLessThan(FOUR_KB);
    const full = await call(api.url, 'POST', '/a2a', {
      token: dev.apiKey,
      body: { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: found.id, metadata: { detail: 'full' } } },
    });
    expect(full.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(full.body.result.artifacts[0].parts[0].data.runtime.agent_steps.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(full.text)).toBeGreaterThan(Buffer.byteLength(raw.text));
    expect(handoffs.filter((h) => h.proposal_id === found.artifacts[0].parts[0].data.runtime.proposal.proposal_id)).toHaveLength(0);

    // "buy it" on the task: the checkout is planned and its total put to the buyer; still nothing bought.
    const client = await new ClientFactory().createFromUrl(api.url);
    const auth = { serviceParameters: { Authorization: `Bearer ${dev.apiKey}` } };
    const send = (message: Message) => client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, auth);
    const task = await client.getTask({ tenant: '', id: found.id, historyLength: undefined }, auth);
    const unsure = (await send(userMessage([textPart('hmm')], task))) as Task;
    expect(unsure.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(texts(unsure.status?.message)[0]).toMatch(/^That is not an answer to buy it\. Found: /);
    const asked = (await send(userMessage([textPart('buy it')], task))) as Task;
    expect(asked.status?.state, JSON.stringify(asked.status)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const plan = artifact(asked, 'agentic_checkout').checkout;
    expect(plan).toMatchObject({ status: 'awaiting_confirmation', merchant_id: merchantId, amount: shoe.price_cents / 100 });
    expect(dataOf(asked.status?.message?.parts)[0].consent_request).toMatchObject({ checkout_id: plan.checkout_id });
    expect(handoffs.filter((h) => h.checkout_id === plan.checkout_id)).toHaveLength(0);
    // GetTask reads the same waiting task back (the plan is this run's token's).
    expect((await client.getTask({ tenant: '', id: found.id, historyLength: undefined }, auth)).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const done = (await send(userMessage([textPart('yes, buy it')], task))) as Task;
    expect(done.status?.state, JSON.stringify(done.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(done.status?.message)[0]).toMatch(/^Bought /);
    expect(handoffs.filter((h) => h.checkout_id === plan.checkout_id)).toHaveLength(1);
  });

  it("streaming: the card says false, so the JS client's sendMessageStream (defaults) yields the task once over SendMessage", async () => {
    const client = await new ClientFactory().createFromUrl(api.url);
    expect((await client.getAgentCard()).capabilities?.streaming).toBe(false);
    const auth = { serviceParameters: { Authorization: `Bearer ${dev.apiKey}` } };
    const handedOff = handoffs.length;
    const events = [];
    for await (const e of client.sendMessageStream(
      { tenant: '', message: userMessage([textPart(REQUEST)]), configuration: undefined, metadata: undefined },
      auth,
    )) {
      events.push(e);
      if (events.length > 5) break;
    }
    expect(events).toHaveLength(1);
    const payload = events[0]!.payload;
    expect(payload?.$case).toBe('task');
    const task = payload?.$case === 'task' ? payload.value : undefined;
    expect(task?.status?.state, JSON.stringify(task?.status)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // It asks for consent; nothing is bought.
    expect(handoffs).toHaveLength(handedOff);
  });

  it('a merchant that refuses the handoff: the consented task ends failed with the reason, no order', async () => {
    // Its own tag keeps the trail-shoe merchant out of this run.
    const tag = `zq${letters()}`;
    const refusals: any[] = [];
    const refusing = await startLoopback(async (req, res) => {
      const body = JSON.parse((await readBody(req)) || '{}');
      if (body.type === 'checkout.handoff') {
        refusals.push(body);
        return json(res, 422, { error: 'sold_out', message: 'Sorry, this item just sold out.' });
      }
      json(res, 200, {
        proposals: [
          {
            product_id: shoe.product_id,
            offer_title: shoe.title,
            price: shoe.price_cents / 100,
            currency: 'USD',
            shipping_commitment: { free: true },
          },
        ],
      });
    });
    try {
      const id = `refusing-shop-${letters()}`;
      const reg = await call(api.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id: id, agent_endpoint: refusing.url, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);
      const client = await new ClientFactory().createFromUrl(api.url);
      const auth = { serviceParameters: { Authorization: `Bearer ${dev.apiKey}` } };
      const send = (message: Message) => client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, auth);

      const asked = (await send(userMessage([textPart(`please buy the best ${tag} you can find`)]))) as Task;
      expect(asked.status?.state, JSON.stringify(asked.status)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(artifact(asked, 'commerce_runtime').runtime.proposal.merchant_agent_id).toBe(id);
      // "No" buys nothing: still waiting, nothing handed off.
      const declined = (await send(userMessage([textPart('no, cancel that')], asked))) as Task;
      expect(declined.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(texts(declined.status?.message)[0]).toMatch(/^Not bought\./);
      expect(refusals).toHaveLength(0);

      const failed = (await send(userMessage([textPart('yes, buy it')], asked))) as Task;
      expect(failed.status?.state, JSON.stringify(failed.status)).toBe(TaskState.TASK_STATE_FAILED);
      // Why (the merchant's own words), that nothing is charged, and what can be done: its one offer
      // was refused and the session ranked nothing else, so a new search.
      const why = texts(failed.status?.message)[0]!;
      expect(why).toMatch(/^Not bought \(merchant_handoff_failed: /);
      expect(why).toContain(`${id} said: "Sorry, this item just sold out."`);
      expect(why).toContain('The payment authorization was voided: nothing is charged.');
      expect(why).toContain('search again');
      expect(dataOf(failed.status?.message?.parts)[0]).toMatchObject({
        error: 'merchant_handoff_failed',
        merchant_reason: 'Sorry, this item just sold out.',
        payment_voided: true,
        next_steps: [{ action: 'search_again', how: expect.stringContaining('send a new message') }],
      });
      expect(artifact(failed, 'agentic_checkout').checkout).toMatchObject({ status: 'failed', receipt: null });
      expect(refusals).toHaveLength(1);
      expect((await client.getTask({ tenant: '', id: asked.id, historyLength: undefined }, auth)).status?.state).toBe(
        TaskState.TASK_STATE_FAILED,
      );
    } finally {
      await refusing.close();
    }
  });

  it('Python a2a-sdk: ClientFactory.create_from_url → input-required → data part with the consent fields → completed with the order', async () => {
    // The venv is part of the toolchain (.ci/run builds it from test/python/requirements.txt): missing is a failure.
    expect(existsSync(PYTHON), `${PYTHON} is missing; build it from test/python/requirements.txt`).toBe(true);
    const before = handoffs.length;
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, api.url, dev.apiKey], { timeout: 120_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out.interfaces).toEqual([{ url: `${api.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(out.asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(out.done).toMatchObject({ id: out.asked.id, contextId: out.asked.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    const checkout = out.done.artifacts.find((a: any) => a.name === 'agentic_checkout').parts[0].data.checkout;
    expect(checkout).toMatchObject({ status: 'confirmed', merchant_id: merchantId });
    expect(await storedConsent(checkout.checkout_id)).toMatchObject({
      granted: true,
      statement: expect.stringMatching(/^I agree to buy it for/),
    });
    expect(checkout.receipt.merchant_response.order_id).toBe(`ord-${before + 1}`);
    expect(out.again.status.state).toBe('TASK_STATE_COMPLETED');
    expect(handoffs).toHaveLength(before + 1);
  });
});
