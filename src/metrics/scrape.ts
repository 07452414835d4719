import { timingSafeEqual } from 'node:crypto';
import client from 'prom-client';

export { client };

/** Node's own process metrics (CPU, memory, heap, event-loop lag, GC), once per registry. */
const withDefaults = new WeakSet<client.Registry>();
export function collectProcessMetrics(registry: client.Registry): void {
  if (withDefaults.has(registry)) return;
  withDefaults.add(registry);
  client.collectDefaultMetrics({ register: registry });
}

/**
 * Whether a scrape may read the metrics: always when `METRICS_TOKEN` is unset (the endpoint then
 * serves counts and latencies only, no identifiers), else only with `Authorization: Bearer <token>`.
 */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export const METRICS_CONTENT_TYPE = client.Registry.PROMETHEUS_CONTENT_TYPE;
