import type { ActivityDeps } from './index';
import { attemptDelivery, type AttemptInput } from '../src/dispatch/attempt';
import { claimForReplay, planSurgePage } from '../src/dispatch/deliveries';

/** What every delivery run needs from configuration; read by the activities so workflows stay pure. */
export interface DeliveryPolicy {
  schedule: number[];
  attemptTimeoutMs: number;
}

export function createDispatchActivities({ db, config }: ActivityDeps) {
  const policy = (): DeliveryPolicy => ({ schedule: config.DISPATCH_RETRY_SCHEDULE, attemptTimeoutMs: config.DISPATCH_TIMEOUT_MS });
  return {
    async planSurgePage(intentId: string, after: string | null, limit: number) {
      return { ...(await planSurgePage(db, { intentId, after, limit, publicBaseUrl: config.publicBaseUrl })), policy: policy() };
    },
    async claimDeadLetters(deliveryId: string | null, limit: number) {
      return { deliveries: await claimForReplay(db, { deliveryId: deliveryId ?? undefined, limit }), policy: policy() };
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
