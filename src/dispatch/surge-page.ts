import { workflowIds } from '../temporal/names';
import type { DeliveryPolicy, StartedRun, SurgePageResult } from '../../workflows/dispatch.shared';
import { attemptDelivery, type AttemptDeps } from './attempt';
import { openSurgePage, type OpenDelivery, type PlannedDelivery } from './deliveries';

/**
 * First attempts in flight at once per fan-out page: enough to keep a loopback blast's pace, few
 * enough that the database pool (10 connections) and the merchants' hosts are not flooded.
 */
export const FIRST_ATTEMPT_CONCURRENCY = 64;

export interface SurgePageDeps {
  attempt: AttemptDeps;
  policy: DeliveryPolicy;
  publicBaseUrl: string;
  /** Starts a delivery's run (src/dispatch/client.ts startDeliveryRun); a repeated start starts nothing. */
  startRun: (d: PlannedDelivery) => Promise<StartedRun>;
  /** Called after each delivery is settled for this page (the activity heartbeats it). */
  progress: (done: number) => void;
  /**
   * Aborted when Temporal has given this page to another attempt (its heartbeat timed out): no new
   * delivery is taken up, so two attempts of one page do not send side by side for long.
   */
  signal: AbortSignal;
}

/** The run that takes a delivery over after the fan-out's first attempt, from attempt `firstAttempt`. */
const runFor = (d: OpenDelivery, firstAttempt: number, from?: { scheduleIndex: number; waitMs: number }): PlannedDelivery => ({
  delivery_id: d.delivery_id,
  merchant_id: d.merchant_id,
  intent_id: d.intent_id,
  workflow_id: workflowIds.delivery(d.delivery_id, 0),
  first_attempt: firstAttempt,
  replay: 0,
  ...(from && { schedule_index: from.scheduleIndex, first_wait_ms: from.waitMs }),
});

/**
 * One page of an Intent.Surge fan-out, sent (docs/DISPATCH.md): records the page's deliveries, sends
 * each one's first attempt from here (src/dispatch/attempt.ts, at most FIRST_ATTEMPT_CONCURRENCY at
 * once), and gives a delivery a run of its own only when it needs one: a failed first attempt (the
 * run waits out the schedule and attempts again), or a dead letter (the run ends Failed, where
 * operators look). A delivered one costs Temporal nothing more.
 *
 * The delivery rows are the durable record, so the page is re-run safely after a worker crash: a
 * delivered delivery is not sent again; one cut off mid-send (inflight at attempt 1) is sent again
 * under the same webhook-id (at least once); one whose first attempt is recorded gets its run (a run
 * started already is not started twice).
 */
export async function deliverSurgePage(
  deps: SurgePageDeps,
  opts: { intentId: string; after: string | null; limit: number },
): Promise<SurgePageResult> {
  const page = await openSurgePage(deps.attempt.db, { ...opts, publicBaseUrl: deps.publicBaseUrl });
  const { schedule } = deps.policy;
  let delivered = 0;
  let runs = 0;
  let done = 0;

  const settle = async (d: OpenDelivery): Promise<void> => {
    let run: PlannedDelivery | null = null;
    if ((d.state === 'pending' && d.attempts === 0) || (d.state === 'inflight' && d.attempts <= 1)) {
      // The first attempt's jitter is this page's to draw: no workflow replays it.
      const result = await attemptDelivery(deps.attempt, {
        deliveryId: d.delivery_id,
        attempt: 1,
        replay: 0,
        schedule,
        scheduleIndex: 0,
        random: Math.random(),
      });
      if (result.state === 'delivered') delivered++;
      else if (result.state === 'pending') run = runFor(d, 2, { scheduleIndex: 1, waitMs: result.nextDelayMs ?? 0 });
      else if (result.state === 'dlq') run = runFor(d, 1);
    } else if (d.state === 'pending') {
      // A first attempt recorded as failed by a run of this page cut off before it started the retry run.
      const waitMs = Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - Date.now());
      run = runFor(d, d.attempts + 1, { scheduleIndex: d.attempts, waitMs });
    } else if (d.state === 'dlq') {
      run = runFor(d, Math.max(1, d.attempts));
    }
    // (inflight past attempt 1: its run is sending it.)
    if (run) {
      await deps.startRun(run);
      runs++;
    }
    deps.progress(++done);
  };

  let next = 0;
  const lane = async () => {
    while (next < page.deliveries.length && !deps.signal.aborted) await settle(page.deliveries[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, page.deliveries.length) }, lane));
  deps.signal.throwIfAborted();
  return { deliveries: page.size, delivered, runs, next: page.next };
}
