import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { attemptDelivery, deadLetter, type AttemptInput } from '../src/dispatch/attempt';
import { claimForReplay, type PlannedDelivery } from '../src/dispatch/deliveries';
import { startDeliveryRun } from '../src/dispatch/client';
import { sendReplays } from '../src/dispatch/replay';
import { deliverSurgePage, type BatchDeps } from '../src/dispatch/surge-page';
import type { DeliveryPolicy, ReplayedDelivery, StartedRun, SurgePageResult } from '../workflows/dispatch.shared';

/** Activities of the dispatch flow (workflows/dispatch.ts): thin wrappers over src/dispatch. */
export function createDispatchActivities({ db, config }: ActivityDeps) {
  const policy = (): DeliveryPolicy => ({ schedule: config.DISPATCH_RETRY_SCHEDULE, attemptTimeoutMs: config.DISPATCH_TIMEOUT_MS });
  const attemptDeps = {
    db,
    keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
    allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
    timeoutMs: config.DISPATCH_TIMEOUT_MS,
  };
  /**
   * Runs a batch of attempts with this activity's client and cancellation, heartbeating every second
   * (not as a local activity, the fan-out's first page head: its workflow task stands for it).
   */
  const sending = async <T>(send: (deps: BatchDeps) => Promise<T>): Promise<T> => {
    const ctx = Context.current();
    let done = 0;
    const beat = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(done), 1000);
    try {
      const startRun = (d: PlannedDelivery) => startDeliveryRun(ctx.client, ctx.info.taskQueue, d, policy());
      return await send({ attempt: attemptDeps, policy: policy(), startRun, progress: (n) => (done = n), signal: ctx.cancellationSignal });
    } finally {
      clearInterval(beat);
    }
  };
  return {
    /**
     * Records a fan-out page and sends its first attempts; heartbeats progress, also while merchants are
     * slow. Also the local activity that sends the first page's head (workflows/dispatch.ts).
     */
    async deliverSurgePage(intentId: string, after: string | null, limit: number): Promise<SurgePageResult> {
      return sending((deps) => deliverSurgePage({ ...deps, publicBaseUrl: config.publicBaseUrl }, { intentId, after, limit }));
    },
    /** Sends a claimed replay batch's attempts; each replay told with the workflow that has it now and its state. */
    async sendReplayBatch(claimed: PlannedDelivery[], replayRun: Omit<StartedRun, 'delivery_id'>): Promise<ReplayedDelivery[]> {
      return sending((deps) => sendReplays(deps, claimed, replayRun));
    },
    /** Claims a batch of dead letters (the one named, or the merchant's, or any) for the calling dlqReplay run. */
    async claimDeadLetters(deliveryId: string | null, limit: number, merchantId?: string | null) {
      // (Only dlqReplay runs this activity: the claimed deliveries are that run's.)
      const replayWorkflowId = Context.current().info.workflowExecution?.workflowId;
      if (!replayWorkflowId) throw new Error('claimDeadLetters runs only in a dlqReplay workflow');
      return {
        deliveries: await claimForReplay(db, {
          deliveryId: deliveryId ?? undefined,
          merchantId: merchantId ?? undefined,
          limit,
          replayWorkflowId,
        }),
      };
    },
    async deadLetterDelivery(deliveryId: string, reason: string): Promise<void> {
      await deadLetter(db, deliveryId, reason);
    },
    async attemptDelivery(input: AttemptInput) {
      return attemptDelivery(attemptDeps, input);
    },
  };
}

export type DispatchActivities = ReturnType<typeof createDispatchActivities>;
