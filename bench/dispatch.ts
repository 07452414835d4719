/**
 * Intent.Surge fan-out at scale (issue: dispatch). Targets: one intent fanned out to 1,000 subscribed
 * merchants served by one loopback sink, all delivered in ≤ 15 s; a replay of 1,000 dead-lettered
 * deliveries delivered in ≤ 30 s. On the Temporal CLI dev server, API and worker as their own processes.
 * Throughput targets (issue: throughput under load): all first attempts delivered in ≤ 2.5 s, the first
 * webhook ≤ 100 ms after the intent's 201. Their floor, in the same run: a raw blast of the same
 * number of POSTs (a real delivery's body) from this process to the same sink, over at most
 * --blast-connections keep-alive connections. The run ends with what a fan-out and a delivery cost
 * Temporal (bench/temporal-cost.ts): the fan-out sends first attempts itself, so a delivery has a run of
 * its own only when it needs a retry or ends dead-lettered (the replay's deliveries here).
 *
 *   npm run bench:dispatch [-- --merchants 1000 --blast-connections 100]
 *
 * The retry schedule is a single attempt (DISPATCH_RETRY_SCHEDULE=0) so that the second intent's
 * deliveries, sent while the sink refuses, dead-letter at once and can be replayed.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { connectTemporal } from '../src/temporal/client';
import { BENCH_SUPPLY_KEY, json, machine, post, startBenchStack } from './harness';
import { costTable, temporalCost, type FlowCost } from './temporal-cost';
import { pgCostBetween, readPgCounters } from './pg-cost';

const { values } = parseArgs({
  options: { merchants: { type: 'string', default: '1000' }, 'blast-connections': { type: 'string', default: '100' } },
});
const N = Number(values.merchants);

// One sink for every merchant: counts 2xx answers per webhook-id; refuses with 500 while `down`.
// It keeps the first delivery's body (what the raw blast sends) and when the first webhook came.
let down = false;
const delivered = new Map<string, number>();
let received = 0;
let sampleBody: string | undefined;
let firstWebhookAt: number | undefined;
let blastAnswered = 0;
const sink = http.createServer((req, res) => {
  if (req.headers['x-bench-blast']) {
    req.resume();
    req.on('end', () => {
      blastAnswered++;
      res.writeHead(204).end();
    });
    return;
  }
  received++;
  firstWebhookAt ??= performance.now();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => sampleBody === undefined && chunks.push(c));
  req.on('end', () => {
    sampleBody ??= Buffer.concat(chunks).toString();
    if (down) {
      res.writeHead(500).end();
      return;
    }
    const id = String(req.headers['webhook-id']);
    delivered.set(id, (delivered.get(id) ?? 0) + 1);
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}/hook`;

/** The floor: N POSTs of a delivery's body to the sink, all at once over at most `connections` connections. */
async function rawBlast(body: string, connections: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port, pathname } = new URL(sinkUrl);
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: N },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const headers = { 'content-type': 'application/json', 'webhook-id': `blast-${i}`, 'x-bench-blast': '1' };
          const req = http.request({ agent, hostname, port, path: pathname, method: 'POST', headers }, (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`blast answered ${res.statusCode}`))));
          });
          req.on('error', reject);
          req.end(body);
        }),
    ),
  );
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

const stack = await startBenchStack({ worker: 'own-process', env: { ALLOW_PRIVATE_ENDPOINTS: 'true', DISPATCH_RETRY_SCHEDULE: '0' } });
const { base } = stack;
const temporal = await connectTemporal(stack.temporalAddress, 'default', 'gateway');
const auth = { authorization: `Bearer ${stack.apiKey}` };
const supply = { 'x-supply-key': BENCH_SUPPLY_KEY };

async function summary(intentId: string) {
  return (await json(`${base}/v1/merchant/dispatch-queue?intent_id=${intentId}&limit=1`, { headers: supply })).summary as Record<
    string,
    number
  >;
}

async function until(intentId: string, state: 'delivered' | 'dlq', timeoutMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const s = await summary(intentId);
    if (s[state] === N) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`${intentId}: ${JSON.stringify(s)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

try {
  const tag = 'benchsurge';
  for (let i = 0; i < N; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, N - i) }, (_, k) =>
        post(
          base,
          '/v1/merchant/register',
          { merchant_id: `bench-${String(i + k).padStart(5, '0')}`, agent_endpoint: sinkUrl, subscription_tags: [tag] },
          auth,
        ),
      ),
    );
  }

  // A fresh worker runs its first workflow task only after loading the workflow bundle (seconds on a
  // busy machine): one fan-out to nobody first, so the figures below are a running worker's.
  const warmUp = await post(base, '/v1/intents', { raw_query: 'benchwarmup kettle descaler' }, auth);
  await temporal.client.workflow.getHandle(`surge-${warmUp.intent.intent_id}`).result();

  // 1. Fan-out: from the intent's creation to the last 2xx.
  const since = new Date(Date.now() - 1000);
  firstWebhookAt = undefined; // a registration's probe is not a webhook of the intent
  const pgBefore = await readPgCounters(stack.databaseUrl);
  const t0 = performance.now();
  const first = await post(base, '/v1/intents', { raw_query: `${tag} noise cancelling headphones` }, auth);
  const answered = performance.now();
  const answeredAt = Date.now();
  await until(first.intent.intent_id, 'delivered', 120_000);
  const fanOutTotal = performance.now() - t0;
  const dupFirst = [...delivered.values()].filter((n) => n > 1).length;
  // The last delivery is recorded before the page's activity reports back: the fan-out closes just after.
  const surgeHandle = temporal.client.workflow.getHandle(`surge-${first.intent.intent_id}`);
  await surgeHandle.result();
  const fanOutPg = await pgCostBetween(stack.databaseUrl, pgBefore, await readPgCounters(stack.databaseUrl));
  const surge = await surgeHandle.describe();
  const surgeMs = surge.closeTime!.getTime() - surge.startTime.getTime();
  // Where the time to the first webhook goes: the fan-out's start, its first workflow task and its first page activity, by the server's clock.
  const surgeEvents = (await surgeHandle.fetchHistory()).events ?? [];
  // (A fan-out whose first page's head is a local activity sends it in its first workflow task; its
  // first activity is then the rest of that page.)
  const firstTaskAt = surgeEvents.find((e) => e.workflowTaskStartedEventAttributes)?.eventTime;
  const firstPageAt = surgeEvents.find((e) => e.activityTaskStartedEventAttributes)?.eventTime;
  const headLocal = surgeEvents.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  const sinceAnswer = (t: number) => `${t - answeredAt >= 0 ? '+' : ''}${(t - answeredAt).toFixed(0)} ms`;
  const at = (t: typeof firstPageAt) => (t ? sinceAnswer(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)) : '?');
  const firstPage = `its first workflow task ${at(firstTaskAt)}${headLocal ? ' (which sends the first page head, a local activity)' : ''}, its first page activity ${at(firstPageAt)}`;

  // 2. The floor: the same number of POSTs of a real delivery's body, straight from here.
  const blastMs = await rawBlast(sampleBody!, Number(values['blast-connections']));
  const fanOutCost = await temporalCost(temporal.client, { 'intent fan-out': 'intentSurge', delivery: 'delivery' }, { since, sample: 50 });
  // A delivery has a run of its own only when the fan-out's first attempt did not deliver it: what one
  // delivery costs is the fan-out's runs plus however many delivery runs there were, over N.
  const deliveryRuns = (await temporal.client.workflow.count(`WorkflowType = 'delivery' AND StartTime >= '${since.toISOString()}'`)).count;
  const [surgeCost, runCost] = fanOutCost as [FlowCost, FlowCost];
  const perDelivery = (get: (r: FlowCost) => number) => ((get(surgeCost) * surgeCost.runs + get(runCost) * deliveryRuns) / N).toFixed(2);

  // Printed now: a replay that runs out of time below still leaves the fan-out's figures.
  console.log(`\nmachine: ${machine()}`);
  console.log(`merchants: ${N}; webhook-ids answered 2xx more than once in the fan-out: ${dupFirst}`);
  console.log('\n| operation | result | target |');
  console.log('|---|---|---|');
  const row = (cells: string[]) => console.log(`| ${cells.join(' | ')} |`);
  const s = (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`;
  row([
    `fan-out of 1 intent to ${N} merchants: intent created → all delivered`,
    `${s(fanOutTotal)} (${(N / (fanOutTotal / 1000)).toFixed(0)} deliveries/s; ` +
      `the fan-out workflow sent all ${N} first attempts and closed in ${s(surgeMs)})`,
    '≤ 15 s; ≤ 2.5 s',
  ]);
  row([
    "first webhook after the intent's 201",
    `${(firstWebhookAt! - answered).toFixed(0)} ms (the 201 came ${(answered - t0).toFixed(0)} ms after the POST; ` +
      `from the 201: fan-out started ${sinceAnswer(surge.startTime.getTime())}, ${firstPage})`,
    '≤ 100 ms',
  ]);
  row([
    `floor: raw blast of ${N} POSTs (a delivery's ${sampleBody!.length}-byte body) to the same sink, ` +
      `≤ ${values['blast-connections']} connections`,
    `${s(blastMs, 2)} (${(N / (blastMs / 1000)).toFixed(0)}/s; ${blastAnswered} answered); ` +
      `fan-out / floor: ${(fanOutTotal / blastMs).toFixed(1)}×`,
    '—',
  ]);

  // Commits count every statement outside a transaction (reads too), the API's and this benchmark's queue polls (every 100 ms) included.
  row([
    "Postgres cost per delivery of the fan-out (the intent's creation included)",
    `${(fanOutPg.commits / N).toFixed(2)} commits, ${(fanOutPg.rowsWritten / N).toFixed(2)} rows written`,
    '—',
  ]);
  row([
    'Temporal cost per delivery of the fan-out',
    `${perDelivery((r) => r.events)} history events, ${perDelivery((r) => r.workflowTasks)} workflow tasks, ` +
      `${perDelivery((r) => r.activityTasks)} activity tasks (${surgeCost.runs} fan-out run(s), ${deliveryRuns} delivery run(s))`,
    '—',
  ]);

  // 3. Dead-letter N deliveries, then replay them all once the sink is back.
  const since2 = new Date(Date.now() - 1000);
  down = true;
  const second = await post(base, '/v1/intents', { raw_query: `${tag} mechanical keyboard` }, auth);
  await until(second.intent.intent_id, 'dlq', 120_000);
  down = false;
  const pgBeforeReplay = await readPgCounters(stack.databaseUrl);
  const t1 = performance.now();
  const retry = await post(base, '/v1/merchant/dispatch-queue/retry', {}, supply);
  const scheduledMs = performance.now() - t1;
  await until(second.intent.intent_id, 'delivered', 120_000);
  const replayTotal = performance.now() - t1;
  const replayPg = await pgCostBetween(stack.databaseUrl, pgBeforeReplay, await readPgCounters(stack.databaseUrl));
  const duplicates = [...delivered.values()].filter((n) => n > 1).length;
  const replayFlows = { 'dead-letter replay': 'dlqReplay', 'delivery (dead-lettered or replayed)': 'delivery' };
  const replayCost = await temporalCost(temporal.client, replayFlows, { since: since2, sample: 50 });

  row([
    `replay of ${N} dead-lettered deliveries: retry call → all delivered`,
    `${s(replayTotal)} (retry call answered in ${s(scheduledMs)} with scheduled=${retry.scheduled}, status ${retry.status}; ` +
      `${(replayPg.commits / N).toFixed(2)} Postgres commits per delivery)`,
    '≤ 30 s',
  ]);
  console.log(`\nsink requests: ${received}; webhook-ids answered 2xx more than once: ${duplicates}`);
  console.log('\nTemporal cost per flow (means over a sample of runs from this run; the fan-out, then the replay):\n');
  console.log(costTable([...fanOutCost, ...replayCost]).join('\n'));
} finally {
  await temporal.connection.close();
  await stack.stop();
  sink.close();
  sink.closeAllConnections();
}
