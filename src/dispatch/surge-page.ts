import { workflowIds } from '../temporal/names';
import type { DeliveryPolicy, StartedRun, SurgePageResult } from '../../workflows/dispatch.shared';
import { attemptDelivery, type AttemptDeps } from './attempt';
import { openSurgePage, type OpenDelivery, type PlannedDelivery } from './deliveries';

/**
 * First attempts in flight at once per fan-out page: enough to keep a loopback blast's pace, few
 * enough that the database pool (`DB_POOL_MAX`, 10 by default) and the merchants' hosts are not flooded.
 */
export const FIRST_ATTEMPT_CONCURRENCY = 64;

export interface BatchDeps {
  attempt: AttemptDeps;
  policy: DeliveryPolicy;
  /** Starts a delivery's run (src/dispatch/client.ts startDeliveryRun); a repeated start starts nothing. */
  startRun: (d: PlannedDelivery) => Promise<StartedRun>;
  /** Called after each delivery is settled for this batch (the activity heartbeats it). */
  progress: (done: number) => void;
  /**
   * Aborted when Temporal has given this batch to another attempt (its heartbeat timed out): no new
   * delivery is taken up, so two attempts of one batch do not send side by side for long.
   */
  signal: AbortSignal;
}

export interface SurgePageDeps extends BatchDeps {
  publicBaseUrl: string;
}

/** A delivery whose attempt `first_attempt` (of replay `replay`) is this batch's to send. */
export type BatchDelivery = OpenDelivery & { first_attempt: number; replay: number };

/** The run that takes a delivery over after the batch's attempt, from attempt `firstAttempt`. */
const runFor = (d: BatchDelivery, firstAttempt: number, from?: { scheduleIndex: number; waitMs: number }): PlannedDelivery => ({
  delivery_id: d.delivery_id,
  merchant_id: d.merchant_id,
  intent_id: d.intent_id,
  workflow_id: workflowIds.delivery(d.delivery_id, d.replay),
  first_attempt: firstAttempt,
  replay: d.replay,
  ...(from && { schedule_index: from.scheduleIndex, first_wait_ms: from.waitMs }),
});

/**
 * Sends one attempt per delivery from here (a fan-out page's first attempts, a replay batch's replay
 * attempts; at most FIRST_ATTEMPT_CONCURRENCY at once) and gives a delivery a run of its own only when
 * it needs one: a failed attempt (the run waits out the schedule and attempts again), or a dead letter
 * (the run ends Failed, where operators look). A delivered one costs Temporal nothing more.
 *
 * The delivery rows are the durable record, so a batch is re-run safely after a worker crash: a
 * delivered delivery is not sent again; one cut off mid-send (inflight at the batch's attempt) is sent
 * again under the same webhook-id (at least once); one whose attempt is recorded gets its run (a run
 * started already is not started twice). Returns the deliveries it delivered and the runs it started.
 */
export async function sendBatchAttempts(
  deps: BatchDeps,
  deliveries: BatchDelivery[],
): Promise<{ delivered: string[]; runs: StartedRun[] }> {
  const { schedule } = deps.policy;
  const delivered: string[] = [];
  const runs: StartedRun[] = [];
  let done = 0;

  const settle = async (d: BatchDelivery): Promise<void> => {
    const first = d.first_attempt;
    let run: PlannedDelivery | null = null;
    if ((d.state === 'pending' && d.attempts === first - 1) || (d.state === 'inflight' && d.attempts <= first)) {
      // The batch's attempt's jitter is the batch's to draw: no workflow replays it.
      const result = await attemptDelivery(deps.attempt, {
        deliveryId: d.delivery_id,
        attempt: first,
        replay: d.replay,
        schedule,
        scheduleIndex: 0,
        random: Math.random(),
      });
      if (result.state === 'delivered') delivered.push(d.delivery_id);
      else if (result.state === 'pending') run = runFor(d, first + 1, { scheduleIndex: 1, waitMs: result.nextDelayMs ?? 0 });
      else if (result.state === 'dlq') run = runFor(d, first);
    } else if (d.state === 'pending') {
      // The batch's attempt recorded as failed by a run of this batch cut off before it started the retry run.
      const waitMs = Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - Date.now());
      run = runFor(d, d.attempts + 1, { scheduleIndex: d.attempts - first + 1, waitMs });
    } else if (d.state === 'dlq') {
      run = runFor(d, Math.max(first, d.attempts));
    }
    // (inflight past the batch's attempt: its run is sending it.)
    if (run) runs.push(await deps.startRun(run));
    deps.progress(++done);
  };

  let next = 0;
  const lane = async () => {
    while (next < deliveries.length && !deps.signal.aborted) await settle(deliveries[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, deliveries.length) }, lane));
  deps.signal.throwIfAborted();
  return { delivered, runs };
}

/**
 * One page of an Intent.Surge fan-out, sent (docs/DISPATCH.md): records the page's deliveries and
 * sends each one's first attempt (sendBatchAttempts).
 */
export async function deliverSurgePage(
  deps: SurgePageDeps,
  opts: { intentId: string; after: string | null; limit: number },
): Promise<SurgePageResult> {
  const page = await openSurgePage(deps.attempt.db, { ...opts, publicBaseUrl: deps.publicBaseUrl });
  const sent = await sendBatchAttempts(
    deps,
    page.deliveries.map((d) => ({ ...d, first_attempt: 1, replay: 0 })),
  );
  return { deliveries: page.size, delivered: sent.delivered.length, runs: sent.runs.length, next: page.next };
}
