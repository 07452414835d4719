import type { Db } from '../db/connect';
import type { MerchantRow } from '../db/schema';
import type { HEALTH_REASONS } from '../schemas/merchants';
import { endpointPolicy } from './endpoint-safety';
import { boundedRequest, OutboundError } from '../outbound/http';

/**
 * Health of a merchant agent: one bounded GET of its endpoint. A 2xx is healthy, and so is 405,
 * the usual answer of a webhook receiver that only takes POST: either proves the agent is up and
 * routing. Anything else, including a redirect (deliveries do not follow redirects either), is a
 * bad status. Every result is stored: supply SLA reports read them.
 */

export type HealthReason = (typeof HEALTH_REASONS)[number];

type HealthOutcome =
  | { healthy: true; latency_ms: number; http_status: number }
  | { healthy: false; reason: HealthReason; message: string; latency_ms: number | null; http_status: number | null };
export type HealthResult = HealthOutcome & { checked_at: Date };

const isAlive = (status: number) => (status >= 200 && status < 300) || status === 405;

async function probe(endpoint: string, timeoutMs: number, allowPrivate: boolean): Promise<HealthOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await boundedRequest(endpoint, {
      timeoutMs,
      maxBytes: 0,
      headersOnly: true,
      maxRedirects: 0,
      policy: endpointPolicy(allowPrivate),
      headers: { accept: 'application/json' },
    });
    if (isAlive(res.status)) return { healthy: true, latency_ms: elapsed(), http_status: res.status };
    return {
      healthy: false,
      reason: 'bad_status',
      message: `The agent endpoint answered HTTP ${res.status}.`,
      latency_ms: elapsed(),
      http_status: res.status,
    };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    const reason: HealthReason =
      err.reason === 'timeout' ? 'timeout' : err.reason === 'unsafe_endpoint' ? 'unsafe_endpoint' : 'unreachable';
    return {
      healthy: false,
      reason,
      message: `The agent endpoint is ${reason.replace('_', ' ')}: ${err.message}.`,
      latency_ms: reason === 'timeout' ? null : elapsed(),
      http_status: null,
    };
  }
}

export async function checkMerchantHealth(
  db: Db,
  merchant: MerchantRow,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<HealthResult> {
  const outcome: HealthOutcome =
    merchant.status === 'inactive'
      ? {
          healthy: false,
          reason: 'inactive',
          message: 'The merchant agent is deactivated; it is not probed.',
          latency_ms: null,
          http_status: null,
        }
      : await probe(merchant.agent_endpoint, opts.timeoutMs, opts.allowPrivate);
  const checked_at = new Date();
  await db
    .insertInto('merchant_health_probes')
    .values({
      merchant_id: merchant.merchant_id,
      healthy: outcome.healthy,
      reason: outcome.healthy ? null : outcome.reason,
      http_status: outcome.http_status,
      latency_ms: outcome.latency_ms,
      endpoint: merchant.agent_endpoint,
      checked_at,
    })
    .execute();
  return { ...outcome, checked_at };
}
