import { spawn } from 'node:child_process';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/net';
import { PROJECT_ROOT } from '../src/temporal/cli';

/**
 * What every benchmark stands on: a Temporal dev server, a scratch database (migrated, optionally
 * prepared), `npm run api` as its own process with rate limits out of the way, and an API key.
 */

/**
 * The q-quantile (0 < q ≤ 1) of ascending-sorted samples by the nearest-rank rule: the smallest sample
 * with at least q of all samples at or below it. Every benchmark reports percentiles with this one rule.
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export async function json(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

export const post = (base: string, p: string, body: unknown, headers: Record<string, string>) =>
  json(`${base}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** `extra`: further autocannon options, e.g. `requests` to vary the path (for a fixed offered load use `measureOpenLoop`). */
export async function measure(
  name: string,
  url: string,
  headers: Record<string, string>,
  connections: number,
  duration: number,
  extra: Partial<autocannon.Options> = {},
) {
  await autocannon({ url, connections, duration: 2, headers, ...extra }); // warm-up
  const r = await autocannon({ url, connections, duration, headers, ...extra });
  const non2xx = r.non2xx + r.errors + r.timeouts;
  return {
    name,
    mean: r.latency.mean,
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: Math.round(r.requests.average),
    requests: r.requests.total,
    failed: non2xx,
  };
}

/**
 * Open-loop load: requests are due at a constant rate whatever the server's pace, over at most
 * `connections` keep-alive connections, and each one's latency counts from when it was due, so
 * waiting for a free connection counts too. autocannon's `overallRate` is not this: each connection
 * sends its per-second quota back to back when the second starts and then idles, which is a burst
 * of flat-out load every second, and it records every response slower than 1 ms as if a series of
 * requests had been held back behind it, which inflates its percentiles.
 *
 * The generator's own pauses count as latency too: a benchmark that measures with it runs with a
 * 64 MB young generation (`tsx --max-semi-space-size=64` in package.json), without which the
 * generator's heap went through a 7–30 ms mark-compact about every second.
 */
export async function measureOpenLoop(
  name: string,
  opts: {
    base: string;
    paths: () => string;
    headers: Record<string, string>;
    rate: number;
    connections: number;
    duration: number;
    warmup?: number;
  },
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const { hostname, port } = new URL(opts.base);
  const run = (seconds: number) =>
    new Promise<{ latencies: number[]; failed: number; elapsed: number }>((resolve) => {
      const latencies: number[] = [];
      let failed = 0;
      let sent = 0;
      let open = 0;
      const total = Math.round(opts.rate * seconds);
      const started = performance.now();
      const finish = () => resolve({ latencies, failed, elapsed: (performance.now() - started) / 1000 });
      const send = (due: number) => {
        open++;
        const req = http.request({ agent, hostname, port, path: opts.paths(), headers: opts.headers }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode! >= 200 && res.statusCode! < 300) latencies.push(performance.now() - due);
            else failed++;
            if (--open === 0 && sent === total) finish();
          });
        });
        req.on('error', () => {
          failed++;
          if (--open === 0 && sent === total) finish();
        });
        req.end();
      };
      const tick = setInterval(() => {
        const now = performance.now();
        while (sent < total && started + (sent * 1000) / opts.rate <= now) send(started + (sent++ * 1000) / opts.rate);
        if (sent === total) clearInterval(tick);
      }, 1);
    });
  await run(opts.warmup ?? 2);
  const r = await run(opts.duration);
  agent.destroy();
  const sorted = r.latencies.sort((a, b) => a - b);
  // Whole milliseconds, like autocannon's percentiles, so both kinds of run compare.
  const pct = (q: number) => Math.round(percentile(sorted, q));
  return {
    name,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    p50: pct(0.5),
    p99: pct(0.99),
    rps: Math.round(sorted.length / r.elapsed),
    requests: sorted.length,
    failed: r.failed,
  };
}

/** The Node flags an npm script passes to tsx (`"api": "tsx --flag … api/main.ts"`). */
function npmScriptNodeFlags(script: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return pkg.scripts[script]!.split(/\s+/).filter((word) => word.startsWith('--'));
}

export const machine = () => `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;

export interface BenchStack {
  base: string;
  apiKey: string;
  db: Db;
  databaseUrl: string;
  temporalAddress: string;
  /**
   * The processes a benchmark splits CPU time by (bench/cpu.ts); `extra` are the `extraProcesses` by
   * name. With the worker 'with-api', `worker` is the API's process.
   */
  pids: { api: number; worker?: number; temporal: number; extra: Record<string, number> };
  stop(): Promise<void>;
}

export const BENCH_SUPPLY_KEY = 'bench-supply-key-0123456789';

export async function startBenchStack(
  opts: {
    prepare?: (db: Db) => Promise<void>;
    env?: Record<string, string>;
    /**
     * The gateway's worker: 'own-process' runs `npm run api` and `npm run worker` as two processes
     * (a deployment's shape); 'with-api' runs `npm start`'s one process (bin/all-in-one.ts: the API
     * and the worker share a Temporal connection, so new runs start eagerly). Absent: the API alone.
     */
    worker?: 'own-process' | 'with-api';
    /** More processes of the benchmark's own on the same env, e.g. a worker for floor workflows: name → entry file. */
    extraProcesses?: Record<string, string>;
  } = {},
): Promise<BenchStack> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-bench-'));
  const database = await createScratchDatabase({ tmpDir: tmp, prefix: 'cig_bench' });
  const temporal = await startDevServer({ port: await freePort(), dbFile: path.join(tmp, 'temporal.db') });
  const db = createDb(database.url);
  await migrateToLatest(db);
  await opts.prepare?.(db);

  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    INVITE_CODES: 'bench-invite',
    SUPPLY_KEY: BENCH_SUPPLY_KEY,
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_IP: '100000000',
    REGISTER_RATE_LIMIT_PER_IP: '100000000',
    LOGIN_RATE_LIMIT_PER_IP: '100000000',
    LOG_LEVEL: 'warn',
    // The worker's metrics listener on a free port, not the fixed default another run may hold.
    WORKER_METRICS_PORT: String(await freePort()),
    ...opts.env,
  };
  // The API runs with the Node flags of `npm run api` (its young generation), or of `npm start` when
  // the worker shares its process; BENCH_API_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
  // adds more, to profile the API under load. BENCH_WORKER_NODE_ARGS does the same for the worker.
  const nodeFlags = (name: string) => (process.env[name] ?? '').split(/\s+/).filter(Boolean);
  const [apiArgs, workerArgs] = [nodeFlags('BENCH_API_NODE_ARGS'), nodeFlags('BENCH_WORKER_NODE_ARGS')];
  const spawnEntry = (entry: string, args: string[] = []) =>
    spawn(process.execPath, [...args, '--import', 'tsx', entry], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'], env });
  const api =
    opts.worker === 'with-api'
      ? spawnEntry('bin/all-in-one.ts', [...npmScriptNodeFlags('start'), ...apiArgs, ...workerArgs])
      : spawnEntry('api/main.ts', [...npmScriptNodeFlags('api'), ...apiArgs]);
  const worker = opts.worker === 'own-process' ? spawnEntry('worker/main.ts', workerArgs) : undefined;
  const extra = Object.entries(opts.extraProcesses ?? {}).map(([name, entry]) => [name, spawnEntry(entry)] as const);
  const processes = [api, ...(worker ? [worker] : []), ...extra.map(([, p]) => p)];
  const stop = async () => {
    await Promise.all(
      processes.map((p) => {
        if (p.exitCode !== null || p.signalCode !== null) return undefined;
        const exited = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        return exited;
      }),
    );
    await db.destroy();
    await temporal.stop();
    await database.drop();
    await rm(tmp, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        // Not listening yet: try again below.
      }
      if (i > 100) throw new Error('API did not come up');
      await new Promise((r) => setTimeout(r, 200));
    }
    const reg = await post(
      base,
      '/v1/developers/register',
      {
        display_name: 'Bench',
        contact_email: `bench${Date.now()}@example.com`,
        password: 'benchmark-password',
        invite_code: 'bench-invite',
      },
      {},
    );
    const key = await post(base, '/v1/developers/keys', {}, { authorization: `Bearer ${reg.developer_token}` });
    const extraPids = Object.fromEntries(extra.map(([n, p]) => [n, p.pid!]));
    const pids = {
      api: api.pid!,
      worker: opts.worker === 'with-api' ? api.pid! : worker?.pid,
      temporal: temporal.process.pid!,
      extra: extraPids,
    };
    return { base, apiKey: key.api_key, db, databaseUrl: database.url, temporalAddress: temporal.address, pids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
