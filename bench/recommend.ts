/**
 * GET /v1/recommend, limit 3, over the seeded 20,000-product catalog (issue: recommendation and
 * proof). Targets at 50 connections: p50 ≤ 15 ms, p99 ≤ 60 ms, ≥ 300 req/s, with an authenticated
 * route whose only database work is the API-key lookup (GET /v1/whoami) as the floor, same run.
 * Every request is a different intent from the quality set (typos, budgets, regions, nonsense), and
 * every one writes its intent, three catalog proposals, three cards and a match session.
 *
 * Three passes: 50 connections flat out (the most the machine serves; latency there is mostly
 * queueing), an open-loop load of --rate req/s (default 300: the target rate) over at most 50
 * connections, requests due at an even pace and latency counted from when each was due
 * (`measureOpenLoop`), and one connection (no queueing: the service time of one request).
 *
 *   npm run bench:recommend [-- --duration 10 --connections 50 --rate 300]
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type autocannon from 'autocannon';
import { seedCatalog } from '../src/catalog/seed';
import { QUALITY_CASES } from '../test/recommend-quality.cases';
import { machine, measure, measureOpenLoop, startBenchStack } from './harness';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string', default: '300' },
  },
});
const duration = Number(values.duration);
const FLOOR = 'GET /v1/whoami (API key lookup: floor)';
const RECOMMEND = 'GET /v1/recommend (limit 3)';
const connections = Number(values.connections);

const paths = QUALITY_CASES.map(
  (c) => `/v1/recommend?${new URLSearchParams({ intent: c.query, limit: '3', ...(c.region ? { region: c.region } : {}) })}`,
);
let next = 0;
const nextPath = () => paths[next++ % paths.length]!;
const varied: autocannon.Request[] = [{ setupRequest: (req) => ({ ...req, path: nextPath() }) }];

const stack = await startBenchStack({ prepare: (db) => seedCatalog(db).then(() => undefined) });
try {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  console.log(`\nmachine: ${machine()}; ${duration} s per route; ${paths.length} distinct intents`);
  const rate = Number(values.rate);
  const passes = [
    {
      label: `${connections} connections, flat out`,
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, connections, duration),
      rec: () => measure(RECOMMEND, `${stack.base}/v1/recommend`, auth, connections, duration, { requests: varied }),
    },
    {
      label: `open loop, ${rate} req/s over at most ${connections} connections`,
      floor: () => measureOpenLoop(FLOOR, { base: stack.base, paths: () => '/v1/whoami', headers: auth, rate, connections, duration }),
      rec: () => measureOpenLoop(RECOMMEND, { base: stack.base, paths: nextPath, headers: auth, rate, connections, duration }),
    },
    {
      label: '1 connection',
      floor: () => measure(FLOOR, `${stack.base}/v1/whoami`, auth, 1, duration),
      rec: () => measure(RECOMMEND, `${stack.base}/v1/recommend`, auth, 1, duration, { requests: varied }),
    },
  ];
  for (const pass of passes) {
    // Each pass starts with the database's dirty pages written out: the seed's, and the previous
    // pass's (a flat-out pass leaves ~100 MB that the checkpointer and the kernel's writeback would
    // otherwise write during the next one). The pass's own writes stay in its measurement.
    await sql`checkpoint`.execute(stack.db);
    const floor = await pass.floor();
    const rec = await pass.rec();
    console.log(`\n${pass.label}\n`);
    console.log('| route | mean ms | p50 ms | p99 ms | req/s | requests | non-2xx/errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of [floor, rec])
      console.log(`| ${r.name} | ${r.mean.toFixed(2)} | ${r.p50} | ${r.p99} | ${r.rps} | ${r.requests} | ${r.failed} |`);
    console.log(
      `\nrecommend / floor: req/s ${(rec.rps / floor.rps).toFixed(2)}, p50 ${(rec.p50 / Math.max(1, floor.p50)).toFixed(1)}×, p99 ${(rec.p99 / Math.max(1, floor.p99)).toFixed(1)}× (targets: p50 ≤ 15 ms, p99 ≤ 60 ms, ≥ 300 req/s)`,
    );
  }
} finally {
  await stack.stop();
}
