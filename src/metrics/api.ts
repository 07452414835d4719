import type pg from 'pg';
import { client, collectProcessMetrics } from './scrape';

/**
 * The API process's Prometheus metrics (served at `GET /metrics`, docs/OPERATIONS.md). One registry
 * per process: every app built in it (tests build many) counts into the same series.
 */
export const apiRegistry = new client.Registry();
collectProcessMetrics(apiRegistry);

/**
 * Requests and their latency are accumulated in plain maps and turned into Prometheus series only
 * when scraped: prom-client hashes the label set on every observation (microseconds per request
 * under load), this costs a map lookup and a few additions.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
interface RouteStats {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Observations per bucket, not cumulative; the last slot is above the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}
const routeStats = new Map<string, RouteStats>();

type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };
/** A series family rendered from `values()` at scrape time (prom-client's registry formats it). */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
  };
  apiRegistry.registerMetric(metric as unknown as client.Metric);
}

scrapedMetric('gateway_http_requests_total', 'HTTP requests answered, by method, route template and status code.', 'counter', () => {
  const out: Sample[] = [];
  for (const s of routeStats.values())
    for (const [status, n] of s.byStatus) out.push({ value: n, labels: { method: s.method, route: s.route, status } });
  return out;
});
scrapedMetric(
  'gateway_http_request_duration_seconds',
  'Time from the first middleware to the response being ready, by method and route template.',
  'histogram',
  () => {
    const out: Sample[] = [];
    const name = 'gateway_http_request_duration_seconds';
    for (const s of routeStats.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        out.push({ metricName: `${name}_bucket`, value: cumulative, labels: { le, method: s.method, route: s.route } });
      });
      out.push({ metricName: `${name}_bucket`, value: s.count, labels: { le: '+Inf', method: s.method, route: s.route } });
      out.push({ metricName: `${name}_sum`, value: s.sum, labels: { method: s.method, route: s.route } });
      out.push({ metricName: `${name}_count`, value: s.count, labels: { method: s.method, route: s.route } });
    }
    return out;
  },
);
const httpErrors = new client.Counter({
  name: 'gateway_http_errors_total',
  help: 'Error answers (status >= 400) by route template, status and error code (the `error` field of the body).',
  labelNames: ['route', 'status', 'code'] as const,
  registers: [apiRegistry],
});
const idempotencyReplays = new client.Counter({
  name: 'gateway_idempotency_replays_total',
  help: 'POSTs answered from a stored response for a repeated Idempotency-Key.',
  registers: [apiRegistry],
});
const rateLimitRejections = new client.Counter({
  name: 'gateway_rate_limit_rejections_total',
  help: 'Requests refused with 429 rate_limited, by limiter (key, ip, demo).',
  labelNames: ['limiter'] as const,
  registers: [apiRegistry],
});

const pools = new Set<pg.Pool>();
new client.Gauge({
  name: 'gateway_db_pool_connections',
  help: "Postgres connections of the process's query pools: total open, idle, and clients waiting for one.",
  labelNames: ['state'] as const,
  registers: [apiRegistry],
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      if ((pool as { ended?: boolean }).ended) {
        pools.delete(pool);
        continue;
      }
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: 'total' }, total);
    this.set({ state: 'idle' }, idle);
    this.set({ state: 'waiting' }, waiting);
  },
});

/** Reports a pool in gateway_db_pool_connections until it is ended. */
export function observeDbPool(pool: pg.Pool | undefined): void {
  if (pool) pools.add(pool);
}

export function countIdempotencyReplay(): void {
  idempotencyReplays.inc();
}

export function countRateLimitRejection(limiter: string): void {
  rateLimitRejections.inc({ limiter });
}

/** Routes served by their own middleware rather than the router (no route template to read). */
const MIDDLEWARE_ROUTES = new Set(['/mcp', '/a2a', '/metrics']);

/**
 * Records one answered request. `route` is the router's template (`/v1/match/:sessionId`), so
 * ids never become label values; requests no route matched count as `unmatched`.
 */
export function recordRequest(
  method: string,
  matchedRoute: unknown,
  path: string,
  status: number,
  seconds: number,
  errorCode: unknown,
): void {
  const route = typeof matchedRoute === 'string' ? matchedRoute : MIDDLEWARE_ROUTES.has(path) ? path : 'unmatched';
  const key = `${method} ${route}`;
  let stats = routeStats.get(key);
  if (!stats)
    routeStats.set(
      key,
      (stats = { method, route, byStatus: new Map(), buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 }),
    );
  stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
  let i = 0;
  while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
  stats.buckets[i] = stats.buckets[i]! + 1;
  stats.sum += seconds;
  stats.count++;
  if (status >= 400)
    httpErrors.inc({ route, status: String(status), code: typeof errorCode === 'string' ? errorCode.slice(0, 64) : 'none' });
}
