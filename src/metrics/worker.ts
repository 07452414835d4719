import http from 'node:http';
import { sql } from 'kysely';
import { CancelledFailure } from '@temporalio/common';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import type { Db } from '../db/connect';
import { client, collectProcessMetrics, METRICS_CONTENT_TYPE, scrapeAllowed } from './scrape';

/**
 * The worker process's own metrics (docs/OPERATIONS.md), served with the Temporal SDK's runtime
 * metrics by the worker's listener (`WORKER_METRICS_PORT`).
 */
export const workerRegistry = new client.Registry();
collectProcessMetrics(workerRegistry);

const activityDuration = new client.Histogram({
  name: 'gateway_activity_duration_seconds',
  help: 'Activity execution time (local activities included, e.g. each delivery attempt), by activity type.',
  labelNames: ['activity'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60],
  registers: [workerRegistry],
});
const activityExecutions = new client.Counter({
  name: 'gateway_activity_executions_total',
  help: 'Activity executions by activity type and outcome (completed, failed, cancelled). A failed one may be retried.',
  labelNames: ['activity', 'outcome'] as const,
  registers: [workerRegistry],
});

/** Counts and times every activity this worker runs. */
export function activityMetricsInterceptor(ctx: ActivityContext): ActivityInterceptors {
  return {
    inbound: {
      async execute(input, next) {
        const activity = ctx.info.activityType;
        const started = performance.now();
        let outcome = 'failed';
        try {
          const result = await next(input);
          outcome = 'completed';
          return result;
        } catch (err) {
          if (err instanceof CancelledFailure) outcome = 'cancelled';
          throw err;
        } finally {
          activityDuration.observe({ activity }, (performance.now() - started) / 1000);
          activityExecutions.inc({ activity, outcome });
        }
      },
    },
  };
}

/** Delivery counts are read from Postgres at most this often, however many scrapers there are. */
const DELIVERY_COUNTS_TTL_MS = 15_000;
const DELIVERY_STATES = ['pending', 'inflight', 'dlq'] as const;
let deliveryDb: Db | undefined;
let deliveryCounts: { at: number; counts: Promise<Record<string, number>> } | undefined;

async function readDeliveryCounts(db: Db): Promise<Record<string, number>> {
  // The open states only: each is a short range of deliveries_state_idx; `delivered` grows without
  // bound and its rate is gateway_activity_executions_total of the delivery attempts.
  const rows = await sql<{ state: string; n: string }>`
    select state, count(*) as n from deliveries where state in ('pending', 'inflight', 'dlq') group by state`.execute(db);
  const counts: Record<string, number> = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0]));
  for (const r of rows.rows) counts[r.state] = Number(r.n);
  return counts;
}

async function currentDeliveryCounts(): Promise<Record<string, number> | undefined> {
  if (!deliveryDb) return undefined;
  if (!deliveryCounts || Date.now() - deliveryCounts.at > DELIVERY_COUNTS_TTL_MS) {
    const counts = readDeliveryCounts(deliveryDb);
    deliveryCounts = { at: Date.now(), counts };
    // A failed read is not cached: the next scrape tries again.
    counts.catch(() => (deliveryCounts = undefined));
  }
  return deliveryCounts.counts.catch(() => undefined);
}

new client.Gauge({
  name: 'gateway_deliveries',
  help: 'Intent.Surge deliveries not yet delivered, by state (pending, inflight, dlq); read from Postgres, at most 15 s old.',
  labelNames: ['state'] as const,
  registers: [workerRegistry],
  async collect() {
    const counts = await currentDeliveryCounts();
    if (counts) for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
  },
});
new client.Gauge({
  name: 'gateway_dlq_depth',
  help: 'Deliveries in the dead-letter queue (state dlq), waiting for a replay.',
  registers: [workerRegistry],
  async collect() {
    const counts = await currentDeliveryCounts();
    if (counts) this.set(counts.dlq ?? 0);
  },
});

/** Reports the delivery gauges from this database. */
export function observeDeliveries(db: Db): void {
  deliveryDb = db;
  deliveryCounts = undefined;
}

export interface WorkerMetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The worker's HTTP listener: `GET /metrics` (this registry, then the SDK's own Prometheus text read
 * from `sdkMetricsUrl`, so one scrape target covers both) and `GET /healthz` (200 while the worker
 * runs, for container health checks).
 */
export async function startWorkerMetricsServer(opts: {
  port: number;
  host?: string;
  token?: string;
  sdkMetricsUrl?: string;
  workerState: () => string;
}): Promise<WorkerMetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return reply(405, 'application/json', JSON.stringify({ error: 'method_not_allowed', message: 'GET only.' }));
    if (path === '/healthz') {
      const state = opts.workerState();
      return reply(
        state === 'RUNNING' ? 200 : 503,
        'application/json',
        JSON.stringify({ status: state === 'RUNNING' ? 'ok' : 'unavailable', worker: state }),
      );
    }
    if (path !== '/metrics')
      return reply(404, 'application/json', JSON.stringify({ error: 'not_found', message: 'GET /metrics or /healthz.' }));
    if (!scrapeAllowed(req.headers.authorization, opts.token))
      return reply(
        401,
        'application/json',
        JSON.stringify({ error: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' }),
      );
    void (async () => {
      const own = await workerRegistry.metrics();
      let sdk = '';
      if (opts.sdkMetricsUrl) {
        // The SDK exporter listens on loopback only; a slow or absent one costs this scrape 2 s at most.
        sdk = await fetch(opts.sdkMetricsUrl, { signal: AbortSignal.timeout(2000) })
          .then((r) => (r.ok ? r.text() : ''))
          .catch(() => '');
      }
      reply(200, METRICS_CONTENT_TYPE, sdk ? `${own}\n${sdk}` : own);
    })().catch((err) => reply(500, 'text/plain', String(err)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
