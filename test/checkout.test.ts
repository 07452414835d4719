import { sql } from 'kysely';
import { generateKeyPairSync } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowIds } from '../src/temporal/names';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { readBody, startLoopback } from './helpers/loopback';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';
import { redirectRecId } from '../src/checkout/seller';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { startTimeSkippingTemporal } from './helpers/time-skipping';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Db } from '../src/db/connect';
import type { Database } from '../src/db/schema';
import { findCheckout, handOffToMerchant, planCheckout } from '../src/checkout/checkouts';
import { AUTHORIZE_WAIT_MS } from '../src/checkout/confirm';
import { replayAndRecord as recordHistory } from './helpers/histories';

/**
 * Agentic checkout end to end (docs/CHECKOUT.md): the real API starts `agenticCheckout` on the
 * run's Temporal dev server, a real worker runs it, the merchant agent is an HTTP server on loopback.
 * Three stacks: defaults; MATCH_TOKEN_TTL_S=2 (token expiry, judged by the wall clock, so it is waited
 * out); and one on a time-skipping Temporal server of its own with the default CHECKOUT_PLAN_TTL_S, so
 * the plan's 15-minute workflow timer passes without waiting.
 */

interface Stack {
  api: TestApi;
  stop(): Promise<void>;
}

let main: Stack;
let shortToken: Stack;
let planClock: Stack;
let timeSkipping: TestWorkflowEnvironment | undefined;
let dev: Onboarded;
let productId: number;
let priceCents: number;
const servers: Array<{ close(): Promise<void> }> = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

async function stack(env: Record<string, string> = {}): Promise<Stack> {
  const api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true', DISPATCH_TIMEOUT_MS: '2000', ...env } });
  const worker = await startTestWorker(api.config, api.db);
  return {
    api,
    stop: async () => {
      await worker.stop();
      await api.close();
    },
  };
}

/**
 * A merchant agent that records every handoff and answers `status` (200: with an order id; else
 * `refusal` as its body); `heal()` makes it answer 200 from then on.
 */
async function merchantAgent(status = 200, refusal: unknown = { error: 'not today' }) {
  const bodies: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  let answer = status;
  const server = await startLoopback(async (req, res) => {
    const body = await readBody(req);
    bodies.push({ headers: req.headers, body: body ? JSON.parse(body) : null });
    res.writeHead(answer, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer === 200 ? { order_id: `ord-${bodies.length}`, accepted: true } : refusal));
  });
  servers.push(server);
  return { url: `${server.url}/agent`, bodies, heal: () => (answer = 200) };
}

const post = (s: Stack, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(s.api.url, 'POST', path, { token: dev.apiKey, body, headers });
const get = (s: Stack, path: string) => call(s.api.url, 'GET', path, { token: dev.apiKey });

/**
 * merchant → intent → proposal → match session → accept: a match token with its signed_token.
 * `others`: that many more proposals of the merchant ranked in the same session (not accepted).
 */
async function chain(
  s: Stack,
  opts: { shipping?: Record<string, unknown>; merchantStatus?: number; refusal?: unknown; others?: number } = {},
) {
  const agent = await merchantAgent(opts.merchantStatus, opts.refusal);
  const merchant_id = uid('mer');
  const reg = await post(s, '/v1/merchant/register', { merchant_id, agent_endpoint: agent.url });
  expect(reg.status, reg.text).toBe(200);
  const intent = await post(s, '/v1/intents', { raw_query: 'a sturdy water bottle for hiking' });
  expect(intent.status, intent.text).toBe(201);
  const intentId = intent.body.intent.intent_id as string;
  const proposal = await post(
    s,
    '/v1/proposals',
    {
      merchant_agent_id: merchant_id,
      intent_id: intentId,
      product_id: productId,
      offer_title: 'Trail bottle',
      price: priceCents / 100,
      shipping_commitment: opts.shipping ?? { max_days: 3, cost: 4.5 },
    },
    { 'x-merchant-token': reg.body.registration_token },
  );
  expect(proposal.status, proposal.text).toBe(201);
  const proposalId = proposal.body.proposal.proposal_id as string;
  const otherProposalIds: string[] = [];
  for (let i = 0; i < (opts.others ?? 0); i++) {
    const other = await post(
      s,
      '/v1/proposals',
      {
        merchant_agent_id: merchant_id,
        intent_id: intentId,
        product_id: productId,
        offer_title: `Trail bottle, colour ${i + 2}`,
        price: priceCents / 100,
        shipping_commitment: { max_days: 5, cost: 4.5 },
      },
      { 'x-merchant-token': reg.body.registration_token },
    );
    expect(other.status, other.text).toBe(201);
    otherProposalIds.push(other.body.proposal.proposal_id as string);
  }
  const session = await post(s, '/v1/match', { intent_id: intentId, proposal_ids: [proposalId, ...otherProposalIds] });
  expect(session.status, session.text).toBe(201);
  const accept = await post(s, `/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  expect(accept.status, accept.text).toBe(200);
  const token = accept.body.match_token;
  return {
    agent,
    merchantId: merchant_id,
    intentId,
    proposalId,
    otherProposalIds,
    matchSessionId: session.body.match_session.match_session_id as string,
    tokenId: token.match_token_id as string,
    jws: token.signed_token as string,
  };
}
type Chain = Awaited<ReturnType<typeof chain>>;

const createBody = (c: Chain, extra: Record<string, unknown> = {}) => ({
  buyer_agent_id: 'buyer-agent-1',
  intent_id: c.intentId,
  proposal_id: c.proposalId,
  match_token_id: c.tokenId,
  amount: (priceCents + 450) / 100,
  currency: 'USD',
  shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
  ...extra,
});

const confirmBody = (c: Chain, extra: Record<string, unknown> = {}) => ({
  consent: { granted: true, statement: 'I agree to buy the Trail bottle for the plan total.', granted_at: new Date().toISOString() },
  match_token: c.jws,
  proposal_id: c.proposalId,
  amount: (priceCents + 450) / 100,
  currency: 'usd',
  ...extra,
});

async function createCheckout(s: Stack, c: Chain) {
  const res = await post(s, '/v1/agentic-checkout', createBody(c));
  expect(res.status, res.text).toBe(201);
  return res.body.checkout;
}

/** The audit trail of a checkout the merchant took at the first attempt, step by step. */
const CONFIRMED_TRAIL = [
  'plan_created',
  'consent_recorded',
  'payment_authorized',
  'merchant_handoff_attempt_1',
  'proposal_settled',
  'match_token_consumed',
  'confirmed',
];

/** The events of the checkout's run. */
const historyEvents = async (s: Stack, checkoutId: string) =>
  (await s.api.temporal!.client.workflow.getHandle(workflowIds.checkout(checkoutId)).fetchHistory()).events ?? [];

/** The local activities the checkout's run recorded, in order (from its history's markers). */
const localActivities = async (s: Stack, checkoutId: string): Promise<string[]> =>
  (await historyEvents(s, checkoutId))
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!.data!.payloads![0]!.data!).toString()).activity_type);

/**
 * A trigger that refuses, once, the first update of checkout `id` for which `when` holds (old/new rows):
 * Postgres failing one write of a step. A sequence counts the tries, because it is not rolled back
 * with the refused statement. `tries()` reads the count; `drop()` removes them all.
 */
async function refuseOnce(db: Stack['api']['db'], id: string, name: string, when: string) {
  const seq = `${name}_refusal_${id.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
  const trigger = `refuse_${seq}`;
  await sql
    .raw(
      `create sequence ${seq};
       create function ${trigger}() returns trigger language plpgsql as $$
       begin
         if new.checkout_id = '${id}' and ${when} then
           if nextval('${seq}') = 1 then raise exception '${name} refused once (test)'; end if;
         end if;
         return new;
       end $$;
       create trigger ${trigger} before update on agentic_checkouts for each row execute function ${trigger}();`,
    )
    .execute(db);
  return {
    tries: async () =>
      Number((await sql<{ last_value: string }>`select last_value from ${sql.table(seq)}`.execute(db)).rows[0]!.last_value),
    drop: () => sql.raw(`drop trigger ${trigger} on agentic_checkouts; drop function ${trigger}(); drop sequence ${seq};`).execute(db),
  };
}

/** Names of the Updates the workflow accepted (rejected ones leave no trace in history). */
const acceptedUpdates = async (s: Stack, checkoutId: string) =>
  (await historyEvents(s, checkoutId))
    .filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
    .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest?.input?.name);

beforeAll(async () => {
  timeSkipping = await startTimeSkippingTemporal();
  const planServer = timeSkipping.address;
  [main, shortToken, planClock] = await Promise.all([stack(), stack({ MATCH_TOKEN_TTL_S: '2' }), stack({ TEMPORAL_ADDRESS: planServer })]);
  dev = await onboard(main.api.url);
  const p = await main.api.db
    .selectFrom('products')
    .select(['product_id', 'price_cents'])
    .where('inventory_qty', '>', 20)
    .orderBy('product_id')
    .limit(1)
    .executeTakeFirstOrThrow();
  productId = p.product_id;
  priceCents = p.price_cents;
});

afterAll(async () => {
  await Promise.all([main, shortToken, planClock].filter(Boolean).map((s) => s.stop()));
  await timeSkipping?.teardown();
  await Promise.all(servers.map((s) => s.close()));
});

describe('agentic checkout: plan (POST /v1/agentic-checkout)', () => {
  it('201 with the plan in minor units and its expiry; GET reads it back; the workflow is findable by CheckoutId', async () => {
    const c = await chain(main);
    const before = Date.now();
    const checkout = await createCheckout(main, c);
    expect(checkout).toMatchObject({
      status: 'awaiting_confirmation',
      proposal_id: c.proposalId,
      match_token_id: c.tokenId,
      merchant_id: c.merchantId,
      currency: 'USD',
      receipt: null,
    });
    expect(checkout.checkout_id).toMatch(/^chk_/);
    expect(checkout.plan).toMatchObject({
      line_items: [{ product_id: productId, quantity: 1, unit_amount_minor: priceCents, amount_minor: priceCents }],
      shipping: { amount_minor: 450 },
      totals: { subtotal_minor: priceCents, shipping_minor: 450, total_minor: priceCents + 450 },
      amount: (priceCents + 450) / 100,
      currency: 'USD',
    });
    // CHECKOUT_PLAN_TTL_S (15 min) from the moment the plan was made, which was during the call.
    const after = Date.now();
    expect(Date.parse(checkout.expires_at)).toBeGreaterThanOrEqual(before + 900_000);
    expect(Date.parse(checkout.expires_at)).toBeLessThanOrEqual(after + 900_000);
    expect(checkout.plan.expires_at).toBe(checkout.expires_at);
    expect(checkout.audit_trail.map((a: any) => a.step)).toEqual(['plan_created']);

    const fetched = await get(main, `/v1/agentic-checkout/${checkout.checkout_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.checkout).toEqual(checkout);

    const d = await main.api.temporal!.client.workflow.getHandle(workflowIds.checkout(checkout.checkout_id)).describe();
    expect(d.status.name).toBe('RUNNING');
    const found = main.api.temporal!.client.workflow.list({ query: `CheckoutId = '${checkout.checkout_id}'` });
    const ids: string[] = [];
    for await (const w of found) ids.push(w.workflowId);
    // Visibility is eventually consistent; the attribute is set at start, so it is there or soon.
    if (ids.length) expect(ids).toEqual([`checkout-${checkout.checkout_id}`]);
  });

  it('the plan costs two statements (one read of checkout, intent, proposal, token and seller; the insert), the handoff one before the merchant is called and one after', async () => {
    const c = await chain(main);
    const pool = new pg.Pool({ connectionString: main.api.config.DATABASE_URL!, max: 2 });
    const statements: string[] = [];
    const counting: Db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (e) => void (e.level === 'query' && statements.push(e.query.sql)),
    });
    try {
      const checkoutId = uid('chk');
      const req = { checkoutId, workflowId: `checkout-${checkoutId}`, ...createBody(c) };
      const planned = await planCheckout(counting, req, 900, 'http://gateway.test');
      expect(planned.ok).toBe(true);
      expect(statements).toHaveLength(2);
      statements.length = 0;
      const handoff = await handOffToMerchant(
        { db: counting, keyEncryptionKey: undefined, allowPrivateEndpoints: true, timeoutMs: 2000 },
        checkoutId,
      );
      expect(handoff.status_code).toBe(200);
      expect(statements).toHaveLength(2);
      // A second attempt (a worker died after the first reached the merchant) is numbered after it.
      await handOffToMerchant({ db: counting, keyEncryptionKey: undefined, allowPrivateEndpoints: true, timeoutMs: 2000 }, checkoutId);
      const stored = await findCheckout(counting, checkoutId);
      expect(
        stored!.audit_trail.filter((a) => a.step.startsWith('merchant_handoff_attempt_')).map((a) => `${a.step}:${a.outcome}`),
      ).toEqual(['merchant_handoff_attempt_1:handed_off', 'merchant_handoff_attempt_2:handed_off']);
    } finally {
      await counting.destroy();
    }
  });

  it('409 naming the failed check, 404 for unknown records, never 500', async () => {
    const c = await chain(main);
    const other = await chain(main);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ proposal_id: 'prop_nothing' }, 404, 'proposal_not_found'],
      [{ match_token_id: 'mt_nothing' }, 404, 'match_token_not_found'],
      [{ intent_id: other.intentId }, 409, 'proposal_intent_mismatch'],
      [{ match_token_id: other.tokenId }, 409, 'match_token_mismatch'],
      [{ amount: priceCents / 100 }, 409, 'amount_mismatch'],
      [{ currency: 'EUR' }, 409, 'currency_mismatch'],
    ];
    for (const [extra, status, code] of cases) {
      const res = await post(main, '/v1/agentic-checkout', createBody(c, extra));
      expect(res.status, `${JSON.stringify(extra)} ${res.text}`).toBe(status);
      expect(res.body.error).toBe(code);
    }
    // Nothing was stored for the rejected requests; a valid one still works, a second on the same token does not.
    await createCheckout(main, c);
    const again = await post(main, '/v1/agentic-checkout', createBody(c));
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('match_token_in_checkout');
  });

  it("another developer can neither plan on a token nor read or confirm a checkout, and messages never name another developer's checkout", async () => {
    const c = await chain(main);
    const other = await onboard(main.api.url);
    const asOther = (path: string, body?: unknown) =>
      call(main.api.url, body === undefined ? 'GET' : 'POST', path, { token: other.apiKey, body });
    // Planning on A's token first is refused as for unknown ids, so A's own plan still works.
    const stolen = await asOther('/v1/agentic-checkout', createBody(c));
    expect([stolen.status, stolen.body.error]).toEqual([404, 'intent_not_found']);
    const mine = await createCheckout(main, c);
    expect((await asOther(`/v1/agentic-checkout/${mine.checkout_id}`)).status).toBe(404);
    const confirm = await asOther(`/v1/agentic-checkout/${mine.checkout_id}/confirm`, {
      consent: { granted: true, statement: 'yes' },
      match_token: c.jws,
      proposal_id: c.proposalId,
      amount: (priceCents + 450) / 100,
      currency: 'USD',
    });
    expect([confirm.status, confirm.body.error]).toEqual([404, 'checkout_not_found']);
    // The owner's second plan names the owner's live checkout…
    const again = await post(main, '/v1/agentic-checkout', createBody(c));
    expect([again.status, again.body.error]).toEqual([409, 'match_token_in_checkout']);
    expect(again.body.message).toContain(mine.checkout_id);
    // …but a live checkout recorded for another developer (as before ownership) is never named.
    await main.api.db
      .updateTable('agentic_checkouts')
      .set({ developer_id: other.developerId })
      .where('checkout_id', '=', mine.checkout_id)
      .execute();
    const hidden = await post(main, '/v1/agentic-checkout', createBody(c));
    expect([hidden.status, hidden.body.error]).toEqual([409, 'match_token_in_checkout']);
    expect(hidden.body.message).not.toContain(mine.checkout_id);
  });

  it('400 invalid_payload naming the field; 401 without a key', async () => {
    const c = await chain(main);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: 'ten' }, 'amount'],
      [{ amount: -1 }, 'amount'],
      [{ currency: 'dollars' }, 'currency'],
      [{ buyer_agent_id: undefined }, 'buyer_agent_id'],
      [{ shipping_address: 'home' }, 'shipping_address'],
    ];
    for (const [extra, field] of cases) {
      const res = await post(main, '/v1/agentic-checkout', createBody(c, extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error).toBe('invalid_payload');
      expect(res.body.fields).toContain(field);
    }
    const anon = await call(main.api.url, 'POST', '/v1/agentic-checkout', { body: createBody(c) });
    expect(anon.status).toBe(401);
    expect(anon.body.error).toBe('invalid_api_key');
    expect((await call(main.api.url, 'GET', '/v1/agentic-checkout/chk_x')).status).toBe(401);
  });

  it('404 checkout_not_found for GET and confirm of an unknown checkout', async () => {
    const c = await chain(main);
    const res = await get(main, '/v1/agentic-checkout/chk_nothing');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('checkout_not_found');
    const conf = await post(main, '/v1/agentic-checkout/chk_nothing/confirm', confirmBody(c));
    expect(conf.status).toBe(404);
    expect(conf.body.error).toBe('checkout_not_found');
  });
});

describe('agentic checkout: confirm (Update with validator)', () => {
  it('mismatches, bad consent and forged tokens are 409 with nothing changed and nothing in history; then the happy path; confirm twice = same result', async () => {
    const c = await chain(main);
    const checkout = await createCheckout(main, c);
    const id = checkout.checkout_id as string;
    const path = `/v1/agentic-checkout/${id}/confirm`;

    const otherKey = generateKeyPairSync('ed25519').privateKey;
    const claims = decodeJwt(c.jws);
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', typ: 'match-token+jwt' }).sign(otherKey);
    const other = await chain(main);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ consent: { granted: false, statement: 'no' } }, 'consent_invalid'],
      [{ consent: { granted: true } }, 'consent_invalid'],
      [{ proposal_id: other.proposalId }, 'proposal_mismatch'],
      [{ amount: priceCents / 100 }, 'amount_mismatch'],
      [{ currency: 'EUR' }, 'currency_mismatch'],
      [{ match_token: forged }, 'match_token_invalid'],
      [{ match_token: 'not.a.jws' }, 'match_token_invalid'],
      [{ match_token: other.jws }, 'match_token_mismatch'],
    ];
    for (const [extra, code] of cases) {
      const res = await post(main, path, confirmBody(c, extra));
      expect(res.status, `${JSON.stringify(extra)} ${res.text}`).toBe(409);
      expect(res.body.error).toBe(code);
    }
    const unchanged = await get(main, `/v1/agentic-checkout/${id}`);
    expect(unchanged.body.checkout).toEqual(checkout);
    expect(await acceptedUpdates(main, id)).toEqual(['getPlan']);
    expect(c.agent.bodies).toHaveLength(0);
    expect((await get(main, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('accepted');
    expect((await get(main, `/v1/proposals/${c.proposalId}`)).body.proposal.proposal_state).toBe('pending_confirmation');

    // Happy path.
    const ok = await post(main, path, confirmBody(c));
    expect(ok.status, ok.text).toBe(200);
    const done = ok.body.checkout;
    expect(done).toMatchObject({ checkout_id: id, status: 'confirmed' });
    expect(done.receipt).toMatchObject({
      status: 'order_placed',
      merchant_id: c.merchantId,
      merchant_response: { status_code: 200, order_id: 'ord-1' },
      amount: (priceCents + 450) / 100,
      currency: 'USD',
    });
    expect(Date.parse(done.receipt.handed_off_at)).toBeGreaterThan(0);
    expect(done.audit_trail.map((a: any) => a.step)).toEqual(CONFIRMED_TRAIL);
    for (const a of done.audit_trail) expect(Date.parse(a.at)).toBeGreaterThan(0);
    expect(done.audit_trail[3]).toMatchObject({
      outcome: 'handed_off',
      detail: { status_code: 200, order_id: 'ord-1' },
    });
    expect(Date.parse(done.audit_trail[3].detail.answered_at)).toBeGreaterThanOrEqual(Date.parse(done.audit_trail[3].at));
    expect(c.agent.bodies).toHaveLength(1);
    const handoff = c.agent.bodies[0]!;
    expect(handoff.headers['idempotency-key']).toBe(id);
    expect(handoff.headers['webhook-id']).toBe(id);
    expect(handoff.body).toMatchObject({
      type: 'checkout.handoff',
      checkout_id: id,
      proposal_id: c.proposalId,
      buyer: { buyer_agent_id: 'buyer-agent-1' },
      shipping: { address: { city: 'Springfield' }, amount_minor: 450 },
    });
    expect(handoff.body.plan.totals.total_minor).toBe(priceCents + 450);
    expect((await get(main, `/v1/proposals/${c.proposalId}`)).body.proposal.proposal_state).toBe('settled');
    expect((await get(main, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('consumed');

    // Again: the same stored result, the merchant is not called twice.
    const again = await post(main, path, confirmBody(c));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(ok.body);
    expect((await get(main, `/v1/agentic-checkout/${id}`)).body).toEqual(ok.body);
    expect(c.agent.bodies).toHaveLength(1);

    // The run completed; its history replays against the current workflow code.
    const handle = main.api.temporal!.client.workflow.getHandle(workflowIds.checkout(id));
    // The result says what was bought, from whom, for how much, and the merchant's order id.
    expect(await handle.result()).toEqual({
      checkoutId: id,
      status: 'confirmed',
      purchase: {
        product: done.plan.line_items[0].title,
        merchant_id: c.merchantId,
        amount: (priceCents + 450) / 100,
        currency: 'USD',
        checkout_mode: 'agent_handoff',
      },
      order_id: 'ord-1',
    });
    expect(await (await handle.describe()).staticSummary()).toBe(
      `Checkout of "Trail bottle" from ${c.merchantId} for buyer-agent-1 (${id}, proposal ${c.proposalId})`,
    );
    await recordHistory(main.api.temporal!.client, workflowIds.checkout(id), 'agentic-checkout.json');
  });

  it('concurrent confirms are one confirmation: one handoff, the same result', async () => {
    const c = await chain(main, { shipping: { max_days: 2, cost: 4.5 } });
    const { checkout_id } = await createCheckout(main, c);
    const [a, b] = await Promise.all([
      post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c)),
      post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c)),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body).toEqual(b.body);
    expect(c.agent.bodies).toHaveLength(1);
  });

  // Postgres failing one write of the confirm's one local activity: the workflow's own step for it
  // writes it, retrying until done; the handoff is sent once, and an outage is not a merchant failure.
  it.each([
    [
      "the settle (the handoff's local activity cannot write it)",
      'settle',
      "new.status = 'confirmed' and old.status <> 'confirmed'",
      ['planCheckout', 'authorizeAndHandOff', 'settleCheckout'],
    ],
    [
      'the authorization (not taken for a failed handoff)',
      'authorize',
      'new.payment_authorization_id is not null and old.payment_authorization_id is null',
      ['planCheckout', 'authorizeAndHandOff', 'authorizeCheckout', 'handOffAndSettle'],
    ],
  ])("%s, refused once by Postgres, is written by the workflow's own step: confirmed, one order", async (_write, name, when, steps) => {
    const c = await chain(main);
    const checkout = await createCheckout(main, c);
    const id = checkout.checkout_id as string;
    const refusal = await refuseOnce(main.api.db, id, name, when);
    try {
      const ok = await post(main, `/v1/agentic-checkout/${id}/confirm`, confirmBody(c));
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.checkout).toMatchObject({
        checkout_id: id,
        status: 'confirmed',
        receipt: { merchant_response: { order_id: 'ord-1' } },
      });
      expect(await refusal.tries(), `the one activity tried once, the ${name} step once more`).toBe(2);
      expect(c.agent.bodies, 'one handoff').toHaveLength(1);
      expect(ok.body.checkout.audit_trail.map((a: any) => a.step)).toEqual(CONFIRMED_TRAIL);
      // The merchant's answer, left to the settle, is written by the settle that succeeded.
      expect(ok.body.checkout.audit_trail[3]).toMatchObject({ outcome: 'handed_off', detail: { status_code: 200, order_id: 'ord-1' } });
      expect((await get(main, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('consumed');
      expect(await localActivities(main, id)).toEqual(steps);
    } finally {
      await refusal.drop();
    }
  });

  it(`an authorization that hangs past AUTHORIZE_WAIT_MS (${AUTHORIZE_WAIT_MS} ms; the row locked) is left to the workflow's authorize step, not spent as the merchant's attempts: confirmed, one order`, async () => {
    const c = await chain(main);
    const checkout = await createCheckout(main, c);
    const id = checkout.checkout_id as string;
    // Another session holds the checkout's row past the bound, so the authorization waits on its lock.
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    const held = main.api.db.transaction().execute(async (trx) => {
      await sql`select 1 from agentic_checkouts where checkout_id = ${id} for update`.execute(trx);
      locked();
      await sleep(AUTHORIZE_WAIT_MS + 2000);
    });
    await holding;
    const ok = await post(main, `/v1/agentic-checkout/${id}/confirm`, confirmBody(c));
    await held;
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.checkout).toMatchObject({ checkout_id: id, status: 'confirmed', receipt: { merchant_response: { order_id: 'ord-1' } } });
    expect(c.agent.bodies, 'one handoff').toHaveLength(1);
    expect(ok.body.checkout.audit_trail.map((a: any) => a.step)).toEqual(CONFIRMED_TRAIL);
    expect(await localActivities(main, id)).toEqual(['planCheckout', 'authorizeAndHandOff', 'authorizeCheckout', 'handOffAndSettle']);
  });

  it('a merchant that keeps failing: 502 merchant_handoff_failed after 4 attempts with one idempotency key; the checkout ends failed, a later confirm is 409 checkout_failed', async () => {
    const c = await chain(main, { merchantStatus: 503 });
    const { checkout_id } = await createCheckout(main, c);
    const res = await post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c));
    expect(res.status, res.text).toBe(502);
    expect(res.body.error).toBe('merchant_handoff_failed');
    expect(c.agent.bodies).toHaveLength(4);
    expect(new Set(c.agent.bodies.map((b) => b.headers['idempotency-key']))).toEqual(new Set([checkout_id]));
    const stored = (await get(main, `/v1/agentic-checkout/${checkout_id}`)).body.checkout;
    expect(stored.status).toBe('failed');
    expect(stored.audit_trail.map((a: any) => `${a.step}:${a.outcome}`)).toEqual([
      'plan_created:awaiting_confirmation',
      'consent_recorded:granted',
      'payment_authorized:authorized',
      'merchant_handoff_attempt_1:failed',
      'merchant_handoff_attempt_2:failed',
      'merchant_handoff_attempt_3:failed',
      'merchant_handoff_attempt_4:failed',
      'payment_voided:voided',
      'failed:merchant_handoff_failed',
    ]);
    expect(stored.audit_trail[3].detail).toMatchObject({ status_code: 503 });
    expect(res.body.next_action).toMatchObject({ action: 'plan_new_checkout', match_token_id: c.tokenId });
    expect(stored.failure).toMatchObject({ status: 502, code: 'merchant_handoff_failed', next_action: { action: 'plan_new_checkout' } });
    const again = await post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c));
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('checkout_failed');
    expect(c.agent.bodies).toHaveLength(4);
  });

  it('a merchant that refuses (HTTP 422, "Sorry, this item just sold out."): not retried; the 502 names the checkout, the merchant\'s reason, the voided payment and the next steps its one-proposal session allows (search again)', async () => {
    const sorry = 'Sorry, this item just sold out.';
    const c = await chain(main, { merchantStatus: 422, refusal: { error: 'sold_out', message: sorry } });
    const { checkout_id } = await createCheckout(main, c);
    const res = await post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c));
    expect(res.status, res.text).toBe(502);
    expect(res.body).toMatchObject({
      error: 'merchant_handoff_failed',
      checkout_id,
      merchant_reason: sorry,
      payment_voided: true,
      payment_authorization_id: expect.stringMatching(/^pauth_/),
      next_action: { action: 'search_again' },
    });
    expect(res.body.message).toContain('HTTP 422');
    expect(res.body.message).toContain(sorry);
    // The session ranked this proposal only, and its merchant said no: nothing else to choose from.
    expect(res.body.next_steps.map((s: any) => s.action)).toEqual(['search_again']);
    expect(res.body.next_steps[0]).toMatchObject({
      description: expect.stringContaining(c.matchSessionId),
      how: expect.stringContaining('/v1/recommend'),
    });
    expect(c.agent.bodies).toHaveLength(1);

    const read = (await get(main, `/v1/agentic-checkout/${checkout_id}`)).body;
    expect(read.checkout.status).toBe('failed');
    expect(read.checkout.failure).toMatchObject({
      code: 'merchant_handoff_failed',
      merchant_reason: sorry,
      next_action: { action: 'search_again' },
    });
    expect(read.next_steps).toEqual(res.body.next_steps);
    expect(read.checkout.audit_trail.map((a: any) => a.step)).toContain('payment_voided');
    expect(read.checkout.audit_trail.find((a: any) => a.step === 'merchant_handoff_attempt_1').detail).toMatchObject({
      status_code: 422,
      reason: sorry,
    });
    // The authorization reads voided, with why.
    const auth = await get(main, `/v1/payment-authorizations/${res.body.payment_authorization_id}`);
    expect(auth.status, auth.text).toBe(200);
    expect(auth.body.payment_authorization).toMatchObject({
      authorization_id: res.body.payment_authorization_id,
      status: 'voided',
      match_token_id: c.tokenId,
      proposal_id: c.proposalId,
      intent_id: c.intentId,
      voided_at: expect.any(String),
      void_reason: expect.stringContaining('merchant_handoff_failed'),
    });
    expect((await get(main, '/v1/payment-authorizations/pauth_missing')).body.error).toBe('payment_authorization_not_found');
    // A later confirm answers the same, as 409 checkout_failed.
    const again = await post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: 'checkout_failed',
      failure_code: 'merchant_handoff_failed',
      checkout_id,
      merchant_reason: sorry,
      payment_voided: true,
      next_steps: res.body.next_steps,
    });
    expect(c.agent.bodies).toHaveLength(1);
  });

  it('a merchant that refuses while its session ranked other proposals: the next step is one of those, by id; its reason arrives as bounded plain text', async () => {
    const hostile = `Sorry,\u0000 this item\r\n just sold out.\u202e ${'x'.repeat(700)}`;
    const c = await chain(main, { merchantStatus: 409, refusal: { message: hostile }, others: 2 });
    const { checkout_id } = await createCheckout(main, c);
    const res = await post(main, `/v1/agentic-checkout/${checkout_id}/confirm`, confirmBody(c));
    expect(res.status, res.text).toBe(502);
    expect(res.body).toMatchObject({ error: 'merchant_handoff_failed', checkout_id, payment_voided: true });
    expect(res.body.merchant_reason.startsWith('Sorry, this item just sold out. xxx')).toBe(true);
    expect(res.body.merchant_reason.length).toBeLessThanOrEqual(500);
    // eslint-disable-next-line no-control-regex
    expect(res.body.merchant_reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(res.body.next_steps.map((s: any) => s.action)).toEqual(['choose_another_proposal']);
    expect(res.body.next_action).toMatchObject({
      action: 'choose_another_proposal',
      match_session_id: c.matchSessionId,
      proposal_ids: expect.arrayContaining(c.otherProposalIds),
    });
    expect(res.body.next_action.proposal_ids).toHaveLength(2);
    expect(res.body.next_action.how).toBe(
      `POST /v1/match/${c.matchSessionId}/accept with the chosen proposal_id, then POST /v1/agentic-checkout with the new token`,
    );
    // The step holds: another proposal of the session is accepted and bought.
    const accept = await post(main, `/v1/match/${c.matchSessionId}/accept`, { proposal_id: c.otherProposalIds[0] });
    expect(accept.status, accept.text).toBe(200);
  });

  it('an expired match token: 409 match_token_expired (MATCH_TOKEN_TTL_S=2)', async () => {
    const c = await chain(shortToken);
    const res = await post(shortToken, '/v1/agentic-checkout', createBody(c));
    expect(res.status, res.text).toBe(201);
    await sleep(3000);
    const conf = await post(shortToken, `/v1/agentic-checkout/${res.body.checkout.checkout_id}/confirm`, confirmBody(c));
    expect(conf.status).toBe(409);
    expect(conf.body.error).toBe('match_token_expired');
    expect(c.agent.bodies).toHaveLength(0);
    // A new checkout on the expired token is refused too.
    const late = await post(shortToken, '/v1/agentic-checkout', createBody(c, { buyer_agent_id: 'buyer-agent-2' }));
    expect(late.status).toBe(409);
    expect(['match_token_expired', 'match_token_in_checkout']).toContain(late.body.error);
  });

  it('an unconfirmed plan expires by the workflow timer after CHECKOUT_PLAN_TTL_S (15 min, skipped); confirm then → 409 checkout_expired', async () => {
    expect(planClock.api.config.CHECKOUT_PLAN_TTL_S).toBe(900);
    const c = await chain(planClock);
    const before = Date.now();
    const res = await post(planClock, '/v1/agentic-checkout', createBody(c));
    expect(res.status, res.text).toBe(201);
    const id = res.body.checkout.checkout_id as string;
    const expiresAt = Date.parse(res.body.checkout.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 900_000);
    // Awaiting the result through the time-skipping client lets the server jump to the timer: the
    // test's own timeout (a minute) fails it if the 15 minutes were waited out instead.
    const handle = timeSkipping!.client.workflow.getHandle(workflowIds.checkout(id));
    expect(await handle.result()).toMatchObject({
      checkoutId: id,
      status: 'expired',
      reason: `not confirmed before ${res.body.checkout.expires_at}`,
      purchase: { merchant_id: c.merchantId, product: res.body.checkout.plan.line_items[0].title },
    });
    // The run expired by its timer, which fired when the workflow's clock reached the plan's expiry.
    const events = (await handle.fetchHistory()).events ?? [];
    const fired = events.filter((e) => e.timerFiredEventAttributes);
    expect(fired).toHaveLength(1);
    const firedAt = Number(fired[0]!.eventTime!.seconds) * 1000 + Math.floor((fired[0]!.eventTime!.nanos ?? 0) / 1e6);
    expect(firedAt).toBeGreaterThanOrEqual(expiresAt);
    const after = await get(planClock, `/v1/agentic-checkout/${id}`);
    expect(after.body.checkout).toMatchObject({ status: 'expired' });
    expect(after.body.checkout.expired_at).not.toBeNull();
    expect(after.body.checkout.audit_trail.map((a: any) => a.step)).toEqual(['plan_created', 'expired']);
    const conf = await post(planClock, `/v1/agentic-checkout/${id}/confirm`, confirmBody(c));
    expect(conf.status).toBe(409);
    expect(conf.body.error).toBe('checkout_expired');
    expect(c.agent.bodies).toHaveLength(0);
    // The token was not spent: it can back a new checkout.
    expect((await get(planClock, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('accepted');
  });

  it('503 temporal_unavailable from an API process without Temporal', async () => {
    const api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
    try {
      const res = await call(api.url, 'POST', '/v1/agentic-checkout', {
        token: dev.apiKey,
        body: { buyer_agent_id: 'b', intent_id: 'int_x', proposal_id: 'prop_x', match_token_id: 'mt_x', amount: 1, currency: 'USD' },
      });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('temporal_unavailable');
    } finally {
      await api.close();
    }
  });
});

/** Polls `fn` until it returns something truthy (visibility is eventually consistent); bounded. */
async function eventually<T>(fn: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('not within the deadline');
    await sleep(250);
  }
}

describe('agentic checkout: compensation when the handoff fails for good (saga)', () => {
  it('a merchant answering 500: the authorization is voided, the token is accepted again, the run ends Failed and is listed by ExecutionStatus="Failed"; the agent then buys with the same token', async () => {
    const c = await chain(main, { merchantStatus: 500 });
    const checkout = await createCheckout(main, c);
    const id = checkout.checkout_id as string;
    expect(checkout.checkout_mode).toBe('agent_handoff');
    expect(checkout.plan.checkout_mode).toBe('agent_handoff');

    const res = await post(main, `/v1/agentic-checkout/${id}/confirm`, confirmBody(c));
    expect(res.status, res.text).toBe(502);
    expect(res.body.error).toBe('merchant_handoff_failed');
    expect(res.body.next_action).toMatchObject({ action: 'plan_new_checkout', match_token_id: c.tokenId });
    expect(c.agent.bodies).toHaveLength(4);

    // Postgres: the authorization is voided, the token accepted again, the proposal pending again.
    const stored = (await get(main, `/v1/agentic-checkout/${id}`)).body.checkout;
    expect(stored.status).toBe('failed');
    expect(stored.payment_authorization_id).toMatch(/^pauth_/);
    const auth = await main.api.db
      .selectFrom('payment_authorizations')
      .selectAll()
      .where('authorization_id', '=', stored.payment_authorization_id)
      .executeTakeFirstOrThrow();
    expect(auth).toMatchObject({ status: 'voided', match_token_id: c.tokenId });
    expect(auth.voided_at).toBeInstanceOf(Date);
    expect(auth.void_reason).toContain('merchant_handoff_failed');
    const token = await main.api.db
      .selectFrom('match_tokens')
      .select('acceptance_state')
      .where('match_token_id', '=', c.tokenId)
      .executeTakeFirstOrThrow();
    expect(token.acceptance_state).toBe('accepted');
    expect((await get(main, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('accepted');
    expect((await get(main, `/v1/proposals/${c.proposalId}`)).body.proposal.proposal_state).toBe('pending_confirmation');
    const steps = stored.audit_trail.map((a: any) => `${a.step}:${a.outcome}`);
    expect(steps.slice(-2)).toEqual(['payment_voided:voided', 'failed:merchant_handoff_failed']);
    expect(stored.audit_trail.at(-2).detail).toMatchObject({
      authorization_id: stored.payment_authorization_id,
      acceptance_state: 'accepted',
    });
    expect(stored.failure.next_action).toMatchObject({ action: 'plan_new_checkout', until: expect.any(String) });
    // No token is payment_authorized without a live checkout.
    const orphans = await main.api.db
      .selectFrom('match_tokens as t')
      .select('t.match_token_id')
      .where('t.acceptance_state', '=', 'payment_authorized')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('agentic_checkouts as k')
              .select('k.checkout_id')
              .whereRef('k.match_token_id', '=', 't.match_token_id')
              .where('k.status', 'in', ['confirming', 'confirmed']),
          ),
        ),
      )
      .where('t.match_token_id', '=', c.tokenId)
      .execute();
    expect(orphans).toEqual([]);

    // Temporal: the run ended Failed with the error code as type and the reason and next action in details.
    const handle = main.api.temporal!.client.workflow.getHandle(workflowIds.checkout(id));
    const err = await handle.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('merchant_handoff_failed');
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    expect((cause as ApplicationFailure).details?.[0]).toMatchObject({
      checkout_id: id,
      code: 'merchant_handoff_failed',
      payment_voided: true,
      next_action: { action: 'plan_new_checkout' },
      purchase: { merchant_id: c.merchantId, amount: (priceCents + 450) / 100, currency: 'USD', checkout_mode: 'agent_handoff' },
    });
    const d = await handle.describe();
    expect(d.status.name).toBe('FAILED');
    expect(d.memo).toMatchObject({
      checkout_id: id,
      intent_id: c.intentId,
      merchant_id: c.merchantId,
      amount: (priceCents + 450) / 100,
      currency: 'USD',
      checkout_mode: 'agent_handoff',
      developer_id: dev.developerId,
    });
    const listed = await eventually(async () => {
      const ids: string[] = [];
      for await (const w of main.api.temporal!.client.workflow.list({
        query: `ExecutionStatus = "Failed" AND WorkflowType = "agenticCheckout" AND CheckoutId = "${id}"`,
      }))
        ids.push(w.workflowId);
      return ids.length ? ids : null;
    });
    expect(listed).toEqual([workflowIds.checkout(id)]);
    // The runbook's filter (docs/OPERATIONS.md) finds it too.
    const byType = await eventually(async () => {
      const ids: string[] = [];
      for await (const w of main.api.temporal!.client.workflow.list({
        query: `WorkflowType = "agenticCheckout" AND ExecutionStatus = "Failed" AND FlowStage = "failed"`,
      }))
        ids.push(w.workflowId);
      return ids.includes(workflowIds.checkout(id)) ? ids : null;
    });
    expect(byType).toContain(workflowIds.checkout(id));
    // The Failed run replays against the current code (and is kept in test/histories for later changes).
    await recordHistory(main.api.temporal!.client, workflowIds.checkout(id), 'agentic-checkout-failed-voided.json');

    // A later confirm of the failed checkout still answers its documented 409 (from Postgres).
    const late = await post(main, `/v1/agentic-checkout/${id}/confirm`, confirmBody(c));
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('checkout_failed');
    expect(late.body.next_action.action).toBe('plan_new_checkout');

    // What the next action says works: the merchant is back, a new checkout on the same token buys.
    c.agent.heal();
    const again = await post(main, '/v1/agentic-checkout', createBody(c));
    expect(again.status, again.text).toBe(201);
    const ok = await post(main, `/v1/agentic-checkout/${again.body.checkout.checkout_id}/confirm`, confirmBody(c));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.checkout.status).toBe('confirmed');
    const auths = await main.api.db
      .selectFrom('payment_authorizations')
      .select(['authorization_id', 'status'])
      .where('match_token_id', '=', c.tokenId)
      .orderBy('authorized_at')
      .execute();
    expect(auths.map((a) => a.status)).toEqual(['voided', 'authorized']);
    expect(ok.body.checkout.payment_authorization_id).toBe(auths[1]!.authorization_id);
    expect((await get(main, `/v1/match-tokens/${c.tokenId}`)).body.match_token.acceptance_state).toBe('consumed');
  });
});

describe('agentic checkout: merchant_redirect (the seller has no agent endpoint)', () => {
  it('a recommended catalog product: plan says merchant_redirect; confirm authorizes nothing and answers 200 handed_off with the attributable /r/{rec_id} link; the order arriving with that rec_id is attributed', async () => {
    const channel = `chk-${Math.random().toString(36).slice(2, 8)}`;
    const rec = await get(main, `/v1/recommend?${new URLSearchParams({ intent: 'trail running shoes under $120', channel, limit: '3' })}`);
    expect(rec.status, rec.text).toBe(200);
    const proposal = rec.body.proposals[0];
    expect(proposal.merchant_agent_id).toBe(CATALOG_MERCHANT_ID);
    const recId = proposal.metadata.rec_id as string;
    expect(rec.body.items.map((i: any) => i.rec_id)).toContain(recId);
    const accept = await post(main, `/v1/match/${rec.body.match_session_id}/accept`, { proposal_id: proposal.proposal_id });
    expect(accept.status, accept.text).toBe(200);
    const token = accept.body.match_token;
    const amount = proposal.price;

    const plan = await post(main, '/v1/agentic-checkout', {
      buyer_agent_id: 'buyer-agent-1',
      intent_id: rec.body.intent_id,
      proposal_id: proposal.proposal_id,
      match_token_id: token.match_token_id,
      amount,
      currency: 'USD',
    });
    expect(plan.status, plan.text).toBe(201);
    const checkout = plan.body.checkout;
    expect(checkout).toMatchObject({
      status: 'awaiting_confirmation',
      checkout_mode: 'merchant_redirect',
      merchant_id: CATALOG_MERCHANT_ID,
      continue_url: null,
    });
    expect(checkout.plan).toMatchObject({ checkout_mode: 'merchant_redirect', rec_id: recId });

    const confirmRedirect = () =>
      post(main, `/v1/agentic-checkout/${checkout.checkout_id}/confirm`, {
        consent: { granted: true, statement: 'I agree to buy it on the merchant site.' },
        match_token: token.signed_token,
        proposal_id: proposal.proposal_id,
        amount,
        currency: 'USD',
      });
    const confirm = await confirmRedirect();
    expect(confirm.status, confirm.text).toBe(200);
    const done = confirm.body.checkout;
    expect(done).toMatchObject({
      status: 'handed_off',
      checkout_mode: 'merchant_redirect',
      continue_url: `${main.api.config.publicBaseUrl}/r/${recId}`,
      payment_authorization_id: null,
    });
    expect(done.receipt).toMatchObject({
      status: 'handed_off',
      continue_url: done.continue_url,
      rec_id: recId,
      payment_authorization_id: null,
    });
    expect(done.audit_trail.map((a: any) => a.step)).toEqual(['plan_created', 'consent_recorded', 'handed_off_to_merchant_site']);
    // No money moved: no authorization, the token is still only accepted.
    expect(
      await main.api.db
        .selectFrom('payment_authorizations')
        .select('authorization_id')
        .where('match_token_id', '=', token.match_token_id)
        .execute(),
    ).toEqual([]);
    expect((await get(main, `/v1/match-tokens/${token.match_token_id}`)).body.match_token.acceptance_state).toBe('accepted');
    // Confirm again: the same stored answer.
    const again = await confirmRedirect();
    expect(again.status).toBe(200);
    expect(again.body.checkout.continue_url).toBe(done.continue_url);
    const handle = main.api.temporal!.client.workflow.getHandle(workflowIds.checkout(checkout.checkout_id));
    expect(await handle.result()).toEqual({
      checkoutId: checkout.checkout_id,
      status: 'handed_off',
      purchase: {
        product: checkout.plan.line_items[0].title,
        merchant_id: checkout.merchant_id,
        amount,
        currency: 'USD',
        checkout_mode: 'merchant_redirect',
      },
      continue_url: done.continue_url,
      payment_voided: false,
    });
    await recordHistory(main.api.temporal!.client, workflowIds.checkout(checkout.checkout_id), 'agentic-checkout-merchant-redirect.json');

    // The link is the recorded click redirect to the product page, rec_id attached.
    const click = await fetch(done.continue_url.replace(main.api.config.publicBaseUrl, main.api.url), { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(new URL(click.headers.get('location')!).searchParams.get('rec_id')).toBe(recId);
    // The merchant's order, when it arrives with that rec_id, is attributed to the card.
    await main.api.db
      .insertInto('affiliate_orders')
      .values({
        order_id: `ord-${checkout.checkout_id}`,
        rec_id: recId,
        amount_cents: Math.round(amount * 100),
        currency: 'USD',
        status: 'completed',
        ordered_at: new Date(),
        import_batch: `test-${checkout.checkout_id}`,
      })
      .execute();
    const report = await call(main.api.url, 'GET', `/v1/report/attribution?channel=${channel}`, {
      headers: { 'x-supply-key': 'test-supply-key-0123456789' },
    });
    expect(report.status, report.text).toBe(200);
    expect(report.body.totals).toMatchObject({ attributed_orders: 1, clicks: 1 });
  });

  it('a catalog proposal that came without a card (commerce runtime): a card is issued once for the checkout, and its rec_id is stable', async () => {
    const product = await main.api.db.selectFrom('products').select('product_id').orderBy('product_id').limit(1).executeTakeFirstOrThrow();
    const args = {
      checkoutId: `chk_test_${Date.now()}`,
      proposal: { product_id: product.product_id, metadata: { runtime_id: 'rt_x' } },
      matchSessionId: null,
      publicBaseUrl: main.api.url,
    };
    const a = await redirectRecId(main.api.db, args);
    const b = await redirectRecId(main.api.db, args);
    expect(a).toBe(b);
    const cards = await main.api.db.selectFrom('rec_cards').select(['rec_id', 'product_id', 'source']).where('rec_id', '=', a).execute();
    expect(cards).toEqual([{ rec_id: a, product_id: product.product_id, source: 'checkout' }]);
  });
});
