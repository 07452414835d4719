/**
 * Durable flows against their floor (issue: durable flows). Targets: POST /v1/commerce-runtime with
 * three loopback merchant agents p50 ≤ 400 ms; POST /v1/agentic-checkout/{id}/confirm p50 ≤ 150 ms.
 * The floor, in the same run on the same dev server, is an empty workflow: `ping` (one workflow task,
 * one activity) started with the Temporal client and awaited.
 *
 *   npm run bench:flows [-- --runs 30]
 *
 * Starts its own Temporal dev server, a scratch database with the seeded catalog, `npm run api` and
 * `npm run worker` as their own processes, sharing one Ed25519 match-token key generated here. Requests
 * are sequential (one at a time); each measurement has 3 warm-ups before its `--runs` timed runs.
 */
import { generateKeyPairSync } from 'node:crypto';
import { parseArgs } from 'node:util';
import { seedCatalog } from '../src/catalog/seed';
import { connectTemporal } from '../src/temporal/client';
import { workflowIds } from '../src/temporal/names';
import { ping } from '../workflows/index';
import { machine, percentile, post, startBenchStack } from './harness';
import { stockedProduct } from '../test/helpers/catalog';
import { benchMerchants } from './merchant-agents';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
const RUNS = Number(values.runs);
const WARMUP = 3;
const TASK_QUEUE = process.env.TEMPORAL_TASK_QUEUE ?? 'gateway';
const NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';

let product = { product_id: 0, price_cents: 0, title: '' };
const SHIPPING_COST = 4.5;

// Three merchant agents on loopback (bench/merchant-agents.ts): one proposal at catalog price per
// runtime query, 200 and an order id for the checkout handoff.
const agents = benchMerchants(() => product, SHIPPING_COST);
const counts = agents.counts;
const merchantAgent = () => agents.add();

/** Runs `fn` WARMUP + RUNS times, one at a time; returns the timed durations (ms) of the last RUNS. */
async function timed(fn: (i: number) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const ms = await fn(i);
    if (i >= WARMUP) out.push(ms);
  }
  return out;
}

async function clock<T>(f: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const r = await f();
  return [performance.now() - started, r];
}

/** fetch that insists on one status; returns the parsed body. */
async function expectStatus(status: number, url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${url} → ${res.status} (expected ${status}) ${text}`);
  return JSON.parse(text) as any;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 0.5), p90: percentile(s, 0.9), mean: s.reduce((a, b) => a + b, 0) / s.length };
};

const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const stack = await startBenchStack({
  prepare: (db) => seedCatalog(db).then(() => undefined),
  worker: 'own-process',
  env: { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: key },
});
const { base } = stack;
const auth = { authorization: `Bearer ${stack.apiKey}` };
const temporal = await connectTemporal(stack.temporalAddress, NAMESPACE, TASK_QUEUE);

try {
  product = await stockedProduct(stack.db, 100);

  const tag = 'benchflows';
  const merchants: Array<{ id: string; token: string }> = [];
  for (const m of ['a', 'b', 'c']) {
    const id = `bench-flows-${m}`;
    const reg = await post(
      base,
      '/v1/merchant/register',
      { merchant_id: id, agent_endpoint: await merchantAgent(), subscription_tags: [tag] },
      auth,
    );
    merchants.push({ id, token: reg.registration_token as string });
  }

  // 1. Floor: the empty workflow, start → result.
  const floor = await timed(async (i) => {
    const [ms, r] = await clock(() =>
      temporal.client.workflow.execute(ping, {
        taskQueue: TASK_QUEUE,
        workflowId: workflowIds.ping(`bench-${Date.now()}-${i}`),
        args: ['bench'],
      }),
    );
    if (r.message !== 'bench') throw new Error(`ping answered ${JSON.stringify(r)}`);
    return ms;
  });

  // 2. Commerce runtime, three merchants queried, end to end.
  let lastRuntime: any;
  const runtime = await timed(async () => {
    const [ms, r] = await clock(() =>
      expectStatus(201, `${base}/v1/commerce-runtime`, { intent: { raw_query: `${tag} ${product.title}`, intent_tags: [tag] } }, auth),
    );
    lastRuntime = r.runtime;
    if (r.runtime.runtime_session.stage !== 'awaiting_user_confirmation')
      throw new Error(`runtime ended ${r.runtime.runtime_session.stage}: ${JSON.stringify(r.runtime.runtime_trace)}`);
    return ms;
  });
  const queriesPerRuntime = counts.queries / (WARMUP + RUNS);

  // 3. Agentic checkout: the chain untimed, then create and confirm timed separately.
  const amount = (product.price_cents + SHIPPING_COST * 100) / 100;
  const create: number[] = [];
  const confirm: number[] = [];
  await timed(async (i) => {
    const m = merchants[i % merchants.length]!;
    const { intent } = await post(base, '/v1/intents', { raw_query: 'a sturdy water bottle for hiking' }, auth);
    const { proposal } = await post(
      base,
      '/v1/proposals',
      {
        merchant_agent_id: m.id,
        intent_id: intent.intent_id,
        product_id: product.product_id,
        offer_title: product.title,
        price: product.price_cents / 100,
        shipping_commitment: { max_days: 3, cost: SHIPPING_COST },
      },
      { ...auth, 'x-merchant-token': m.token },
    );
    const { match_session } = await post(base, '/v1/match', { intent_id: intent.intent_id, proposal_ids: [proposal.proposal_id] }, auth);
    const { match_token } = await post(
      base,
      `/v1/match/${match_session.match_session_id}/accept`,
      { proposal_id: proposal.proposal_id },
      auth,
    );

    const [createMs, created] = await clock(() =>
      expectStatus(
        201,
        `${base}/v1/agentic-checkout`,
        {
          buyer_agent_id: 'bench-buyer',
          intent_id: intent.intent_id,
          proposal_id: proposal.proposal_id,
          match_token_id: match_token.match_token_id,
          amount,
          currency: 'USD',
          shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
        },
        auth,
      ),
    );
    const checkoutId = created.checkout.checkout_id as string;
    const [confirmMs, confirmed] = await clock(() =>
      expectStatus(
        200,
        `${base}/v1/agentic-checkout/${checkoutId}/confirm`,
        {
          consent: { granted: true, statement: 'I agree to buy this for the plan total.', granted_at: new Date().toISOString() },
          match_token: match_token.signed_token,
          proposal_id: proposal.proposal_id,
          amount,
          currency: 'USD',
        },
        auth,
      ),
    );
    if (confirmed.checkout.status !== 'confirmed') throw new Error(`checkout ${checkoutId} ${confirmed.checkout.status}`);
    if (i >= WARMUP) {
      create.push(createMs);
      confirm.push(confirmMs);
    }
    return 0;
  });

  const f = stats(floor);
  const rows: Array<[string, number[], string]> = [
    ['floor: empty workflow `ping` start → result (Temporal client)', floor, '—'],
    ['POST /v1/commerce-runtime, 3 loopback merchants (201)', runtime, 'p50 ≤ 400 ms'],
    ['POST /v1/agentic-checkout (plan, 201)', create, '—'],
    ['POST /v1/agentic-checkout/{id}/confirm (200)', confirm, 'p50 ≤ 150 ms'],
  ];
  const x = (v: number, fl: number) => `${(v / fl).toFixed(1)}×`;
  console.log(`\nmachine: ${machine()}`);
  console.log(
    `runs: ${RUNS} timed after ${WARMUP} warm-ups each, one request at a time; merchant queries per runtime: ${queriesPerRuntime.toFixed(1)}; handoffs: ${counts.handoffs}; last runtime steps: ${lastRuntime.runtime_trace?.steps?.length ?? lastRuntime.agent_steps?.length ?? '?'}`,
  );
  console.log('\n| flow | p50 ms | p90 ms | mean ms | p50 / floor | p90 / floor | mean / floor | target |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, xs, target] of rows) {
    const s = stats(xs);
    console.log(
      `| ${name} | ${s.p50.toFixed(1)} | ${s.p90.toFixed(1)} | ${s.mean.toFixed(1)} | ${x(s.p50, f.p50)} | ${x(s.p90, f.p90)} | ${x(s.mean, f.mean)} | ${target} |`,
    );
  }
  const rt = stats(runtime).p50;
  const cf = stats(confirm).p50;
  console.log(`\nruntime p50 ${rt.toFixed(1)} ms ≤ 400 ms: ${rt <= 400 ? 'met' : 'NOT met'}`);
  console.log(`checkout confirm p50 ${cf.toFixed(1)} ms ≤ 150 ms: ${cf <= 150 ? 'met' : 'NOT met'}`);
} finally {
  await temporal.connection.close();
  await stack.stop();
  agents.close();
}
