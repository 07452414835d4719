import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { attemptDelivery, deadLetter, type AttemptInput } from '../src/dispatch/attempt';
import { claimForReplay, type PlannedDelivery } from '../src/dispatch/deliveries';
import { startDeliveryRun } from '../src/dispatch/client';
import { sendReplays } from '../src/dispatch/replay';
import { deliverSurgePage, type BatchDeps } from '../src/dispatch/surge-page';
import type { DeliveryPolicy, StartedRun, SurgePageResult } from '../workflows/dispatch.shared';

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
    /** Sends a claimed replay batch's attempts (the replay's answer lists the dlqReplay run for those delivered). */
    async sendReplayBatch(claimed: PlannedDelivery[], replayRun: Omit<StartedRun, 'delivery_id'>): Promise<StartedRun[]> {
      return sending((deps) => sendReplays(deps, claimed, replayRun));
    },
    async claimDeadLetters(deliveryId: string | null, limit: number) {
      return { deliveries: await claimForReplay(db, { deliveryId: deliveryId ?? undefined, limit }) };
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
