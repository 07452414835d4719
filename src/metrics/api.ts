import type pg from 'pg';
import { client, collectProcessMetrics } from './scrape';

/**
 * The API process's Prometheus metrics (served at `GET /metrics`, docs/OPERATIONS.md). One registry
 * per process: every app built in it (tests build many) counts into the same series.
 */
export const apiRegistry = new client.Registry();
collectProcessMetrics(apiRegistry);

const httpRequests = new client.Counter({
  name: 'gateway_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [apiRegistry],
});
const httpDuration = new client.Histogram({
  name: 'gateway_http_request_duration_seconds',
  help: 'Time from the first middleware to the response being ready, by method and route template.',
  labelNames: ['method', 'route'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [apiRegistry],
});
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

// Label children cached per label set: the per-request cost is two map lookups and the observations.
const requestChildren = new Map<string, ReturnType<typeof httpRequests.labels>>();
const durationChildren = new Map<string, ReturnType<typeof httpDuration.labels>>();

/** Routes served by their own middleware rather than the router (no route template to read). */
const MIDDLEWARE_ROUTES = new Set(['/mcp', '/a2a', '/metrics']);

/**
 * Records one answered request. `route` is the router's template (`/v1/match/:sessionId`), so
 * ids never become label values; requests no route matched count as `unmatched`.
 */
export function recordRequest(method: string, matchedRoute: unknown, path: string, status: number, seconds: number, errorCode: unknown): void {
  const route = typeof matchedRoute === 'string' ? matchedRoute : MIDDLEWARE_ROUTES.has(path) ? path : 'unmatched';
  const key = `${method} ${route} ${status}`;
  let counter = requestChildren.get(key);
  if (!counter) requestChildren.set(key, (counter = httpRequests.labels(method, route, String(status))));
  counter.inc();
  const dkey = `${method} ${route}`;
  let histogram = durationChildren.get(dkey);
  if (!histogram) durationChildren.set(dkey, (histogram = httpDuration.labels(method, route)));
  histogram.observe(seconds);
  if (status >= 400) httpErrors.inc({ route, status: String(status), code: typeof errorCode === 'string' ? errorCode.slice(0, 64) : 'none' });
}
