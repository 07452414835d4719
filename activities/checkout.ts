import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './index';
import {
  authorizeCheckout,
  expireCheckout,
  failCheckout,
  handOffToMerchant,
  HandoffRejected,
  planCheckout,
  settleCheckout,
  type CheckoutRequest,
  type Consent,
  type HandoffResult,
  type Rejection,
} from '../src/checkout/checkouts';

/** Activities of the agenticCheckout workflow: thin wrappers over src/checkout (the only I/O of the flow). */
export function createCheckoutActivities({ db, config }: ActivityDeps) {
  return {
    async planCheckout(req: CheckoutRequest) {
      return planCheckout(db, req, config.CHECKOUT_PLAN_TTL_S);
    },
    async authorizeCheckout(checkoutId: string, consent: Consent) {
      return authorizeCheckout(db, checkoutId, consent);
    },
    async handOffToMerchant(checkoutId: string): Promise<HandoffResult> {
      try {
        return await handOffToMerchant(
          { db, keyEncryptionKey: config.KEY_ENCRYPTION_KEY, allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS, timeoutMs: config.DISPATCH_TIMEOUT_MS },
          checkoutId,
          Context.current().info.attempt,
        );
      } catch (err) {
        if (err instanceof HandoffRejected) throw ApplicationFailure.nonRetryable(err.message, 'merchant_handoff_rejected');
        throw err;
      }
    },
    async settleCheckout(checkoutId: string, handoff: HandoffResult) {
      return settleCheckout(db, checkoutId, handoff);
    },
    async expireCheckout(checkoutId: string) {
      return expireCheckout(db, checkoutId);
    },
    async failCheckout(checkoutId: string, rejection: Rejection) {
      await failCheckout(db, checkoutId, rejection);
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
