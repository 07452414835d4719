import * as wf from '@temporalio/workflow';
import type { DispatchActivities } from '../activities/dispatch';
import type { DeliveryState } from '../src/db/schema-dispatch';
import { attemptDelayMs } from '../src/dispatch/retry-schedule';
import { searchAttributes as SA } from '../src/temporal/names';
import {
  FIRST_PAGE_HEAD,
  REPLAY_BATCH,
  REPLAY_MAX,
  SURGE_PAGE_SIZE,
  SURGE_PAGES_PER_RUN,
  type DeliveryFailureDetails,
  type DeliveryInput,
  type DeliveryOutcome,
  type ReplayInput,
  type ReplayResult,
  type ReplayStage,
  type SurgeInput,
  type SurgeOutcome,
  type SurgeStage,
} from './dispatch.shared';
import { flowStage } from './stage';
import { statesVersioning } from './versioning';

/**
 * The dispatch flow (docs/DISPATCH.md): an intent fans out to the merchants that subscribe to it
 * (`intentSurge`), each merchant's copy is one `delivery` run with its own retry schedule, and
 * `dlqReplay` starts dead-lettered deliveries again. Inputs and outputs: ./dispatch.shared.ts.
 */

/** The replay's claim of dead-lettered deliveries: a database call only, retried on infrastructure failures. */
const { claimDeadLetters } = wf.proxyActivities<DispatchActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * A fan-out page with its first attempts: a page of slow merchants takes a few deadlines
 * (DISPATCH_TIMEOUT_MS, FIRST_ATTEMPT_CONCURRENCY at once); the activity heartbeats every second, so
 * a worker killed mid-page is noticed within seconds and the page re-run elsewhere (the delivery rows
 * say what is left to send), with room for a loaded machine's pauses.
 */
const { deliverSurgePage, sendReplayBatch } = wf.proxyActivities<DispatchActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * The head of the fan-out's first page (FIRST_PAGE_HEAD merchants) as a local activity: it runs in the
 * surge's first workflow task, on the worker that took it, so the first webhooks leave without an
 * activity task's schedule → poll round trip through the server (27–71 ms measured). A local activity
 * has no heartbeat: a worker killed mid-head is noticed when the workflow task times out (the surge's
 * workflowTaskTimeout, 10 s, as the page activity's heartbeat timeout), and the next worker re-runs
 * the head, which is safe by the delivery rows (src/dispatch/surge-page.ts sendBatchAttempts): nothing
 * delivered is sent again, a send cut off is sent again under the same webhook-id. The head is small
 * (one merchant deadline, DISPATCH_TIMEOUT_MS ≤ 15 s, plus its statements and up to FIRST_PAGE_HEAD run
 * starts) so it stays near one workflow task; the timeout leaves room for a loaded machine, past the
 * workflow task timeout the SDK heartbeats the task. The rest of the page and the later pages stay
 * heartbeating activities.
 */
const { deliverSurgePage: deliverSurgeHead } = wf.proxyLocalActivities<DispatchActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * Intent.Surge fan-out: page through the merchants that subscribe to the intent, record a delivery for
 * each and send it its first attempt; a delivery that is not delivered then gets a delivery run (a
 * workflow of its own, which outlives this one). Thousands of merchants stay cheap: one activity per
 * page, and the history is renewed every few pages.
 */
export async function intentSurge(input: SurgeInput): Promise<SurgeOutcome> {
  const stage = flowStage<SurgeStage>('fan-out');
  stage.set('fan-out');
  const pageSize = input.pageSize ?? SURGE_PAGE_SIZE;
  let after = input.after ?? null;
  let started = input.started ?? 0;
  // Only the fan-out's first page has a head (a continued run starts after it).
  const firstPageLocal = after === null;
  const dispatched = (): SurgeOutcome => {
    stage.set('dispatched');
    return { intentId: input.intentId, deliveries: started };
  };
  for (let page = 0; page < SURGE_PAGES_PER_RUN; page++) {
    let limit = pageSize;
    if (firstPageLocal && page === 0) {
      const headLimit = Math.min(pageSize, FIRST_PAGE_HEAD);
      const head = await deliverSurgeHead(input.intentId, null, headLimit);
      started += head.deliveries;
      wf.setCurrentDetails(
        `${started} deliveries: first page's head ${head.delivered} delivered at the first attempt, ${head.runs} handed to a run`,
      );
      if (head.next === null) return dispatched();
      after = head.next;
      // (A page no larger than the head was all head.)
      if (headLimit === pageSize) continue;
      limit = pageSize - headLimit;
    }
    const sent = await deliverSurgePage(input.intentId, after, limit);
    started += sent.deliveries;
    wf.setCurrentDetails(`${started} deliveries: last page ${sent.delivered} delivered at the first attempt, ${sent.runs} handed to a run`);
    if (sent.next === null) return dispatched();
    after = sent.next;
  }
  // A fan-out is pinned to the worker version it started on; its next run starts on the version that
  // is current then (docs/OPERATIONS.md, "Changing a workflow").
  return wf.makeContinueAsNewFunc<typeof intentSurge>({ initialVersioningBehavior: 'AUTO_UPGRADE' })({ ...input, after, started });
}
// Pinned: a fan-out's pages take seconds; its continued run starts on the current version.
statesVersioning('PINNED', intentSurge);

/**
 * One merchant's copy of an Intent.Surge: attempt, wait out the retry schedule, attempt again, until
 * the merchant answers 2xx (delivered) or the schedule runs out or the endpoint says 410 (dlq). The
 * run then ends; a replay out of the dead-letter queue whose own attempt (sent by dlqReplay) does not
 * deliver continues in a new run, `delivery-<id>-replay-<n>`.
 * A run that takes over after the fan-out's own first attempt starts at attempt 2 with its wait
 * (`scheduleIndex`, `firstWaitMs`); one started for a delivery the fan-out dead-lettered finds it so
 * and ends Failed.
 */
export async function delivery(input: DeliveryInput): Promise<DeliveryOutcome> {
  // A local activity: the attempt runs inside the workflow task, which halves the server round trips
  // per delivery (a fan-out to thousands of merchants is bound by them); a crash re-runs it the same way.
  const { attemptDelivery, deadLetterDelivery } = wf.proxyLocalActivities<DispatchActivities>({
    // Bounded by the merchant's deadline plus the bookkeeping around it.
    startToCloseTimeout: input.policy.attemptTimeoutMs + 10_000,
    // Only infrastructure failures (database, worker crash) reach here; merchant failures are results.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
  });
  const stage = flowStage<DeliveryState>('pending', SA.DeliveryState).set;
  /** The run's end in the dead-letter queue: a Temporal failure (the row already says dlq). */
  const deadLettered = (attempts: number, statusCode: number | null, reason: string): never => {
    wf.setCurrentDetails(`dead-lettered after attempt ${attempts}: ${reason}`);
    const details: DeliveryFailureDetails = {
      delivery_id: input.deliveryId,
      intent_id: input.intentId,
      merchant_id: input.merchantId,
      attempts,
      status_code: statusCode,
      reason,
      next_action: `fix the merchant endpoint, then replay: POST /v1/merchant/dispatch-queue/retry {"delivery_id":"${input.deliveryId}"}`,
    };
    // Ends Failed, so operators find it with ExecutionStatus="Failed".
    throw wf.ApplicationFailure.create({
      type: 'delivery_dead_lettered',
      message: `delivery ${input.deliveryId} to ${input.merchantId} is in the dead-letter queue after attempt ${attempts}: ${reason}`,
      details: [details],
      nonRetryable: true,
    });
  };

  // Without scheduleIndex the run starts the retry schedule from its first step (DeliveryInput).
  const scheduleIndex = input.scheduleIndex ?? 0;
  let waitMs = input.scheduleIndex === undefined ? (attemptDelayMs(input.policy.schedule, 0, Math.random) ?? 0) : (input.firstWaitMs ?? 0);
  for (let i = 0; ; i++) {
    if (waitMs > 0) {
      wf.setCurrentDetails(`attempt ${input.firstAttempt + i} in ${Math.round(waitMs / 1000)} s`);
      await wf.sleep(waitMs);
    }
    let result;
    try {
      result = await attemptDelivery({
        deliveryId: input.deliveryId,
        attempt: input.firstAttempt + i,
        replay: input.replay,
        schedule: input.policy.schedule,
        scheduleIndex: scheduleIndex + i,
        random: Math.random(),
      });
    } catch (err) {
      // The gateway's own side kept failing (database, configuration) past the activity's retries:
      // park the delivery where operators look and replay from, rather than leave it in flight.
      if (!(err instanceof wf.ActivityFailure)) throw err;
      const reason = `attempt ${input.firstAttempt + i} could not run: ${err.cause?.message ?? err.message}`;
      await deadLetterDelivery(input.deliveryId, reason);
      stage('dlq');
      return deadLettered(input.firstAttempt + i, null, reason);
    }
    stage(result.state);
    wf.setCurrentDetails(`attempt ${input.firstAttempt + i}: ${result.statusCode ?? result.error ?? result.outcome}`);
    if (result.state === 'dlq') return deadLettered(input.firstAttempt + i, result.statusCode, result.error ?? result.outcome);
    if (result.state !== 'pending' || result.nextDelayMs === null) {
      return {
        deliveryId: input.deliveryId,
        state: result.state,
        attempts: input.firstAttempt + i,
        intentId: input.intentId,
        merchantId: input.merchantId,
        statusCode: result.statusCode ?? null,
      };
    }
    waitMs = result.nextDelayMs;
  }
}
// Auto-upgrade: a delivery's retry schedule spans hours (DISPATCH_RETRY_SCHEDULE, about 17 h), too
// long to keep an old worker version for: each wake-up runs on the current version, so a change to its
// commands is patched (docs/OPERATIONS.md, "Changing a workflow").
statesVersioning('AUTO_UPGRADE', delivery);

/**
 * Dead-letter replay: claim dead-lettered deliveries in batches (the one named, or one merchant's, or
 * any; claiming moves them back to pending in the same statement, so nothing is claimed twice), then
 * send each its replay attempt (one activity per batch, which starts the runs of those that need one).
 * The claim is its own activity, so the claimed batch is in the history: a send cut off by a worker
 * crash is re-run on that batch. The queue names this run for the replays its own attempts delivered,
 * so once there is one its DeliveryState says `delivered` (the others are named by their own runs,
 * which carry theirs).
 */
export async function dlqReplay(input: ReplayInput): Promise<ReplayResult> {
  flowStage<ReplayStage>('dlq-replay').set('dlq-replay');
  const { workflowId, runId } = wf.workflowInfo();
  const replays: ReplayResult['replays'] = [];
  let claimed = 0;
  /** Whether this run's own attempts delivered a replay yet (its DeliveryState is written once). */
  let deliveredHere = false;
  while (claimed < REPLAY_MAX) {
    const batch = await claimDeadLetters(input.deliveryId, Math.min(REPLAY_BATCH, REPLAY_MAX - claimed), input.merchantId ?? null);
    if (!batch.deliveries.length) break;
    claimed += batch.deliveries.length;
    const sent = await sendReplayBatch(batch.deliveries, { workflow_id: workflowId, run_id: runId });
    replays.push(...sent);
    if (!deliveredHere && sent.some((r) => r.by_replay_workflow && r.state === 'delivered')) {
      deliveredHere = true;
      wf.upsertSearchAttributes([{ key: SA.DeliveryState, value: 'delivered' }]);
    }
    const inState = (s: string) => replays.filter((r) => r.state === s).length;
    wf.setCurrentDetails(
      `${replays.length} deliveries replayed: ${inState('delivered')} delivered, ${inState('pending')} retrying in their runs, ${inState('dlq')} dead-lettered again`,
    );
    if (input.deliveryId || batch.deliveries.length < REPLAY_BATCH) break;
  }
  return { scheduled: replays.length, delivered: replays.filter((r) => r.state === 'delivered').length, replays };
}
// Pinned: a replay claims and sends its batches in seconds.
statesVersioning('PINNED', dlqReplay);
