import * as wf from '@temporalio/workflow';
import type { DeliveryPolicy, DispatchActivities } from '../activities/dispatch';
import type { DeliveryState } from '../src/db/schema-dispatch';
import { attemptDelayMs } from '../src/dispatch/retry-schedule';
import { searchAttributes as SA } from '../src/temporal/names';

export interface DeliveryInput {
  deliveryId: string;
  intentId: string;
  merchantId: string;
  /** Attempt number of this run's first attempt; attempts keep counting across replays. */
  firstAttempt: number;
  /** 0 for the first run, n for the n-th replay out of the dead-letter queue. */
  replay: number;
  policy: DeliveryPolicy;
}

/**
 * A run that ends in the dead-letter queue ends Failed (ApplicationFailure `delivery_dead_lettered`),
 * so operators find it with ExecutionStatus="Failed" and in the UI's Failures view. Runs recorded
 * before it completed with `{state: 'dlq'}` and still replay that way.
 */
export const DLQ_FAILS_PATCH = 'delivery-dlq-fails-run';

/** `details[0]` of the failure a dead-lettered run ends with. */
export interface DeliveryFailureDetails {
  delivery_id: string;
  intent_id: string;
  merchant_id: string;
  attempts: number;
  status_code: number | null;
  reason: string;
  next_action: string;
}

export interface DeliveryOutcome {
  deliveryId: string;
  state: DeliveryState;
  attempts: number;
}

/**
 * One merchant's copy of an Intent.Surge: attempt, wait out the retry schedule, attempt again, until
 * the merchant answers 2xx (delivered) or the schedule runs out or the endpoint says 410 (dlq). The
 * run then ends; a replay out of the dead-letter queue is a new run, `delivery-<id>-replay-<n>`.
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
  const stage = (state: DeliveryState) => wf.upsertSearchAttributes([{ key: SA.DeliveryState, value: state }]);
  /** The run's end in the dead-letter queue: a Temporal failure for new runs (the row already says dlq). */
  const deadLettered = (attempts: number, statusCode: number | null, reason: string): DeliveryOutcome => {
    wf.setCurrentDetails(`dead-lettered after attempt ${attempts}: ${reason}`);
    if (wf.patched(DLQ_FAILS_PATCH)) {
      const details: DeliveryFailureDetails = {
        delivery_id: input.deliveryId,
        intent_id: input.intentId,
        merchant_id: input.merchantId,
        attempts,
        status_code: statusCode,
        reason,
        next_action: `fix the merchant endpoint, then replay: POST /v1/merchant/dispatch-queue/retry {"delivery_id":"${input.deliveryId}"}`,
      };
      throw wf.ApplicationFailure.create({
        type: 'delivery_dead_lettered',
        message: `delivery ${input.deliveryId} to ${input.merchantId} is in the dead-letter queue after attempt ${attempts}: ${reason}`,
        details: [details],
        nonRetryable: true,
      });
    }
    return { deliveryId: input.deliveryId, state: 'dlq', attempts };
  };

  let waitMs = attemptDelayMs(input.policy.schedule, 0, Math.random) ?? 0;
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
        scheduleIndex: i,
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
      return { deliveryId: input.deliveryId, state: result.state, attempts: input.firstAttempt + i };
    }
    waitMs = result.nextDelayMs;
  }
}
