import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './index';
import {
  authorizeCheckout,
  expireCheckout,
  failCheckout,
  handOffToMerchant,
  handOffToMerchantSite,
  HandoffRejected,
  planCheckout,
  settleCheckout,
  type CheckoutRequest,
  type Consent,
  type HandoffResult,
  type Rejection,
} from '../src/checkout/checkouts';
import { authorizeAndHandOff, handOffAndSettle } from '../src/checkout/confirm';

/** How often the handoff heartbeats; the workflow's heartbeat timeout (5 s) is a few of these. */
export const HANDOFF_HEARTBEAT_MS = 1000;

/** Activities of the agenticCheckout workflow: thin wrappers over src/checkout (the only I/O of the flow). */
export function createCheckoutActivities({ db, config }: ActivityDeps) {
  /**
   * The merchant handoff. A local activity since `checkout-local-handoff` (a worker that dies
   * mid-handoff is noticed by the workflow task timeout). Runs from before it call it as an ordinary
   * activity, which heartbeats while the merchant has the request: the dead worker is noticed by the
   * heartbeat timeout (seconds) instead of the 30 s start-to-close timeout. Either way the next attempt
   * (same Idempotency-Key) goes out on another worker, and the audit numbers attempts itself (a local
   * activity's attempt count starts again after a worker died).
   */
  const handOff = async (checkoutId: string, recordAnswer: boolean): Promise<HandoffResult> => {
    const ctx = Context.current();
    const local = ctx.info.isLocal;
    if (!local) ctx.heartbeat();
    const beat = local ? undefined : setInterval(() => ctx.heartbeat(), HANDOFF_HEARTBEAT_MS);
    try {
      return await handOffToMerchant(
        {
          db,
          keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
          allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
          timeoutMs: config.DISPATCH_TIMEOUT_MS,
        },
        checkoutId,
        { recordAnswer },
      );
    } catch (err) {
      if (err instanceof HandoffRejected) throw ApplicationFailure.nonRetryable(err.message, 'merchant_handoff_rejected');
      throw err;
    } finally {
      clearInterval(beat);
    }
  };
  // The handoff whose answer the settle writes, in its transaction.
  const handOffForSettle = (checkoutId: string) => handOff(checkoutId, false);
  const warn = (message: string, attrs: Record<string, unknown>) => Context.current().log.warn(message, attrs);
  return {
    async planCheckout(req: CheckoutRequest) {
      return planCheckout(db, req, config.CHECKOUT_PLAN_TTL_S, config.publicBaseUrl);
    },
    async authorizeCheckout(checkoutId: string, consent: Consent) {
      return authorizeCheckout(db, checkoutId, consent);
    },
    /** The merchant handoff alone (runs started before `checkout-handoff-settles`). */
    async handOffToMerchant(checkoutId: string): Promise<HandoffResult> {
      return handOff(checkoutId, true);
    },
    /** The handoff, then the settle (patch `checkout-handoff-settles`; src/checkout/confirm.ts). */
    async handOffAndSettle(checkoutId: string) {
      return handOffAndSettle(db, checkoutId, handOffForSettle, warn);
    },
    /** Authorize, hand off, settle (patch `checkout-confirm-one-activity`; src/checkout/confirm.ts). */
    async authorizeAndHandOff(checkoutId: string, consent: Consent) {
      return authorizeAndHandOff(db, checkoutId, consent, handOffForSettle, warn);
    },
    async handOffToMerchantSite(checkoutId: string, consent: Consent) {
      return handOffToMerchantSite(db, checkoutId, consent, config.publicBaseUrl);
    },
    async settleCheckout(checkoutId: string, handoff: HandoffResult) {
      return settleCheckout(db, checkoutId, handoff);
    },
    async expireCheckout(checkoutId: string) {
      return expireCheckout(db, checkoutId);
    },
    /** Voids a standing payment authorization and stores the failure (one transaction); returns the stored rejection. */
    async failCheckout(checkoutId: string, rejection: Rejection, opts?: { merchantRefused?: boolean }): Promise<Rejection> {
      return failCheckout(db, checkoutId, rejection, opts);
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
