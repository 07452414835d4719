import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { AttemptOutcome, DeliveryState } from '../db/schema-dispatch';
import { callMerchant } from '../outbound/merchant';
import { openWebhookSecret } from '../registry/secrets';
import { attemptDelayMs, parseRetryAfter } from './retry-schedule';

export interface AttemptDeps {
  db: Db;
  keyEncryptionKey: Buffer | undefined;
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
}

export interface AttemptInput {
  deliveryId: string;
  /** Attempt number across all runs of this delivery (1-based). */
  attempt: number;
  replay: number;
  /** This run's retry schedule and where in it this attempt stands. */
  schedule: number[];
  scheduleIndex: number;
  /** Drawn by the workflow (deterministic), so the jitter of the next wait is reproducible. */
  random: number;
}

export interface AttemptResult {
  state: DeliveryState;
  outcome: AttemptOutcome | 'skipped';
  statusCode: number | null;
  error: string | null;
  /** When state is pending: how long the workflow waits before the next attempt. */
  nextDelayMs: number | null;
}

interface Sent {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  retryAfterS: number | null;
  latencyMs: number;
}

/**
 * POSTs the stored payload, signed, and classifies the answer: 2xx in time is delivered; 410 is gone
 * for good; anything else (3xx and other 4xx included) is a failure that waits its turn in the
 * schedule, no shorter than a 429/503 Retry-After.
 */
async function send(deps: AttemptDeps, d: { delivery_id: string; endpoint: string; payload: string; secret: string }): Promise<Sent> {
  const answer = await callMerchant(deps, {
    endpoint: d.endpoint,
    messageId: d.delivery_id,
    body: d.payload,
    secret: d.secret,
    timeoutMs: deps.timeoutMs,
    maxBytes: 0,
    headersOnly: true,
  });
  const { status, latencyMs } = answer;
  if (status === null) {
    // A URL that now resolves to a private address stays refused on every retry: dead-letter at once.
    const outcome = answer.outcome === 'unsafe' ? 'unsafe_endpoint' : 'failed';
    return { outcome, statusCode: null, error: `${answer.failure!.reason}: ${answer.failure!.message}`, retryAfterS: null, latencyMs };
  }
  if (answer.outcome === 'accepted') return { outcome: 'delivered', statusCode: status, error: null, retryAfterS: null, latencyMs };
  if (status === 410) return { outcome: 'gone', statusCode: status, error: 'endpoint answered 410 Gone', retryAfterS: null, latencyMs };
  const retryAfterHeader = answer.headers['retry-after'] as string | undefined;
  const retryAfter = status === 429 || status === 503 ? parseRetryAfter(retryAfterHeader, new Date()) : null;
  return { outcome: 'failed', statusCode: status, error: `endpoint answered ${status}`, retryAfterS: retryAfter, latencyMs };
}

export async function attemptDelivery(deps: AttemptDeps, input: AttemptInput): Promise<AttemptResult> {
  const { db } = deps;
  const d = await db
    .selectFrom('deliveries as d')
    .innerJoin('merchants as m', 'm.merchant_id', 'd.merchant_id')
    .select([
      'd.delivery_id',
      'd.merchant_id',
      'd.state',
      'd.endpoint',
      'd.payload',
      'd.dlq_reason',
      'd.replays',
      'm.status as merchant_status',
      'm.webhook_secret_sealed',
    ])
    .where('d.delivery_id', '=', input.deliveryId)
    .executeTakeFirst();
  if (!d) return { state: 'dlq', outcome: 'skipped', statusCode: null, error: 'delivery not found', nextDelayMs: null };
  // A delivery is sent until it is delivered, never after (a re-run activity or replay finds it done).
  // A dead-lettered one says why, for the run that ends on it (the fan-out dead-lettered it first).
  // A run started for a dead letter that a replay claimed before the run's attempt (the fan-out starts
  // it after dead-lettering) would send beside the replay: the later replay owns the delivery now.
  if (d.replays > input.replay)
    return {
      state: 'dlq',
      outcome: 'skipped',
      statusCode: null,
      error: `replayed since (replay ${d.replays} sends it)`,
      nextDelayMs: null,
    };
  if (d.state === 'delivered' || d.state === 'dlq')
    return { state: d.state, outcome: 'skipped', statusCode: null, error: d.dlq_reason, nextDelayMs: null };
  // Parked unsent: what stands in the way is not the merchant's answer.
  const parkUnsent = async (reason: string): Promise<AttemptResult> => {
    await deadLetter(db, input.deliveryId, reason);
    return { state: 'dlq', outcome: 'skipped', statusCode: null, error: reason, nextDelayMs: null };
  };
  if (d.merchant_status !== 'active') return parkUnsent('merchant deactivated');

  let secret: string;
  try {
    secret = openWebhookSecret(deps.keyEncryptionKey, d.merchant_id, d.webhook_secret_sealed);
  } catch {
    // A configuration fault, not a merchant's: no retry fixes it, so the delivery waits in the
    // dead-letter queue, where a replay picks it up once the worker has the right key.
    return parkUnsent('webhook secret unreadable: the worker needs the KEY_ENCRYPTION_KEY the API sealed it with');
  }
  await db
    .updateTable('deliveries')
    .set({
      state: 'inflight',
      attempts: sql`greatest(attempts, ${input.attempt})`,
      last_attempt_at: sql`now()`,
      next_attempt_at: null,
      updated_at: sql`now()`,
    })
    .where('delivery_id', '=', input.deliveryId)
    .execute();
  const attemptedAt = new Date();
  const sent = await send(deps, { ...d, secret });
  await db
    .insertInto('delivery_attempts')
    .values({
      delivery_id: input.deliveryId,
      attempt: input.attempt,
      replay: input.replay,
      outcome: sent.outcome,
      status_code: sent.statusCode,
      error: sent.error,
      latency_ms: sent.latencyMs,
      retry_after_s: sent.retryAfterS,
      attempted_at: attemptedAt,
    })
    // The activity may run again after a worker crash: the attempt keeps its latest result.
    .onConflict((oc) =>
      oc.columns(['delivery_id', 'attempt']).doUpdateSet((eb) => ({
        outcome: eb.ref('excluded.outcome'),
        status_code: eb.ref('excluded.status_code'),
        error: eb.ref('excluded.error'),
        latency_ms: eb.ref('excluded.latency_ms'),
        retry_after_s: eb.ref('excluded.retry_after_s'),
        attempted_at: eb.ref('excluded.attempted_at'),
      })),
    )
    .execute();

  const base = { outcome: sent.outcome, statusCode: sent.statusCode, error: sent.error };
  if (sent.outcome === 'delivered') {
    await db
      .updateTable('deliveries')
      .set({ state: 'delivered', delivered_at: sql`now()`, updated_at: sql`now()` })
      .where('delivery_id', '=', input.deliveryId)
      .execute();
    return { ...base, state: 'delivered', nextDelayMs: null };
  }
  const nextDelayMs =
    sent.outcome === 'failed' ? attemptDelayMs(input.schedule, input.scheduleIndex + 1, () => input.random, sent.retryAfterS) : null;
  if (nextDelayMs === null) {
    const reason =
      sent.outcome === 'failed'
        ? `retry schedule exhausted after ${input.scheduleIndex + 1} attempt(s) in this run; last: ${sent.error}`
        : (sent.error ?? sent.outcome);
    await deadLetter(db, input.deliveryId, reason);
    return { ...base, state: 'dlq', nextDelayMs: null };
  }
  await db
    .updateTable('deliveries')
    .set({ state: 'pending', next_attempt_at: new Date(Date.now() + nextDelayMs), updated_at: sql`now()` })
    .where('delivery_id', '=', input.deliveryId)
    .where('state', '=', 'inflight')
    .execute();
  return { ...base, state: 'pending', nextDelayMs };
}

export async function deadLetter(db: Db, deliveryId: string, reason: string): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ state: 'dlq', dlq_at: sql`now()`, dlq_reason: reason, next_attempt_at: null, updated_at: sql`now()` })
    .where('delivery_id', '=', deliveryId)
    .where('state', '!=', 'delivered')
    .execute();
}
