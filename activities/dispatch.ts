import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ActivityDeps } from './index';
import { attemptDelivery, deadLetter, type AttemptInput } from '../src/dispatch/attempt';
import { claimForReplay, planSurgePage, type PlannedDelivery } from '../src/dispatch/deliveries';
import { searchAttributes as SA } from '../src/temporal/names';
import type { delivery } from '../workflows/delivery';

/** What every delivery run needs from configuration; read by the activities so workflows stay pure. */
export interface DeliveryPolicy {
  schedule: number[];
  attemptTimeoutMs: number;
}

export interface StartedRun {
  delivery_id: string;
  workflow_id: string;
  /** Null when the run already existed (the start was repeated): that run owns the delivery. */
  run_id: string | null;
}

/** Parallel starts per batch: enough to keep the server busy without a burst of thousands. */
const START_CONCURRENCY = 100;

export function createDispatchActivities({ db, config }: ActivityDeps) {
  const policy = (): DeliveryPolicy => ({ schedule: config.DISPATCH_RETRY_SCHEDULE, attemptTimeoutMs: config.DISPATCH_TIMEOUT_MS });
  return {
    async planSurgePage(intentId: string, after: string | null, limit: number) {
      return { ...(await planSurgePage(db, { intentId, after, limit, publicBaseUrl: config.publicBaseUrl })), policy: policy() };
    },
    async claimDeadLetters(deliveryId: string | null, limit: number) {
      return { deliveries: await claimForReplay(db, { deliveryId: deliveryId ?? undefined, limit }), policy: policy() };
    },
    /**
     * Starts one delivery run per planned delivery as a top-level workflow: independent starts go
     * through the server in parallel, where child-workflow starts would queue on the parent's history.
     * Eager start hands each run's first task straight to this worker (the worker's own client, on
     * its connection), sparing the server a round of task matching per delivery.
     * Repeating the activity starts nothing twice (workflow ids are the delivery's; duplicates rejected).
     */
    async startDeliveryRuns(planned: PlannedDelivery[], policy: DeliveryPolicy): Promise<StartedRun[]> {
      const { client, info } = Context.current();
      const taskQueue = info.taskQueue;
      const started: StartedRun[] = [];
      for (let i = 0; i < planned.length; i += START_CONCURRENCY) {
        const batch = planned.slice(i, i + START_CONCURRENCY);
        started.push(...(await Promise.all(batch.map((d) => startRun(d)))));
        Context.current().heartbeat(started.length);
      }
      return started;

      async function startRun(d: PlannedDelivery): Promise<StartedRun> {
        try {
          const handle = await client.workflow.start<typeof delivery>('delivery', {
            requestEagerStart: true,
            workflowId: d.workflow_id,
            taskQueue,
            args: [{ deliveryId: d.delivery_id, intentId: d.intent_id, merchantId: d.merchant_id, firstAttempt: d.first_attempt, replay: d.replay, policy }],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [
              { key: SA.IntentId, value: d.intent_id },
              { key: SA.MerchantId, value: d.merchant_id },
              { key: SA.DeliveryState, value: 'pending' },
            ],
            staticSummary: `Intent.Surge ${d.intent_id} → ${d.merchant_id}${d.replay ? ` (replay ${d.replay})` : ''}`,
            // Business keys on the run (UI Memo, `temporal workflow describe`).
            memo: { delivery_id: d.delivery_id, intent_id: d.intent_id, merchant_id: d.merchant_id, replay: d.replay },
          });
          return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: handle.firstExecutionRunId };
        } catch (err) {
          if (err instanceof WorkflowExecutionAlreadyStartedError) return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: null };
          throw err;
        }
      }
    },
    async deadLetterDelivery(deliveryId: string, reason: string): Promise<void> {
      await deadLetter(db, deliveryId, reason);
    },
    async attemptDelivery(input: AttemptInput) {
      return attemptDelivery(
        { db, keyEncryptionKey: config.KEY_ENCRYPTION_KEY, allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS, timeoutMs: config.DISPATCH_TIMEOUT_MS },
        input,
      );
    },
  };
}

export type DispatchActivities = ReturnType<typeof createDispatchActivities>;
