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
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/net';
import { PROJECT_ROOT } from '../src/temporal/cli';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } },
});
const duration = Number(values.duration);

async function json(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

async function measure(name: string, url: string, headers: Record<string, string>, connections: number) {
  await autocannon({ url, connections, duration: 2, headers }); // warm-up
  const r = await autocannon({ url, connections, duration, headers });
  const non2xx = r.non2xx + r.errors + r.timeouts;
  return { name, mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, rps: Math.round(r.requests.average), requests: r.requests.total, failed: non2xx };
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-'));
const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench' });
const temporal = await startDevServer({ port: await freePort(), dbFile: path.join(tmp, 'temporal.db') });
const db = createDb(database.url);
await migrateToLatest(db);
await db.destroy();

const port = await freePort();
const api = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
  cwd: PROJECT_ROOT,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    INVITE_CODES: 'bench-invite',
    SUPPLY_KEY: 'bench-supply-key-0123456789',
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_IP: '100000000',
    LOG_LEVEL: 'warn',
  },
});
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    if (i > 100) throw new Error('API did not come up');
    await new Promise((r) => setTimeout(r, 200));
  }
  const reg = await json(`${base}/v1/developers/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: 'Bench', contact_email: `bench${Date.now()}@example.com`, password: 'benchmark-password', invite_code: 'bench-invite' }),
  });
  const key = await json(`${base}/v1/developers/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.developer_token}` },
    body: '{}',
  });

  const auth = { authorization: `Bearer ${key.api_key}` };
  console.log(`\nmachine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}; ${duration} s per route`);
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
    console.log(`\nwhoami − healthz: mean ${ms(whoami.mean - health.mean)} ms, p50 ${whoami.p50 - health.p50} ms, p99 ${whoami.p99 - health.p99} ms (target: p50 ≤ 1 ms, p99 ≤ 3 ms)`);
    console.log(`whoami − no-I/O floor: mean ${ms(whoami.mean - floor.mean)} ms, p50 ${whoami.p50 - floor.p50} ms, p99 ${whoami.p99 - floor.p99} ms`);
  }
} finally {
  api.kill('SIGTERM');
  await new Promise((r) => api.once('exit', r));
  await temporal.stop();
  await database.drop();
  await rm(tmp, { recursive: true, force: true });
}
