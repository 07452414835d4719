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

/** A sent attempt's consequence for its delivery: delivered, pending (the next wait) or dead-lettered (why). */
export interface AttemptVerdict {
  state: 'delivered' | 'pending' | 'dlq';
  nextDelayMs: number | null;
  dlqReason: string | null;
}

/** What a sent attempt means, given where in the retry schedule it stood (one rule for every sender). */
export function verdictOf(
  sent: Pick<Sent, 'outcome' | 'error' | 'retryAfterS'>,
  at: Pick<AttemptInput, 'schedule' | 'scheduleIndex' | 'random'>,
): AttemptVerdict {
  if (sent.outcome === 'delivered') return { state: 'delivered', nextDelayMs: null, dlqReason: null };
  const nextDelayMs =
    sent.outcome === 'failed' ? attemptDelayMs(at.schedule, at.scheduleIndex + 1, () => at.random, sent.retryAfterS) : null;
  if (nextDelayMs !== null) return { state: 'pending', nextDelayMs, dlqReason: null };
  const dlqReason =
    sent.outcome === 'failed'
      ? `retry schedule exhausted after ${at.scheduleIndex + 1} attempt(s) in this run; last: ${sent.error}`
      : (sent.error ?? sent.outcome);
  return { state: 'dlq', nextDelayMs: null, dlqReason };
}

/** What a sender needs of a delivery and its merchant to send an attempt (read with the delivery's row). */
export interface SendableDelivery {
  delivery_id: string;
  merchant_id: string;
  endpoint: string;
  payload: string;
  merchant_status: string;
  webhook_secret_sealed: string;
}

/**
 * The merchant's webhook secret for a delivery, or why the delivery cannot be sent (it is parked unsent
 * in the dead-letter queue: what stands in the way is not the merchant's answer).
 */
export function secretFor(deps: Pick<AttemptDeps, 'keyEncryptionKey'>, d: SendableDelivery): { secret: string } | { parked: string } {
  if (d.merchant_status !== 'active') return { parked: 'merchant deactivated' };
  try {
    return { secret: openWebhookSecret(deps.keyEncryptionKey, d.merchant_id, d.webhook_secret_sealed) };
  } catch {
    // A configuration fault, not a merchant's: no retry fixes it, so the delivery waits in the
    // dead-letter queue, where a replay picks it up once the worker has the right key.
    return { parked: 'webhook secret unreadable: the worker needs the KEY_ENCRYPTION_KEY the API sealed it with' };
  }
}

/** Sends one attempt of a delivery whose secret is open: the merchant's answer, classified (never throws for the merchant's side). */
export const sendAttempt = (deps: AttemptDeps, d: SendableDelivery, secret: string): Promise<Sent> => send(deps, { ...d, secret });

export type { Sent };

/** One sent attempt and its verdict, to be recorded (recordAttempts). */
export interface SettledAttempt {
  deliveryId: string;
  attempt: number;
  replay: number;
  sent: Sent;
  attemptedAt: Date;
  verdict: AttemptVerdict;
}

/**
 * Records settled attempts in one statement: each attempt's row (an attempt recorded already, by a run
 * of the same batch cut off after its record, keeps its latest result: never counted twice) and each
 * delivery's new state. A delivery run's attemptDelivery records its one attempt here too. The
 * delivery rows were marked in flight before the sends, so a crash before this statement leaves them
 * in flight: the batch's re-run sends them again under the same webhook-id (at least once) and
 * records them here, once.
 */
export async function recordAttempts(db: Db, settled: SettledAttempt[]): Promise<void> {
  if (!settled.length) return;
  const now = Date.now();
  const rows = settled.map(
    (s) =>
      sql`(${s.deliveryId}, ${s.attempt}::int, ${s.replay}::int, ${s.sent.outcome}, ${s.sent.statusCode}::int, ${s.sent.error}::text,
        ${s.sent.latencyMs}::int, ${s.sent.retryAfterS}::int, ${s.attemptedAt}::timestamptz, ${s.verdict.state},
        ${s.verdict.nextDelayMs === null ? null : new Date(now + s.verdict.nextDelayMs)}::timestamptz, ${s.verdict.dlqReason}::text)`,
  );
  await sql`
    with v (delivery_id, attempt, replay, outcome, status_code, error, latency_ms, retry_after_s, attempted_at, state, next_attempt_at, dlq_reason) as (
      values ${sql.join(rows)}
    ), recorded as (
      insert into delivery_attempts (delivery_id, attempt, replay, outcome, status_code, error, latency_ms, retry_after_s, attempted_at)
      select delivery_id, attempt, replay, outcome, status_code, error, latency_ms, retry_after_s, attempted_at from v
      on conflict (delivery_id, attempt) do update set
        outcome = excluded.outcome, status_code = excluded.status_code, error = excluded.error,
        latency_ms = excluded.latency_ms, retry_after_s = excluded.retry_after_s, attempted_at = excluded.attempted_at
    )
    update deliveries d set
      state = v.state,
      delivered_at = case when v.state = 'delivered' then now() else d.delivered_at end,
      dlq_at = case when v.state = 'dlq' then now() else d.dlq_at end,
      dlq_reason = case when v.state = 'dlq' then v.dlq_reason else d.dlq_reason end,
      next_attempt_at = v.next_attempt_at,
      -- a replay's attempt that did not deliver hands the delivery to the replay's run, which the queue names from now on
      replay_workflow_id = case when v.state = 'delivered' then d.replay_workflow_id else null end,
      updated_at = now()
    from v
    where d.delivery_id = v.delivery_id
      -- a retry's wait only for a delivery still in flight; a delivered one is never undone
      and (case when v.state = 'pending' then d.state = 'inflight' else d.state <> 'delivered' end)
  `.execute(db);
}

/**
 * Marks deliveries in flight for their attempt, in one statement, when they stand where the batch
 * found them (pending, attempt not yet counted, no newer replay): the ids it marked.
 */
export async function markInflight(db: Db, marks: Array<{ deliveryId: string; attempt: number; replay: number }>): Promise<Set<string>> {
  if (!marks.length) return new Set();
  const values = marks.map((m) => sql`(${m.deliveryId}, ${m.attempt}::int, ${m.replay}::int)`);
  const { rows } = await sql<{ delivery_id: string }>`
    update deliveries d set state = 'inflight', attempts = greatest(d.attempts, v.attempt), last_attempt_at = now(),
      next_attempt_at = null, updated_at = now()
    from (values ${sql.join(values)}) as v (delivery_id, attempt, replay)
    where d.delivery_id = v.delivery_id and d.state = 'pending' and d.attempts = v.attempt - 1 and d.replays = v.replay
    returning d.delivery_id
  `.execute(db);
  return new Set(rows.map((r) => r.delivery_id));
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
  const open = secretFor(deps, d);
  if ('parked' in open) {
    await deadLetter(db, input.deliveryId, open.parked);
    return { state: 'dlq', outcome: 'skipped', statusCode: null, error: open.parked, nextDelayMs: null };
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
  const sent = await send(deps, { ...d, secret: open.secret });
  // Recorded as a fan-out's attempts are (the attempt keeps its latest result if the activity runs again).
  const verdict = verdictOf(sent, input);
  await recordAttempts(db, [{ deliveryId: input.deliveryId, attempt: input.attempt, replay: input.replay, sent, attemptedAt, verdict }]);
  return { outcome: sent.outcome, statusCode: sent.statusCode, error: sent.error, state: verdict.state, nextDelayMs: verdict.nextDelayMs };
}

/**
 * Dead-letters a delivery (never a delivered one). `unsentAttempt`: the attempt it was parked at
 * without being sent (a fan-out page creates its deliveries counted at attempt 1), so its attempts
 * count only what was sent.
 */
export async function deadLetter(db: Db, deliveryId: string, reason: string, unsentAttempt?: number): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({
      state: 'dlq',
      dlq_at: sql`now()`,
      dlq_reason: reason,
      next_attempt_at: null,
      // (A run ends it Failed: the queue names that run, not a replay workflow.)
      replay_workflow_id: null,
      updated_at: sql`now()`,
      ...(unsentAttempt !== undefined && { attempts: sql`least(attempts, ${unsentAttempt - 1})` }),
    })
    .where('delivery_id', '=', deliveryId)
    .where('state', '!=', 'delivered')
    .execute();
}
