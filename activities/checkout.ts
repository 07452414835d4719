import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
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
} from '../src/checkout/checkouts';
import type { Rejection } from '../src/schemas/checkout';
import { authorizeAndHandOff, handOffAndSettle } from '../src/checkout/confirm';
import {
  cancelMerchantSession,
  completeMerchantSession,
  openMerchantSession,
  SessionRefused,
  type SessionDeps,
} from '../src/checkout/merchant-session';
import { createSessionAdapters, type SessionAdapters } from '../src/protocols/adapters';
import { ucpDiscoverer } from '../src/registry/ucp-discovery';

/** Activities of the agenticCheckout workflow: thin wrappers over src/checkout (the only I/O of the flow). */
export function createCheckoutActivities({ db, config }: ActivityDeps) {
  // The UCP/ACP adapters, built once per worker on first use (the UCP signer's key is parsed then).
  let adapters: Promise<SessionAdapters> | undefined;
  const sessionDeps = async (): Promise<SessionDeps> => ({
    db,
    keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
    adapters: await (adapters ??= createSessionAdapters({
      allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
      timeoutMs: config.DISPATCH_TIMEOUT_MS,
      publicBaseUrl: config.publicBaseUrl,
      ucpSigningKey: config.UCP_SIGNING_KEY,
    })),
    defaultHandler: config.PROTOCOL_PAYMENT_HANDLER ?? null,
    discoverUcp: ucpDiscoverer({ allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS, timeoutMs: config.DISPATCH_TIMEOUT_MS }),
  });
  /**
   * The merchant handoff, inside the workflow's local activities (src/checkout/confirm.ts): a worker
   * that dies mid-handoff is noticed by the workflow task timeout, and the next attempt (same
   * Idempotency-Key) goes out on another worker; the audit numbers attempts itself (a local activity's
   * attempt count starts again after a worker died). The merchant's answer is left to the settle, which
   * writes it in its transaction.
   */
  const handOffForSettle =
    (viaSession: boolean) =>
    async (checkoutId: string): Promise<HandoffResult> => {
      try {
        // A UCP/ACP merchant's order is placed by completing its session; a gateway agent's by the webhook.
        if (viaSession) return await completeMerchantSession(await sessionDeps(), checkoutId);
        return await handOffToMerchant(
          {
            db,
            keyEncryptionKey: config.KEY_ENCRYPTION_KEY,
            allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
            timeoutMs: config.DISPATCH_TIMEOUT_MS,
          },
          checkoutId,
          { recordAnswer: false },
        );
      } catch (err) {
        // A protocol merchant's refusal keeps its own code (payment_declined, price_changed, …).
        if (err instanceof SessionRefused)
          throw ApplicationFailure.nonRetryable(err.message, 'merchant_handoff_rejected', { code: err.code });
        if (err instanceof HandoffRejected) throw ApplicationFailure.nonRetryable(err.message, 'merchant_handoff_rejected');
        throw err;
      }
    };
  const warn = (message: string, attrs: Record<string, unknown>) => Context.current().log.warn(message, attrs);
  return {
    async planCheckout(req: CheckoutRequest) {
      return planCheckout(db, req, config.CHECKOUT_PLAN_TTL_S, config.publicBaseUrl);
    },
    async authorizeCheckout(checkoutId: string, consent: Consent) {
      return authorizeCheckout(db, checkoutId, consent);
    },
    /** The handoff, then the settle (src/checkout/confirm.ts): after an authorization left to the workflow. */
    /** `viaSession`: the plan opened a UCP/ACP merchant's session (the order is placed by completing it). */
    async handOffAndSettle(checkoutId: string, viaSession = false) {
      return handOffAndSettle(db, checkoutId, handOffForSettle(viaSession), warn);
    },
    /** Authorize, hand off, settle: the confirm's one step (src/checkout/confirm.ts). */
    async authorizeAndHandOff(checkoutId: string, consent: Consent, viaSession = false) {
      return authorizeAndHandOff(db, checkoutId, consent, handOffForSettle(viaSession), warn);
    },
    /** A UCP/ACP merchant's checkout session, opened for the plan (src/checkout/merchant-session.ts). */
    async openMerchantSession(checkoutId: string) {
      return openMerchantSession(await sessionDeps(), checkoutId);
    },
    /** Cancels the merchant's session of a checkout that will not complete (`sessionId`: one the plan's refusal named). */
    async cancelMerchantSession(checkoutId: string, sessionId: string | null) {
      return cancelMerchantSession(await sessionDeps(), checkoutId, sessionId);
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
