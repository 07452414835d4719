import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { stockedProduct } from './helpers/catalog';
import { recordStatements } from './helpers/statements';
import { benchMerchants, type BenchMerchants } from '../bench/merchant-agents';

/**
 * What an agentic checkout costs Postgres (docs/BENCHMARKS.md, "Throughput under load"): every
 * statement of a create and a confirm, the API's and the worker's activities' apart, for the
 * benchmark's checkout (an accepted match from a registered merchant agent that takes the order).
 * Each statement is a round trip and, outside a transaction, a commit. The ceilings keep the counts
 * from creeping back; `CHECKOUT_COST_PRINT=1` prints the statements.
 */
const ENV = { ALLOW_PRIVATE_ENDPOINTS: 'true' };
const SHIPPING = 4.5;
/**
 * The API's statements for the two requests (for each: the key's lookup and its rate-limit count;
 * then the create's ownership read and the confirm's read of the checkout). The request log's batched
 * writes are off the request path and not counted.
 */
const API_STATEMENTS_CEILING = 6;
/**
 * The worker's activities' statements: plan 2, authorize 9 (one transaction), hand off and settle 8
 * (the attempt, then one transaction with the merchant's answer); 22 before the authorization was
 * one transaction and the answer was written with the settle.
 */
const WORKER_STATEMENTS_CEILING = 19;

let api: TestApi;
let dev: Onboarded;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let merchants: BenchMerchants;
let merchant: { id: string; token: string };
let product: { product_id: number; price_cents: number; title: string };
let statements: ReturnType<typeof recordStatements>;

beforeAll(async () => {
  api = await startTestApi({ env: ENV });
  dev = await onboard(api.url);
  product = await stockedProduct(api.db);
  merchants = benchMerchants(() => product, SHIPPING);
  const id = `m-chkcost-${Math.random().toString(36).slice(2, 8)}`;
  const res = await call(api.url, 'POST', '/v1/merchant/register', {
    token: dev.apiKey,
    body: { merchant_id: id, agent_endpoint: await merchants.add(), subscription_tags: ['chkcost'] },
  });
  expect(res.status, res.text).toBe(200);
  merchant = { id, token: res.body.registration_token };
  worker = await startTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db);
  statements = recordStatements();
});

afterAll(async () => {
  statements?.restore();
  await worker?.stop();
  merchants?.close();
  await api?.close();
});

async function acceptedMatch() {
  const post = async (path: string, body: unknown, status: number, headers: Record<string, string> = {}) => {
    const res = await call(api.url, 'POST', path, { token: dev.apiKey, body, headers });
    expect(res.status, `${path} ${res.text}`).toBe(status);
    return res.body;
  };
  const { intent } = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking' }, 201);
  const offer = {
    merchant_agent_id: merchant.id,
    intent_id: intent.intent_id,
    product_id: product.product_id,
    offer_title: product.title,
    price: product.price_cents / 100,
    shipping_commitment: { max_days: 3, cost: SHIPPING },
  };
  const { proposal } = await post('/v1/proposals', offer, 201, { 'x-merchant-token': merchant.token });
  const { match_session } = await post('/v1/match', { intent_id: intent.intent_id, proposal_ids: [proposal.proposal_id] }, 201);
  const { match_token } = await post(`/v1/match/${match_session.match_session_id}/accept`, { proposal_id: proposal.proposal_id }, 200);
  return { intentId: intent.intent_id, proposalId: proposal.proposal_id, token: match_token };
}

async function createAndConfirm(a: Awaited<ReturnType<typeof acceptedMatch>>) {
  const amount = (product.price_cents + SHIPPING * 100) / 100;
  const created = await call(api.url, 'POST', '/v1/agentic-checkout', {
    token: dev.apiKey,
    body: {
      buyer_agent_id: 'cost-buyer',
      intent_id: a.intentId,
      proposal_id: a.proposalId,
      match_token_id: a.token.match_token_id,
      amount,
      currency: 'USD',
      shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
    },
  });
  expect(created.status, created.text).toBe(201);
  const consent = { granted: true, statement: 'I agree to buy this for the plan total.', granted_at: new Date().toISOString() };
  const confirmed = await call(api.url, 'POST', `/v1/agentic-checkout/${created.body.checkout.checkout_id}/confirm`, {
    token: dev.apiKey,
    body: { consent, match_token: a.token.signed_token, proposal_id: a.proposalId, amount, currency: 'USD' },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(confirmed.body.checkout.status).toBe('confirmed');
}

describe('agentic checkout: Postgres statements per create + confirm', () => {
  it(`the benchmark's checkout sends at most ${API_STATEMENTS_CEILING} statements from the API and ${WORKER_STATEMENTS_CEILING} from the worker`, async () => {
    // The first checkout warms the caches (signing keys, API key): the second is counted.
    await createAndConfirm(await acceptedMatch());
    const next = await acceptedMatch();
    statements.counting = true;
    await createAndConfirm(next);
    statements.counting = false;
    // The request log's batch (begin, insert, the keys' last use, commit) is written on a timer.
    const requestLog = /^(begin|commit|insert into "request_logs"|update "api_keys" set "last_used_at")/i;
    const seen = statements.seen.filter((s) => s.where !== 'api' || !requestLog.test(s.text.trim()));
    const by = new Map<string, number>();
    for (const s of seen) by.set(s.where, (by.get(s.where) ?? 0) + 1);
    const inApi = seen.filter((s) => s.where === 'api').length;
    const inWorker = seen.length - inApi;
    if (process.env.CHECKOUT_COST_PRINT) {
      console.log(`statements per checkout: api ${inApi}, worker ${inWorker}`, Object.fromEntries(by));
      for (const s of seen) console.log(`${s.where}: ${s.text.replace(/\s+/g, ' ').slice(0, 260)}`);
    }
    expect(inApi).toBeLessThanOrEqual(API_STATEMENTS_CEILING);
    expect(inWorker).toBeLessThanOrEqual(WORKER_STATEMENTS_CEILING);
  });
});
