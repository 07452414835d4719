/**
 * Sustained load on the durable flows with their floors, in one run (issue: throughput under load).
 * Targets on a 2-core machine: commerce runtime (3 loopback merchants each) ≥ 40/s with p99 ≤ 1 s;
 * agentic checkout create + confirm ≥ 30/s with p99 ≤ 1 s.
 *
 *   npm run bench:load [-- --clients 20 --duration 60 --phases runtime,checkout,checkout-only,mixed,floor-empty,floor-update]
 *   (or BENCH_CLIENTS / BENCH_DURATION; --fanout off: intents of the checkout chain reach no merchant;
 *   --windows-file f: writes each phase's timed window on the monotonic clock, for bench/cpuprofile-top.ts;
 *   --worker with-api | own-process: the gateway as `npm start` runs it, one process, or the API and
 *   the worker as their own processes, a deployment's shape)
 *
 * Closed loop: each of --clients clients sends its next request as soon as the last is answered, for
 * --warmup s untimed, then --duration s timed. Phases, one after another on the same stack:
 * - runtime: POST /v1/commerce-runtime, three loopback merchants queried per run;
 * - checkout: the chain intent → proposal → match → accept → checkout create → confirm, each timed;
 *   the intent fans out to the three merchants (one delivery each) unless --fanout off;
 * - checkout-only: checkout create → confirm alone, on accepted matches the phase's clients made
 *   before its clock runs (45/s of the phase's warm-up and duration, or --pool N), so that the
 *   figure is the target's, create+confirm, and the chain before it does not share the machine;
 * - mixed: half the clients on runtimes, half on checkout chains;
 * - floor-empty: an empty workflow, start → result (the runtime's floor);
 * - floor-update: an empty workflow, start + one Update, then its result (the checkout's floor).
 * Floors run on their own task queue and worker process (bench/floor-worker.ts) with the gateway
 * worker's slot settings. Each phase prints CPU by process (bench/cpu.ts); the run ends with what
 * each flow cost Temporal (bench/temporal-cost.ts).
 *
 * The stack: own Temporal dev server (the one `npm start` runs, src/temporal/dev-server.ts), scratch
 * database with the seeded catalog, and the gateway: by default `npm start`'s one process
 * (bin/all-in-one.ts, API and worker sharing a Temporal connection: new runs start eagerly), with
 * --worker own-process `npm run api` and `npm run worker`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { seedCatalog } from '../src/catalog/seed';
import { connectTemporal } from '../src/temporal/client';
import { stockedProduct } from '../test/helpers/catalog';
import { pgCostBetween, readPgCounters, type PgCost, type PgCounters } from './pg-cost';
import { startCpuMeter, cpuTable, type CpuSplit } from './cpu';
import { FLOOR_TASK_QUEUE, floorEmpty, floorFinish, floorUpdate } from './floor-workflows';
import { machine, percentile, post, startBenchStack } from './harness';
import { benchMerchants } from './merchant-agents';
import { costTable, temporalCost } from './temporal-cost';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: process.env.BENCH_CLIENTS ?? '20' },
    duration: { type: 'string', default: process.env.BENCH_DURATION ?? '60' },
    warmup: { type: 'string', default: '10' },
    phases: { type: 'string', default: 'runtime,checkout,checkout-only,mixed,floor-empty,floor-update' },
    fanout: { type: 'string', default: 'on' },
    sample: { type: 'string', default: '20' },
    'windows-file': { type: 'string' },
    pool: { type: 'string' },
    worker: { type: 'string', default: 'with-api' },
  },
});
const CLIENTS = Number(values.clients);
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const PHASES = values.phases.split(',').map((p) => p.trim());
if (values.worker !== 'with-api' && values.worker !== 'own-process') throw new Error('--worker is with-api or own-process');
const WORKER: 'with-api' | 'own-process' = values.worker;
const TAG = 'benchload';
/** The checkout target's rate (/s). */
const CHECKOUT_TARGET_RATE = 30;
/** Accepted matches the checkout-only phase prepares per second of its run: room above the target, so the pool does not cap the figure. */
const CHECKOUT_POOL_RATE = 1.5 * CHECKOUT_TARGET_RATE;
const SHIPPING_COST = 4.5;
/** The workflow types whose Temporal cost is printed, by flow. */
const FLOW_TYPES = {
  runtime: 'commerceRuntime',
  checkout: 'agenticCheckout',
  'intent fan-out': 'intentSurge',
  delivery: 'delivery',
  'floor: empty': 'floorEmpty',
  'floor: update': 'floorUpdate',
};

// ---------- measurement ----------

type Recorder = (op: string, ms: number) => void;
interface PhaseResult {
  name: string;
  seconds: number;
  ops: Map<string, number[]>;
  failed: Map<string, number>;
  firstError?: string;
  cpu: CpuSplit;
  pg: PgCost;
}

/** The timed window of each phase in µs of the monotonic clock, the clock V8's CPU profiles stamp samples with. */
const windows: Array<{ phase: string; fromUs: number; untilUs: number }> = [];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const pct = percentile;

async function timedOp<T>(rec: Recorder, op: string, f: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const r = await f();
  rec(op, performance.now() - started);
  return r;
}

/**
 * Runs `iteration` in a loop on each client: untimed for the warm-up, then timed for the duration.
 * An operation counts when it completes inside the timed window.
 */
async function phase(
  name: string,
  clients: number,
  iteration: (client: number, i: number, rec: Recorder) => Promise<void>,
): Promise<PhaseResult> {
  const ops = new Map<string, number[]>();
  const failed = new Map<string, number>();
  let firstError: string | undefined;
  const t0 = performance.now();
  const window = { phase: name, fromUs: monotonicUs() + WARMUP * 1e6, untilUs: monotonicUs() + (WARMUP + DURATION) * 1e6 };
  windows.push(window);
  const from = t0 + WARMUP * 1000;
  const until = from + DURATION * 1000;
  const inWindow = () => {
    const now = performance.now();
    return now >= from && now <= until;
  };
  const rec: Recorder = (op, ms) => {
    if (!inWindow()) return;
    const xs = ops.get(op) ?? [];
    xs.push(ms);
    ops.set(op, xs);
  };
  let meter: ReturnType<typeof startCpuMeter> | undefined;
  const meterStarted = new Promise<void>((resolve) =>
    setTimeout(() => {
      meter = startCpuMeter(processes, stack.databaseUrl);
      void Promise.all([meter.ready, readPgCounters(stack.databaseUrl).then((c) => (pgAtStart = c))]).then(
        () => resolve(),
        () => resolve(),
      );
    }, WARMUP * 1000),
  );
  let cpu: CpuSplit | undefined;
  let pgAtStart: PgCounters | undefined;
  let pgCost: PgCost | undefined;
  const meterStopped = new Promise<void>((resolve) =>
    setTimeout(
      async () => {
        await meterStarted;
        cpu = await meter!.stop();
        pgCost = await pgCostBetween(stack.databaseUrl, pgAtStart!, await readPgCounters(stack.databaseUrl));
        resolve();
      },
      (WARMUP + DURATION) * 1000,
    ),
  );
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        try {
          await iteration(c, i, rec);
        } catch (err) {
          const op = (err as { op?: string }).op ?? 'iteration';
          if (inWindow()) failed.set(op, (failed.get(op) ?? 0) + 1);
          firstError ??= `${op}: ${(err as Error).message}`.slice(0, 300);
          await new Promise((r) => setTimeout(r, 50)); // a failing stack is not hammered in a tight loop
        }
      }
    }),
  );
  await meterStopped;
  return { name, seconds: DURATION, ops, failed, firstError, cpu: cpu!, pg: pgCost! };
}

// ---------- the stack ----------

let product = { product_id: 0, price_cents: 0, title: '' };
const merchantsOnLoopback = benchMerchants(() => product, SHIPPING_COST);
const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const stack = await startBenchStack({
  prepare: (db) => seedCatalog(db).then(() => undefined),
  worker: WORKER,
  env: { ALLOW_PRIVATE_ENDPOINTS: 'true', MATCH_TOKEN_SIGNING_KEY: key },
  extraProcesses: PHASES.some((p) => p.startsWith('floor')) ? { 'floor worker': 'bench/floor-worker.ts' } : {},
});
const processes: Record<string, number | undefined> = {
  ...(WORKER === 'with-api' ? { 'API + worker (one process)': stack.pids.api } : { api: stack.pids.api, worker: stack.pids.worker }),
  'temporal dev server': stack.pids.temporal,
  ...stack.pids.extra,
  'load generator (this process)': process.pid,
};
const { base } = stack;
const auth = { authorization: `Bearer ${stack.apiKey}` };
const temporal = await connectTemporal(stack.temporalAddress, 'default', 'gateway');
const since = new Date(Date.now() - 1000);

/** POST that insists on one status; a failure carries the operation's name. */
async function expect(op: string, status: number, path: string, body: unknown, headers: Record<string, string> = auth) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status)
    throw Object.assign(new Error(`POST ${path} → ${res.status} (expected ${status}) ${text.slice(0, 200)}`), { op });
  return JSON.parse(text) as any;
}

const merchants: Array<{ id: string; token: string }> = [];

async function runtimeIteration(_c: number, _i: number, rec: Recorder) {
  const r = await timedOp(rec, 'runtime', () =>
    expect('runtime', 201, '/v1/commerce-runtime', { intent: { raw_query: `${TAG} ${product.title}`, intent_tags: [TAG] } }),
  );
  const stage = r.runtime?.runtime_session?.stage;
  if (stage !== 'awaiting_user_confirmation') throw Object.assign(new Error(`runtime ended ${stage}`), { op: 'runtime' });
}

/** An accepted match, ready to check out: intent → proposal → match → accept (each timed when `rec` counts them). */
async function acceptedMatch(c: number, i: number, rec: Recorder) {
  const m = merchants[(c + i) % merchants.length]!;
  const query = values.fanout === 'off' ? 'a sturdy water bottle for hiking' : `${TAG} a sturdy water bottle for hiking`;
  const { intent } = await timedOp(rec, 'intent', () => expect('intent', 201, '/v1/intents', { raw_query: query }));
  const offer = {
    merchant_agent_id: m.id,
    intent_id: intent.intent_id,
    product_id: product.product_id,
    offer_title: product.title,
    price: product.price_cents / 100,
    shipping_commitment: { max_days: 3, cost: SHIPPING_COST },
  };
  const { proposal } = await timedOp(rec, 'proposal', () =>
    expect('proposal', 201, '/v1/proposals', offer, { ...auth, 'x-merchant-token': m.token }),
  );
  const { match_session } = await timedOp(rec, 'match', () =>
    expect('match', 201, '/v1/match', { intent_id: intent.intent_id, proposal_ids: [proposal.proposal_id] }),
  );
  const accept = { proposal_id: proposal.proposal_id };
  const { match_token } = await timedOp(rec, 'match accept', () =>
    expect('match accept', 200, `/v1/match/${match_session.match_session_id}/accept`, accept),
  );
  return { intentId: intent.intent_id as string, proposalId: proposal.proposal_id as string, token: match_token };
}
type AcceptedMatch = Awaited<ReturnType<typeof acceptedMatch>>;

/** Checkout create, then confirm, on an accepted match: each timed, and the two together. */
async function createAndConfirm(a: AcceptedMatch, rec: Recorder) {
  const amount = (product.price_cents + SHIPPING_COST * 100) / 100;
  const started = performance.now();
  const created = await timedOp(rec, 'checkout create', () =>
    expect('checkout create', 201, '/v1/agentic-checkout', {
      buyer_agent_id: 'bench-buyer',
      intent_id: a.intentId,
      proposal_id: a.proposalId,
      match_token_id: a.token.match_token_id,
      amount,
      currency: 'USD',
      shipping_address: { name: 'Ada', line1: '1 Main St', city: 'Springfield', country: 'US' },
    }),
  );
  const consent = { granted: true, statement: 'I agree to buy this for the plan total.', granted_at: new Date().toISOString() };
  const confirmBody = { consent, match_token: a.token.signed_token, proposal_id: a.proposalId, amount, currency: 'USD' };
  const id = created.checkout.checkout_id as string;
  const confirmed = await timedOp(rec, 'checkout confirm', () =>
    expect('checkout confirm', 200, `/v1/agentic-checkout/${id}/confirm`, confirmBody),
  );
  if (confirmed.checkout.status !== 'confirmed')
    throw Object.assign(new Error(`checkout ${id} ${confirmed.checkout.status}`), { op: 'checkout confirm' });
  rec('checkout create+confirm', performance.now() - started);
}

async function checkoutIteration(c: number, i: number, rec: Recorder) {
  await createAndConfirm(await acceptedMatch(c, i, rec), rec);
}

/**
 * The accepted matches the `checkout-only` phase checks out, made before its clock runs (by the
 * phase's clients, untimed): enough for the target rate over the warm-up and the timed window, or
 * --pool. Once they are used up a client's iteration fails (`pool`), so an exhausted pool shows.
 */
const prepared: AcceptedMatch[] = [];
async function preparePool(size: number) {
  const started = performance.now();
  let made = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; made < size; i++) {
        made++;
        prepared.push(await acceptedMatch(c, i, () => {}));
      }
    }),
  );
  // Each prepared intent fanned out to the three merchants: those runs finish before the clock runs,
  // or their workflow tasks queue ahead of the first creates (which then waited ~10 s for theirs).
  for (let waited = 0; ; waited++) {
    const { count } = await temporal.client.workflow.count(`WorkflowType = 'intentSurge' AND ExecutionStatus = 'Running'`);
    if (count === 0) break;
    if (waited >= 120) throw new Error(`${count} fan-outs of the prepared intents still running after 60 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
  process.stderr.write(`  ${prepared.length} accepted matches prepared in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
async function checkoutOnlyIteration(_c: number, _i: number, rec: Recorder) {
  const a = prepared.pop();
  if (!a) throw Object.assign(new Error('the prepared accepted matches are used up (--pool)'), { op: 'pool' });
  await createAndConfirm(a, rec);
}

async function floorEmptyIteration(c: number, i: number, rec: Recorder) {
  await timedOp(rec, 'floor: empty workflow start → result', () =>
    temporal.client.workflow.execute(floorEmpty, {
      taskQueue: FLOOR_TASK_QUEUE,
      workflowId: `floor-empty-${process.pid}-${c}-${i}`,
      args: ['x'],
    }),
  );
}

async function floorUpdateIteration(c: number, i: number, rec: Recorder) {
  const started = performance.now();
  const handle = await temporal.client.workflow.start(floorUpdate, {
    taskQueue: FLOOR_TASK_QUEUE,
    workflowId: `floor-update-${process.pid}-${c}-${i}`,
  });
  await handle.executeUpdate(floorFinish, { args: ['done'] });
  rec('floor: empty workflow start + one Update', performance.now() - started);
  await handle.result();
}

const ITERATIONS: Record<string, (c: number, i: number, rec: Recorder) => Promise<void>> = {
  runtime: runtimeIteration,
  checkout: checkoutIteration,
  'checkout-only': checkoutOnlyIteration,
  mixed: (c, i, rec) => (c % 2 === 0 ? runtimeIteration(c, i, rec) : checkoutIteration(c, i, rec)),
  'floor-empty': floorEmptyIteration,
  'floor-update': floorUpdateIteration,
};

// ---------- the run ----------

const results: PhaseResult[] = [];
try {
  product = await stockedProduct(stack.db, 100);
  // Thousands of checkouts in a run: the product must not sell out half-way.
  await stack.db.updateTable('products').set({ inventory_qty: 10_000_000 }).where('product_id', '=', product.product_id).execute();
  for (const m of ['a', 'b', 'c']) {
    const id = `bench-load-${m}`;
    const reg = await post(
      base,
      '/v1/merchant/register',
      { merchant_id: id, agent_endpoint: await merchantsOnLoopback.add(), subscription_tags: [TAG] },
      auth,
    );
    merchants.push({ id, token: reg.registration_token as string });
  }
  // The gateway worker bundles its workflows at start too (tens of seconds on a loaded machine): the
  // smallest round trip through it, `ping`, answers once it polls.
  await temporal.client.workflow.execute('ping', {
    taskQueue: 'gateway',
    workflowId: `ping-bench-ready-${process.pid}`,
    args: ['ready'],
  });
  if (PHASES.some((p) => p.startsWith('floor'))) {
    // The floor worker bundles its workflows at start: wait for it before any clock runs.
    await temporal.client.workflow.execute(floorEmpty, {
      taskQueue: FLOOR_TASK_QUEUE,
      workflowId: `floor-ready-${process.pid}`,
      args: ['ready'],
    });
  }
  for (const p of PHASES) {
    const iteration = ITERATIONS[p];
    if (!iteration) throw new Error(`unknown phase ${p} (one of ${Object.keys(ITERATIONS).join(', ')})`);
    process.stderr.write(`phase ${p}: ${CLIENTS} clients, ${WARMUP} s warm-up + ${DURATION} s ...\n`);
    if (p === 'checkout-only') await preparePool(Number(values.pool ?? Math.ceil(CHECKOUT_POOL_RATE * (WARMUP + DURATION))));
    results.push(await phase(p, CLIENTS, iteration));
  }

  // ---------- report ----------
  const lines: string[] = [];
  lines.push(
    `machine: ${machine()}; load average before the report: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const answered = merchantsOnLoopback.counts;
  lines.push(
    `clients: ${CLIENTS}, closed loop; ${WARMUP} s warm-up + ${DURATION} s timed per phase; ` +
      `intent fan-out to the 3 merchants: ${values.fanout}; worker: ${WORKER === 'with-api' ? "in the API's process (npm start)" : 'its own process'}`,
    `merchant agents answered: ${answered.queries} runtime queries, ${answered.handoffs} handoffs, ` +
      `${answered.other} other POSTs (intent webhooks)`,
  );
  for (const r of results) {
    lines.push('', `### phase ${r.name}`, '');
    lines.push('| operation | completed | per s | p50 ms | p99 ms | max ms | failed |', '|---|---|---|---|---|---|---|');
    for (const [op, xs] of r.ops) {
      const s = [...xs].sort((a, b) => a - b);
      const cells = [
        op,
        s.length,
        (s.length / r.seconds).toFixed(1),
        pct(s, 0.5).toFixed(0),
        pct(s, 0.99).toFixed(0),
        s.at(-1)!.toFixed(0),
      ];
      lines.push(`| ${[...cells, r.failed.get(op) ?? 0].join(' | ')} |`);
    }
    for (const [op, n] of r.failed) if (!r.ops.has(op)) lines.push(`| ${op} | 0 | 0 | – | – | – | ${n} |`);
    if (r.firstError) lines.push('', `first error: ${r.firstError}`);
    lines.push('', ...cpuTable(r.cpu, os.cpus().length));
    // Postgres per completed unit of the phase's main operation (its first operation, e.g. one runtime).
    const units = [...r.ops.values()].reduce((n, xs) => Math.max(n, xs.length), 0);
    if (units) {
      const per = (x: number) => (x / units).toFixed(1);
      lines.push(
        '',
        `Postgres over the timed window: ${r.pg.commits} commits, ${r.pg.rowsWritten} rows written, ` +
          `${(r.pg.walBytes / 1024).toFixed(0)} KiB WAL (server-wide); per completed operation (${units}): ` +
          `${per(r.pg.commits)} commits, ${per(r.pg.rowsWritten)} rows, ${(r.pg.walBytes / units / 1024).toFixed(1)} KiB WAL`,
      );
    }
  }

  // Against the targets and the floors of this run.
  const find = (phaseName: string, op: string) => {
    const xs = results.find((r) => r.name === phaseName)?.ops.get(op);
    if (!xs?.length) return undefined;
    const s = [...xs].sort((a, b) => a - b);
    return { rate: s.length / DURATION, p50: pct(s, 0.5), p99: pct(s, 0.99) };
  };
  const runtime = find('runtime', 'runtime');
  const checkout = find('checkout', 'checkout create+confirm');
  const checkoutOnly = find('checkout-only', 'checkout create+confirm');
  const fe = find('floor-empty', 'floor: empty workflow start → result');
  const fu = find('floor-update', 'floor: empty workflow start + one Update');
  const fmt = (m?: { rate: number; p50: number; p99: number }) =>
    m ? `${m.rate.toFixed(1)}/s, p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms` : '–';
  const ratio = (m?: { rate: number; p50: number; p99: number }, f?: { rate: number; p50: number; p99: number }) =>
    m && f
      ? `throughput ${((m.rate / f.rate) * 100).toFixed(0)} % of the floor's; ` +
        `p50 ${(m.p50 / f.p50).toFixed(1)}×, p99 ${(m.p99 / f.p99).toFixed(1)}× the floor's`
      : '–';
  const met = (m: { rate: number; p99: number } | undefined, rate: number) =>
    m ? (m.rate >= rate && m.p99 <= 1000 ? 'met' : 'NOT met') : '–';
  lines.push('', '### against the targets', '');
  lines.push('| measure | this run | target | floor (same run) | flow / floor |', '|---|---|---|---|---|');
  const row = (cells: string[]) => lines.push(`| ${cells.join(' | ')} |`);
  const runtimeFloor = `${fmt(fe)} (empty workflow, start → result)`;
  const checkoutFloor = `${fmt(fu)} (empty workflow + one Update)`;
  row(['commerce runtime, 3 merchants each', fmt(runtime), `≥ 40/s, p99 ≤ 1 s: ${met(runtime, 40)}`, runtimeFloor, ratio(runtime, fe)]);
  row([
    'agentic checkout create+confirm, on accepted matches made before the clock (checkout-only)',
    fmt(checkoutOnly),
    `≥ ${CHECKOUT_TARGET_RATE}/s, p99 ≤ 1 s: ${met(checkoutOnly, CHECKOUT_TARGET_RATE)}`,
    checkoutFloor,
    ratio(checkoutOnly, fu),
  ]);
  row([
    'agentic checkout create+confirm, each client running the whole chain (checkout)',
    fmt(checkout),
    `≥ ${CHECKOUT_TARGET_RATE}/s, p99 ≤ 1 s: ${met(checkout, CHECKOUT_TARGET_RATE)}`,
    checkoutFloor,
    ratio(checkout, fu),
  ]);

  if (values['windows-file']) writeFileSync(values['windows-file'], JSON.stringify(windows));
  const cost = await temporalCost(temporal.client, FLOW_TYPES, { since, sample: Number(values.sample) });
  lines.push('', '### Temporal cost per flow (means over a sample of runs from this run)', '', ...costTable(cost));
  console.log(`\n${lines.join('\n')}`);
} finally {
  await temporal.connection.close();
  await stack.stop();
  merchantsOnLoopback.close();
}
