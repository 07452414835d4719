import type { Db } from '../db/connect';
import { within } from '../time';
import { authorizeCheckout, settleCheckout, type AuthorizeResult, type CheckoutView, type Consent, type HandoffResult } from './checkouts';

/** The merchant handoff as the activity runs it (attempt numbering, rejection type). */
type HandOff = (checkoutId: string) => Promise<HandoffResult>;
/** Where a write left to the workflow is reported (the activity's log). */
type Warn = (message: string, attrs: Record<string, unknown>) => void;

export type SettledHandoff = HandoffResult & { confirmed: CheckoutView | null };

/**
 * How long the combined step waits for the authorization. A Postgres that hangs instead of refusing
 * would run the activity into its 30 s start-to-close timeout, whose retries are the merchant's
 * attempts: after the last one the checkout would fail as a handoff that was never sent. Past this
 * bound the authorization is left to the workflow's own step, as a refused one is (the bound leaves
 * room for the handoff's ≤ 15 s inside the 30 s).
 */
export const AUTHORIZE_WAIT_MS = 10_000;

/**
 * A write tried once, inside a local activity whose retry would send the handoff again: when Postgres
 * fails it, null comes back and the workflow's own step for it, which retries until Postgres answers,
 * writes it (the same result).
 */
function onceOrLeftToWorkflow<T>(write: Promise<T>, what: string, checkoutId: string, warn: Warn): Promise<T | null> {
  return write.catch((err: unknown) => {
    warn(`${what} failed; the workflow's own step writes it`, {
      checkout_id: checkoutId,
      error: err instanceof Error ? err.message : String(err),
    });
    return null;
  });
}

/**
 * The handoff and, when the merchant took the order, the settle:
 * one activation of the workflow fewer. The merchant's answer is written with the settle, in its
 * transaction (`handOff` leaves it to the settle); `confirmed` is null when the settle is left to the
 * workflow.
 */
export async function handOffAndSettle(db: Db, checkoutId: string, handOff: HandOff, warn: Warn): Promise<SettledHandoff> {
  const handoff = await handOff(checkoutId);
  return {
    ...handoff,
    confirmed: await onceOrLeftToWorkflow(settleCheckout(db, checkoutId, handoff), 'settle after the handoff', checkoutId, warn),
  };
}

/**
 * The whole confirm after the buyer's consent, one local activity: authorize the
 * payment, hand the order to the merchant, settle; one activation of the workflow instead of two. The
 * authorization is idempotent, so a retry for the merchant's sake finds it made and goes on to the
 * handoff. An authorization that could not be reached (Postgres away, or no answer within
 * AUTHORIZE_WAIT_MS) is not thrown: an error here would spend the merchant's attempts and read as a
 * failed handoff. `payment` is then null and the workflow runs the separate steps.
 */
export async function authorizeAndHandOff(
  db: Db,
  checkoutId: string,
  consent: Consent,
  handOff: HandOff,
  warn: Warn,
): Promise<{ payment: AuthorizeResult | null; handoff: SettledHandoff | null }> {
  const authorizing = within(authorizeCheckout(db, checkoutId, consent), AUTHORIZE_WAIT_MS).then(
    (r) => r ?? Promise.reject(new Error(`no answer within ${AUTHORIZE_WAIT_MS} ms`)),
  );
  const payment = await onceOrLeftToWorkflow(authorizing, 'authorization', checkoutId, warn);
  if (!payment?.ok) return { payment, handoff: null };
  return { payment, handoff: await handOffAndSettle(db, checkoutId, handOff, warn) };
}
