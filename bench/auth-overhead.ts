/**
 * Auth + request-log overhead: an API-key-authenticated cheap call (GET /v1/whoami: key lookup,
 * scope check, buffered request log) against GET /healthz (Postgres + Temporal ping), same run,
 * autocannon, 50 connections. The static agent card (no I/O at all) is measured as a floor too.
 * Two passes: 50 connections flat out (latency there is mostly queueing behind the 2 cores), and one
 * connection (no queueing: latency is the service time, so the difference is the real overhead; the
 * mean has 0.01 ms resolution where autocannon's percentiles are whole milliseconds).
 *
 *   npm run bench:auth [-- --duration 10 --connections 50]
 *
 * Starts its own Temporal dev server, a scratch database and `npm run api` as a separate process.
 */
import { parseArgs } from 'node:util';
import { machine, measure as measureRoute, startBenchStack } from './harness';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } },
});
const duration = Number(values.duration);
const measure = (name: string, url: string, headers: Record<string, string>, connections: number) =>
  measureRoute(name, url, headers, connections, duration);

const stack = await startBenchStack();
const { base } = stack;
try {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  console.log(`\nmachine: ${machine()}; ${duration} s per route`);
  const ms = (x: number) => x.toFixed(2);
  for (const connections of [Number(values.connections), 1]) {
    const rows = [
      await measure('GET /.well-known/agent-card.json (no I/O)', `${base}/.well-known/agent-card.json`, {}, connections),
      await measure('GET /healthz (Postgres + Temporal ping)', `${base}/healthz`, {}, connections),
      await measure('GET /v1/whoami (API key + request log)', `${base}/v1/whoami`, auth, connections),
    ];
    const [floor, health, whoami] = rows as [(typeof rows)[number], (typeof rows)[number], (typeof rows)[number]];
    console.log(`\n${connections} connection(s)\n`);
    console.log('| route | mean ms | p50 ms | p99 ms | req/s | requests | non-2xx/errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.name} | ${ms(r.mean)} | ${r.p50} | ${r.p99} | ${r.rps} | ${r.requests} | ${r.failed} |`);
    console.log(
      `\nwhoami − healthz: mean ${ms(whoami.mean - health.mean)} ms, p50 ${whoami.p50 - health.p50} ms, p99 ${whoami.p99 - health.p99} ms (target: p50 ≤ 1 ms, p99 ≤ 3 ms)`,
    );
    console.log(
      `whoami − no-I/O floor: mean ${ms(whoami.mean - floor.mean)} ms, p50 ${whoami.p50 - floor.p50} ms, p99 ${whoami.p99 - floor.p99} ms`,
    );
  }
} finally {
  await stack.stop();
}
