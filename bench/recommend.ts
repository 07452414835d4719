/**
 * GET /v1/recommend, limit 3, over the seeded 20,000-product catalog with every product embedded, so
 * the API ranks as shipped (SEMANTIC_SEARCH=on: the hybrid of full text and the semantic tier). With
 * an authenticated route whose only database work is the API-key lookup (GET /v1/whoami) as the
 * floor, same run. Every request writes its intent, the catalog proposals, the cards and a match
 * session.
 *
 * Two kinds of traffic:
 * - repeated sentences: the 100 intents of the quality set (typos, budgets, regions, nonsense) in
 *   turn, as agents repeat phrasings: after the first round every sentence's query vector and scan
 *   are in the semantic tier's caches. Targets (issue: recommendation and proof, and the semantic
 *   tier): p50 ≤ 15 ms, p99 ≤ 60 ms in the open loop at 300 req/s; ≥ 300 req/s.
 * - distinct sentences: a new shopper sentence every request (bench/shopper-sentences.ts), so every
 *   request runs the query encoder and a scan of the whole index. Target (the semantic tier):
 *   ≥ 100 req/s with p99 ≤ 150 ms, measured as the open loop at --distinct-rate (default 100) req/s.
 *
 * Passes, each after a CHECKPOINT: repeated sentences at --connections (default 50) flat out, in an
 * open loop at --rate (default 300) req/s, and at 1 connection; distinct sentences at
 * --distinct-connections (default 10) flat out (the most the machine serves them), in an open loop at
 * --distinct-rate, and at 1 connection (the service time of one request). Open loops send at an even
 * pace over at most --connections connections and count latency from when each request was due
 * (`measureOpenLoop`). Each pass reports the API's and Postgres' CPU milliseconds per recommendation
 * (bench/cpu.ts; the 2 s warm-up included), which load on a shared machine moves less than latency.
 * `--semantic off` runs the same passes with the API ranking by full text alone (SEMANTIC_SEARCH=off).
 *
 *   npm run bench:recommend [-- --duration 10 --connections 50 --rate 300 --distinct-connections 10 --distinct-rate 100
 *                              --semantic on|off --traffic repeated,distinct]
 *
 * `BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` profiles the API (bench/cpuprofile-top.ts reads it).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type autocannon from 'autocannon';
import { seedCatalog } from '../src/catalog/seed';
import { QUALITY_CASES } from '../test/recommend-quality.cases';
import { embedTestCatalog } from '../test/helpers/embeddings';
import { startCpuMeter } from './cpu';
import { json, machine, measure, measureOpenLoop, startBenchStack } from './harness';
import { distinctShopperSentences } from './shopper-sentences';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string', default: '300' },
    'distinct-connections': { type: 'string', default: '10' },
    'distinct-rate': { type: 'string', default: '100' },
    semantic: { type: 'string', default: 'on' },
    /** Which passes: repeated, distinct, or both (e.g. one kind alone under a CPU profile). */
    traffic: { type: 'string', default: 'repeated,distinct' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rate = Number(values.rate);
const distinctConnections = Number(values['distinct-connections']);
const distinctRate = Number(values['distinct-rate']);
const semantic = values.semantic;
if (semantic !== 'on' && semantic !== 'off') throw new Error(`--semantic must be on or off, got ${semantic}`);
const traffic = new Set(values.traffic.split(','));
if (![...traffic].every((t) => t === 'repeated' || t === 'distinct'))
  throw new Error(`--traffic takes repeated, distinct or both, got ${values.traffic}`);
const FLOOR = 'GET /v1/whoami (API key lookup: floor)';

const recommendPath = (intent: string, region?: string) =>
  `/v1/recommend?${new URLSearchParams({ intent, limit: '3', ...(region ? { region } : {}) })}`;

/** A source of request paths that counts what it handed out (the CPU per request divides by it). */
function pathSource(next: () => string) {
  const source = { issued: 0, next: () => (source.issued++, next()) };
  return source;
}

const repeatedPaths = QUALITY_CASES.map((c) => recommendPath(c.query, c.region));
let nextRepeated = 0;
const repeated = pathSource(() => repeatedPaths[nextRepeated++ % repeatedPaths.length]!);

// Enough for the distinct passes at their rates and then some; running out is an error, never a repeat.
const distinctSentences = distinctShopperSentences(Math.max(20_000, Math.ceil(distinctRate * (duration + 2) * 4)));
let nextDistinct = 0;
const distinct = pathSource(() => {
  const s = distinctSentences[nextDistinct++];
  if (s === undefined) throw new Error(`all ${distinctSentences.length} distinct sentences used: raise the count in bench/recommend.ts`);
  return recommendPath(s);
});

const varied = (source: { next: () => string }): autocannon.Request[] => [{ setupRequest: (req) => ({ ...req, path: source.next() }) }];

/**
 * The API process's memory in MB: resident set and its peak (Linux /proc), and its V8 heap in use
 * and memory outside the heap (array buffers, native) as its GET /metrics reports them (no GC forced).
 */
async function apiMemory(): Promise<{ rss: number; peak: number; heap: number; external: number }> {
  const status = readFileSync(`/proc/${stack.pids.api}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
  const metrics = await (await fetch(`${stack.base}/metrics`)).text();
  const gauge = (name: string) => Number(metrics.match(new RegExp(`^${name} (\\S+)`, 'm'))?.[1] ?? NaN);
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    rss: Math.round(kb('VmRSS') / 1024),
    peak: Math.round(kb('VmHWM') / 1024),
    heap: mb(gauge('nodejs_heap_size_used_bytes')),
    external: mb(gauge('nodejs_external_memory_bytes')),
  };
}
const describeMemory = (m: Awaited<ReturnType<typeof apiMemory>>) =>
  `RSS ${m.rss} MB (V8 heap used ${m.heap} MB, external ${m.external} MB)`;

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

const stack = await startBenchStack({
  prepare: async (db) => {
    await seedCatalog(db);
    // Every product's vector, as the catalog-embedding flow leaves them (read from the test run's
    // vector cache, so this takes seconds; bench/embedding.ts measures the walk itself).
    if (semantic === 'on') await embedTestCatalog(db);
  },
  env: { SEMANTIC_SEARCH: semantic },
});
try {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  console.log(
    `\nmachine: ${machine()}; ${new Date().toISOString()}; load average ${loadAverage()}; SEMANTIC_SEARCH=${semantic}; ` +
      `${duration} s per route; ${repeatedPaths.length} repeated intents`,
  );
  const memoryBefore = await apiMemory();
  // The first recommendation loads the query encoder and reads every product vector into the index.
  const t = performance.now();
  await json(`${stack.base}${recommendPath('a first sentence to load the semantic tier')}`, { headers: auth });
  const firstMs = performance.now() - t;
  const memoryLoaded = await apiMemory();
  console.log(
    `first recommendation ${firstMs.toFixed(0)} ms; API before it: ${describeMemory(memoryBefore)}; after it (encoder and index loaded): ${describeMemory(memoryLoaded)}`,
  );
  // The encoder alone is ~200 MB resident and the index of 20,000 vectors ~70 MB more: an API whose
  // recommendations did not load them is not ranking by meaning, and its figures would not be this benchmark's.
  if (semantic === 'on' && memoryLoaded.rss - memoryBefore.rss < 150)
    throw new Error(
      `the first recommendation did not load the semantic tier (API RSS +${memoryLoaded.rss - memoryBefore.rss} MB): ` +
        'is the semantic tier passed to recommend()? Run with --semantic off to measure full text alone.',
    );

  const passes = [
    {
      label: `repeated sentences, ${connections} connections, flat out`,
      source: repeated,
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, connections, duration),
      rec: () =>
        measure('GET /v1/recommend, repeated', `${stack.base}/v1/recommend`, auth, connections, duration, { requests: varied(repeated) }),
    },
    {
      label: `repeated sentences, open loop, ${rate} req/s over at most ${connections} connections (target: p50 ≤ 15 ms, p99 ≤ 60 ms)`,
      source: repeated,
      floor: () => measureOpenLoop(FLOOR, { base: stack.base, paths: () => '/v1/whoami', headers: auth, rate, connections, duration }),
      rec: () =>
        measureOpenLoop('GET /v1/recommend, repeated', {
          base: stack.base,
          paths: repeated.next,
          headers: auth,
          rate,
          connections,
          duration,
        }),
    },
    {
      label: 'repeated sentences, 1 connection',
      source: repeated,
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, 1, duration),
      rec: () => measure('GET /v1/recommend, repeated', `${stack.base}/v1/recommend`, auth, 1, duration, { requests: varied(repeated) }),
    },
    {
      label: `distinct sentences, ${distinctConnections} connections, flat out`,
      source: distinct,
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, distinctConnections, duration),
      rec: () =>
        measure('GET /v1/recommend, distinct', `${stack.base}/v1/recommend`, auth, distinctConnections, duration, {
          requests: varied(distinct),
        }),
    },
    {
      label: `distinct sentences, open loop, ${distinctRate} req/s over at most ${connections} connections (target: ≥ 100 req/s with p99 ≤ 150 ms)`,
      source: distinct,
      floor: () =>
        measureOpenLoop(FLOOR, { base: stack.base, paths: () => '/v1/whoami', headers: auth, rate: distinctRate, connections, duration }),
      rec: () =>
        measureOpenLoop('GET /v1/recommend, distinct', {
          base: stack.base,
          paths: distinct.next,
          headers: auth,
          rate: distinctRate,
          connections,
          duration,
        }),
    },
    {
      label: 'distinct sentences, 1 connection',
      source: distinct,
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, 1, duration),
      rec: () => measure('GET /v1/recommend, distinct', `${stack.base}/v1/recommend`, auth, 1, duration, { requests: varied(distinct) }),
    },
  ];
  for (const pass of passes.filter((p) => traffic.has(p.source === repeated ? 'repeated' : 'distinct'))) {
    // Each pass starts with the database's dirty pages written out: the seed's, and the previous
    // pass's (a flat-out pass leaves ~100 MB that the checkpointer and the kernel's writeback would
    // otherwise write during the next one). The pass's own writes stay in its measurement.
    await sql`checkpoint`.execute(stack.db);
    const floor = await pass.floor();
    const meter = startCpuMeter({ api: stack.pids.api }, stack.databaseUrl);
    await meter.ready;
    const issuedBefore = pass.source.issued;
    const rec = await pass.rec();
    const cpu = await meter.stop();
    const issued = pass.source.issued - issuedBefore;
    const perRequest = (s: number | undefined) => (((s ?? 0) * 1000) / Math.max(1, issued)).toFixed(1);
    console.log(`\n${pass.label}; load average ${loadAverage()}\n`);
    console.log('| route | mean ms | p50 ms | p99 ms | req/s | requests | non-2xx/errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of [floor, rec])
      console.log(`| ${r.name} | ${r.mean.toFixed(2)} | ${r.p50} | ${r.p99} | ${r.rps} | ${r.requests} | ${r.failed} |`);
    console.log(
      `\nrecommend / floor: req/s ${(rec.rps / floor.rps).toFixed(2)}, p50 ${(rec.p50 / Math.max(1, floor.p50)).toFixed(1)}×, ` +
        `p99 ${(rec.p99 / Math.max(1, floor.p99)).toFixed(1)}×; CPU per recommendation (warm-up included, ${issued} requests): ` +
        `API ${perRequest(cpu.cpu.api)} ms, Postgres ${perRequest(cpu.cpu.postgres)} ms`,
    );
  }
  const memoryAfter = await apiMemory();
  console.log(`\nAPI after the passes: ${describeMemory(memoryAfter)}, peak RSS ${memoryAfter.peak} MB; load average ${loadAverage()}`);
} finally {
  await stack.stop();
}
