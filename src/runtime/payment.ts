import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { CheckoutMode } from '../db/schema-checkout';
import { checkoutModeOf, checkoutSeller } from '../checkout/seller';
import { voidAuthorization } from '../matching/payments';
import { recordStep } from './store';

/**
 * Money the gateway authorizes outside a checkout (docs/CHECKOUT.md, "Compensation"): a commerce
 * runtime's `authorize_payment` step, or `POST /v1/match-tokens/{id}/payment-authorization`. The
 * authorization is held for a checkout to hand the order off; it lives as long as its match token.
 */

/** Who voids an authorization nothing took up: the runtime reconciler's sweep. */
export const RECONCILER_AGENT_ID = 'gateway-reconciler';
export const STRANDED_VOID_REASON = 'match_token_expired_without_checkout';
const BATCH = 200;

/**
 * How a checkout of the token's proposal would complete. The runtime authorizes only for
 * `agent_handoff`: a seller without an agent sells on its own page, and money the gateway cannot
 * hand off is never authorized.
 */
export async function paymentModeOfToken(db: Db, matchTokenId: string): Promise<CheckoutMode> {
  const proposal = await db
    .selectFrom('match_tokens as t')
    .innerJoin('proposals as p', 'p.proposal_id', 't.proposal_id')
    .select(['p.merchant_agent_id', 'p.product_id', 'p.provenance'])
    .where('t.match_token_id', '=', matchTokenId)
    .executeTakeFirstOrThrow();
  return checkoutModeOf(await checkoutSeller(db, proposal));
}

export interface VoidedAuthorization {
  authorizationId: string;
  matchTokenId: string;
  /** The commerce runtime that authorized it, when one did (its agent_steps gain a `payment_voided` step). */
  runtimeId: string | null;
}

/** A checkout still able to take up the token's authorization (it hands off, or fails and voids it itself). */
const liveCheckoutStatuses = ['awaiting_confirmation', 'confirming'] as const;

/**
 * The saga's compensation for an authorization no checkout took up: once its match token has expired
 * and no live checkout holds the token, the authorization is voided (token → `expired`, proposal →
 * `pending_confirmation`), audited as a `payment_voided` step of the runtime that authorized it.
 * Each void is one transaction that re-checks under row locks, so a checkout planned meanwhile is
 * never robbed of its authorization; a second sweep finds nothing to do.
 */
export async function voidStrandedAuthorizations(db: Db, opts: { limit?: number } = {}): Promise<VoidedAuthorization[]> {
  const candidates = await db
    .selectFrom('payment_authorizations as a')
    .innerJoin('match_tokens as t', 't.match_token_id', 'a.match_token_id')
    .select(['a.authorization_id', 'a.match_token_id'])
    .where('a.status', '=', 'authorized')
    .where('t.acceptance_state', '=', 'payment_authorized')
    .where('t.expires_at', '<=', sql<Date>`now()`)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('agentic_checkouts as c')
            .select('c.checkout_id')
            .whereRef('c.match_token_id', '=', 'a.match_token_id')
            .where('c.status', 'in', liveCheckoutStatuses),
        ),
      ),
    )
    .orderBy('t.expires_at')
    .limit(opts.limit ?? BATCH)
    .execute();
  const voided: VoidedAuthorization[] = [];
  for (const c of candidates) {
    const done = await db.transaction().execute(async (trx) => {
      const token = await trx
        .selectFrom('match_tokens')
        .select(['acceptance_state', 'expires_at'])
        .where('match_token_id', '=', c.match_token_id)
        .forUpdate()
        .executeTakeFirst();
      if (!token || token.acceptance_state !== 'payment_authorized' || token.expires_at > new Date()) return null;
      const live = await trx
        .selectFrom('agentic_checkouts')
        .select('checkout_id')
        .where('match_token_id', '=', c.match_token_id)
        .where('status', 'in', liveCheckoutStatuses)
        .executeTakeFirst();
      if (live) return null;
      const v = await voidAuthorization(trx, c.authorization_id, STRANDED_VOID_REASON);
      if (!v.voided) return null;
      const run = await trx
        .selectFrom('commerce_runtimes')
        .select([
          'runtime_id',
          sql<number>`(select coalesce(max(index), -1) + 1 from commerce_runtime_steps s where s.runtime_id = commerce_runtimes.runtime_id)`.as(
            'next',
          ),
        ])
        .where('match_token_id', '=', c.match_token_id)
        .executeTakeFirst();
      if (run) {
        await recordStep(trx, {
          runtimeId: run.runtime_id,
          index: Number(run.next),
          agentId: RECONCILER_AGENT_ID,
          kind: 'payment_voided',
          status: 'succeeded',
          inputSummary: `payment authorization ${c.authorization_id} on match token ${c.match_token_id}, which expired at ${token.expires_at.toISOString()} with no checkout holding it`,
          outputSummary: `authorization ${c.authorization_id} voided (${STRANDED_VOID_REASON}); match token → ${v.acceptanceState}, proposal → pending_confirmation. Accept the match again for a new token, then plan a checkout.`,
          consumed: { iterations: 0, merchant_queries: 0, proposal_versions: 0 },
          startedAt: new Date(),
        });
      }
      return { authorizationId: c.authorization_id, matchTokenId: c.match_token_id, runtimeId: run?.runtime_id ?? null };
    });
    if (done) voided.push(done);
  }
  return voided;
}
