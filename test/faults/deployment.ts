import { generateKeyPairSync } from 'node:crypto';
import type http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { call, type HttpResult } from '../helpers/http';
import { json, readBody, startLoopback, type LoopbackServer } from '../helpers/loopback';
import { startApiProcess, type ApiProcess } from '../helpers/api-process';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { TEST_ENCRYPTION_KEY, TEST_INVITE, TEST_SUPPLY_KEY, type TestApi } from '../helpers/stack';
import { freePort } from '../../src/net';
import { purgeScheduleId } from '../../src/housekeeping/schedules';
import { systemChoresWorkflowId } from '../../src/housekeeping/chores';

/**
 * The split deployment of `npm run api` + `npm run worker` as real processes, for the fault suite:
 * each side can be SIGKILLed and started again on the same address and task queue.
 */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

export interface Deployment {
  url: string;
  taskQueue: string;
  api: ApiProcess;
  workers: WorkerProcess[];
  temporal: Client;
  startApi(): Promise<ApiProcess>;
  startWorker(): Promise<WorkerProcess>;
  close(): Promise<void>;
}

/** What every process of one deployment shares: database, Temporal, task queue, keys, public URL. */
export function deploymentEnv(opts: {
  databaseUrl: string;
  temporalAddress: string;
  url: string;
  taskQueue: string;
}): Record<string, string> {
  return {
    DATABASE_URL: opts.databaseUrl,
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TEMPORAL_TASK_QUEUE: opts.taskQueue,
    KEY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    MATCH_TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ALLOW_PRIVATE_ENDPOINTS: 'true',
    PUBLIC_BASE_URL: opts.url,
  };
}

/** The env of an API process of the deployment (console and supply keys of the test stack). */
export const apiEnv = (shared: Record<string, string>, extra: Record<string, string> = {}) => ({
  ...shared,
  INVITE_CODES: TEST_INVITE,
  SUPPLY_KEY: TEST_SUPPLY_KEY,
  REQUEST_LOG_FLUSH_MS: '50',
  ...extra,
});

/** `env`: extra settings for both processes (e.g. a short dispatch retry schedule). */
export async function startDeployment(opts: {
  databaseUrl: string;
  temporalAddress: string;
  workers?: number;
  env?: Record<string, string>;
}): Promise<Deployment> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const taskQueue = `faults-${letters()}`;
  const shared = { ...deploymentEnv({ ...opts, url, taskQueue }), ...opts.env };
  const connection = await Connection.connect({ address: opts.temporalAddress });
  const d: Deployment = {
    url,
    taskQueue,
    api: undefined as unknown as ApiProcess,
    workers: [],
    temporal: new Client({ connection }),
    async startApi() {
      d.api = startApiProcess(port, apiEnv(shared));
      await d.api.ready;
      return d.api;
    },
    async startWorker() {
      const w = startWorkerProcess({ url, config: { TEMPORAL_TASK_QUEUE: taskQueue } } as Pick<TestApi, 'url' | 'config'>, shared);
      d.workers.push(w);
      void w.exited.then((how) => {
        if (how !== 'SIGKILL' && how !== 'SIGTERM' && how !== 0)
          console.error(`[faults] worker exited (${String(how)}):\n${w.stderrTail()}`);
      });
      await w.ready;
      return w;
    },
    async close() {
      await Promise.all(d.workers.map((w) => w.stop()));
      await d.api?.stop();
      // The loop the workers booted would tick on after the test (bounded: Temporal may be the fault).
      await Promise.race([stopHousekeeping(d.temporal, taskQueue), sleep(10_000)]);
      await connection.close();
    },
  };
  await d.startApi();
  for (let i = 0; i < (opts.workers ?? 1); i++) await d.startWorker();
  return d;
}

/** A loopback merchant agent that counts every runtime query by step id and holds each answer `holdMs`. */
export async function countingMerchant(answer: (body: any) => unknown, holdMs = 0) {
  const byStep = new Map<string, number>();
  const requests: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  const server: LoopbackServer = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    requests.push({ headers: req.headers, body });
    const step = body?.data?.step_id as string | undefined;
    if (step) byStep.set(step, (byStep.get(step) ?? 0) + 1);
    setTimeout(() => {
      if (!res.destroyed) json(res, 200, answer(body));
    }, holdMs);
  });
  return { server, byStep, requests };
}

/** A `countingMerchant` that proposes `product` at its catalog price to every runtime query. */
export function proposingMerchant(product: { product_id: number; title: string; price_cents: number }, holdMs = 0) {
  return countingMerchant(
    () => ({
      proposals: [
        {
          product_id: product.product_id,
          offer_title: product.title,
          price: product.price_cents / 100,
          currency: 'USD',
          shipping_commitment: { max_days: 3 },
        },
      ],
    }),
    holdMs,
  );
}

/** `call` that reports a cut connection (the API was killed) as status 0 instead of throwing. */
export async function tryCall(
  base: string,
  method: string,
  path: string,
  opts: Parameters<typeof call>[3],
): Promise<HttpResult & { ms: number }> {
  const t0 = Date.now();
  try {
    return { ...(await call(base, method, path, opts)), ms: Date.now() - t0 };
  } catch (err) {
    return { status: 0, body: undefined, text: String(err), headers: new Headers(), ms: Date.now() - t0 } as HttpResult & { ms: number };
  }
}

/** Waits for `check` to return a value, polling every `everyMs`, at most `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(everyMs);
  }
}

/**
 * A loopback merchant agent taking checkout handoffs: it counts orders by Idempotency-Key (a merchant
 * that de-duplicates, as docs/CHECKOUT.md asks) and every request, and holds its first answer `holdMs`
 * (`firstCall` resolves when that first request arrived, i.e. while it is held).
 */
export async function orderMerchant(holdMs = 0) {
  const requests: Array<{ headers: http.IncomingHttpHeaders; body: any }> = [];
  const orders = new Map<string, string>();
  let arrived!: () => void;
  const firstCall = new Promise<void>((r) => (arrived = r));
  const server = await startLoopback(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}');
    requests.push({ headers: req.headers, body });
    const key = String(req.headers['idempotency-key']);
    if (!orders.has(key)) orders.set(key, `ord-${orders.size + 1}`);
    const answer = () => {
      if (!res.destroyed) json(res, 200, { order_id: orders.get(key), accepted: true });
    };
    if (requests.length === 1) {
      arrived();
      setTimeout(answer, holdMs);
    } else answer();
  });
  return { server, requests, orders, firstCall, url: `${server.url}/agent` };
}

export interface Buyable {
  intentId: string;
  proposalId: string;
  token: { match_token_id: string; signed_token: string };
  /** The plan total (price + shipping) in major units. */
  amount: number;
}

/**
 * The steps before a checkout, as a buyer's agent takes them: an intent, the merchant's proposal of
 * `product` (shipping 4.50), a match session over it and an accepted match token.
 */
export async function buyable(
  base: string,
  apiKey: string,
  merchant: { id: string; token: string },
  product: { product_id: number; price_cents: number },
): Promise<Buyable> {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(base, 'POST', path, { token: apiKey, body, headers });
  const intent = await post('/v1/intents', { raw_query: 'a sturdy water bottle for hiking' });
  if (intent.status !== 201) throw new Error(`intent: ${intent.text}`);
  const intentId = intent.body.intent.intent_id as string;
  const proposal = await post(
    '/v1/proposals',
    {
      merchant_agent_id: merchant.id,
      intent_id: intentId,
      product_id: product.product_id,
      offer_title: 'Trail bottle',
      price: product.price_cents / 100,
      shipping_commitment: { max_days: 3, cost: 4.5 },
    },
    { 'x-merchant-token': merchant.token },
  );
  if (proposal.status !== 201) throw new Error(`proposal: ${proposal.text}`);
  const proposalId = proposal.body.proposal.proposal_id as string;
  const session = await post('/v1/match', { intent_id: intentId, proposal_ids: [proposalId] });
  if (session.status !== 201) throw new Error(`match: ${session.text}`);
  const accept = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, { proposal_id: proposalId });
  if (accept.status !== 200) throw new Error(`accept: ${accept.text}`);
  return { intentId, proposalId, token: accept.body.match_token, amount: (product.price_cents + 450) / 100 };
}

export const checkoutBody = (b: Buyable) => ({
  buyer_agent_id: 'buyer-agent-1',
  intent_id: b.intentId,
  proposal_id: b.proposalId,
  match_token_id: b.token.match_token_id,
  amount: b.amount,
  currency: 'USD',
  shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
});

export const confirmBody = (b: Buyable) => ({
  consent: { granted: true, statement: 'I agree to buy the Trail bottle for the plan total.', granted_at: new Date().toISOString() },
  match_token: b.token.signed_token,
  proposal_id: b.proposalId,
  amount: b.amount,
  currency: 'USD',
});

/**
 * Removes the housekeeping a deployment's workers started on its task queue (it would tick on after the
 * test): the purge Schedule, and the system-chores loop (terminated).
 */
export async function stopHousekeeping(temporal: Client | undefined, taskQueue: string): Promise<void> {
  await temporal?.schedule
    .getHandle(purgeScheduleId(taskQueue))
    .delete()
    .catch(() => {});
  await temporal?.workflow
    .getHandle(systemChoresWorkflowId(taskQueue))
    .terminate('test over')
    .catch(() => {});
}
