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
  type AuthorizeResult,
  type CheckoutRequest,
  type CheckoutView,
  type Consent,
  type HandoffResult,
  type Rejection,
} from '../src/checkout/checkouts';

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
  /**
   * The handoff and, when the merchant took the order, the settle (patch `checkout-handoff-settles`):
   * one activation of the workflow fewer. The merchant's answer is written with the settle, in its
   * transaction. A settle that fails here (Postgres away) is not retried here, where a retry would
   * send the handoff again: `confirmed` is null and the workflow's own settle step takes over with
   * the same result (answer included), retrying until it is done.
   */
  const handOffAndSettle = async (checkoutId: string): Promise<HandoffResult & { confirmed: CheckoutView | null }> => {
    const handoff = await handOff(checkoutId, false);
    const confirmed = await settleCheckout(db, checkoutId, handoff).catch((err: unknown) => {
      Context.current().log.warn("settle after the merchant's handoff failed; the workflow's settle step writes it", {
        checkout_id: checkoutId,
        error: err instanceof Error ? err.message : String(err),
      });
      return null;
    });
    return { ...handoff, confirmed };
  };
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
    handOffAndSettle,
    /**
     * The whole confirm after the buyer's consent in one local activity (patch
     * `checkout-confirm-one-activity`): authorize the payment, hand the order to the merchant, settle.
     * One activation of the workflow instead of two. The authorization is idempotent, so a retry for
     * the merchant's sake finds it made and goes on to the handoff. An authorization that could not be
     * reached (Postgres away) is not thrown: an error here would spend the merchant's attempts and read
     * as a failed handoff. `payment` is then null and the workflow runs the separate steps, which retry
     * until Postgres is back.
     */
    async authorizeAndHandOff(
      checkoutId: string,
      consent: Consent,
    ): Promise<{ payment: AuthorizeResult | null; handoff: (HandoffResult & { confirmed: CheckoutView | null }) | null }> {
      const payment = await authorizeCheckout(db, checkoutId, consent).catch((err: unknown) => {
        Context.current().log.warn('authorization failed; the workflow authorizes in a step of its own', {
          checkout_id: checkoutId,
          error: err instanceof Error ? err.message : String(err),
        });
        return null;
      });
      if (!payment?.ok) return { payment, handoff: null };
      return { payment, handoff: await handOffAndSettle(checkoutId) };
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
