import type { Selectable, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { Db } from '../db/connect';
import type { PaymentAuthorizationsTable } from '../db/schema-matching';
import { AppError } from '../errors';
import { newId } from '../ids';
import { expireDueTokens, tokenDue, type MatchTokenRow } from './match-tokens';
import { fromMinorUnits, toMinorUnits } from '../money';
import { transitionProposal } from './proposals';
import { mayAct, mayRead, type Caller } from '../tenancy';

/**
 * Payment authorization against a match token (docs/MATCHING.md). It succeeds only when every check
 * holds; each failing check has its own 409 code so a payment agent knows what to fix. Repeating a
 * successful authorization returns the same record.
 */

export type PaymentAuthorizationRow = Selectable<PaymentAuthorizationsTable>;

const conflict = (code: string, message: string, details?: Record<string, unknown>) => new AppError(409, code, message, details);

export function paymentAuthorizationView(a: PaymentAuthorizationRow, intentId: string) {
  return {
    authorization_id: a.authorization_id,
    status: a.status,
    match_token_id: a.match_token_id,
    proposal_id: a.proposal_id,
    intent_id: intentId,
    amount: fromMinorUnits(a.amount_cents, a.currency),
    currency: a.currency,
    authorized_at: a.authorized_at.toISOString(),
    voided_at: a.voided_at ? a.voided_at.toISOString() : null,
    void_reason: a.void_reason,
  };
}

/**
 * GET /v1/payment-authorizations/{id}: an authorization and its status (`voided` once a checkout
 * that could not complete, or the reconciler, released it). Another developer's is not there for
 * the caller: 404 `payment_authorization_not_found`, as an id that names nothing.
 */
export async function getPaymentAuthorizationAs(db: Db, authorizationId: string, caller: Caller) {
  const row = await db
    .selectFrom('payment_authorizations as a')
    .innerJoin('match_tokens as t', 't.match_token_id', 'a.match_token_id')
    .selectAll('a')
    .select('t.intent_id')
    .where('a.authorization_id', '=', authorizationId)
    .executeTakeFirst();
  if (!row || !mayRead(caller, row.developer_id)) {
    throw new AppError(404, 'payment_authorization_not_found', `No payment authorization '${authorizationId}'.`);
  }
  const { intent_id, ...authorization } = row;
  return paymentAuthorizationView(authorization, intent_id);
}

export interface PaymentRequest {
  expected_amount?: number;
  currency?: string;
  proposal_id?: string;
}

/** The first way the request disagrees with what the token authorizes, if any. */
function requestMismatch(req: PaymentRequest, t: { proposalId: string; amountCents: number; currency: string }): AppError | undefined {
  if (req.proposal_id !== undefined && req.proposal_id !== t.proposalId) {
    return conflict('proposal_mismatch', `The match token names proposal ${t.proposalId}, not ${req.proposal_id}.`, {
      expected_proposal_id: t.proposalId,
    });
  }
  if (req.expected_amount !== undefined && toMinorUnits(req.expected_amount, t.currency) !== t.amountCents) {
    const amount = fromMinorUnits(t.amountCents, t.currency);
    return conflict('amount_mismatch', `expected_amount ${req.expected_amount} does not match the proposal price ${amount}.`, { amount });
  }
  if (req.currency !== undefined && req.currency.toUpperCase() !== t.currency) {
    return conflict('currency_mismatch', `currency ${req.currency} does not match the proposal currency ${t.currency}.`, {
      currency: t.currency,
    });
  }
  return undefined;
}

/** An authorization, or the 409 that refused it (returned, so that what the check wrote is committed). */
export type AuthorizationResult =
  { ok: true; authorization: PaymentAuthorizationRow; token: MatchTokenRow } | { ok: false; error: AppError };

export async function authorizePayment(
  db: Db,
  tokenId: string,
  req: PaymentRequest,
  caller: Caller,
  trace: { keyId?: string } = {},
  /** Fixed by the request's Idempotency-Key claim; the token's state makes a second authorization impossible anyway. */
  authorizationId: string = newId('pauth'),
): Promise<{ authorization: PaymentAuthorizationRow; token: MatchTokenRow }> {
  const result = await db.transaction().execute((trx) => authorizeInTransaction(trx, tokenId, req, caller, trace, authorizationId));
  if (!result.ok) throw result.error;
  return result;
}

/**
 * The authorization inside the caller's transaction (a checkout records it with the consent in one
 * commit). A refusal is returned, not thrown: a token found past its lifetime is stored `expired` by
 * the same transaction, which the caller commits.
 */
export async function authorizeInTransaction(
  trx: Transaction<Database>,
  tokenId: string,
  req: PaymentRequest,
  caller: Caller,
  trace: { keyId?: string } = {},
  authorizationId: string = newId('pauth'),
): Promise<AuthorizationResult> {
  const refuse = (code: string, message: string, details?: Record<string, unknown>) => ({
    ok: false as const,
    error: conflict(code, message, details),
  });
  const found = await trx
    .selectFrom('match_tokens')
    .selectAll()
    .select(tokenDue.as('due'))
    .where('match_token_id', '=', tokenId)
    .forUpdate()
    .executeTakeFirst();
  // Another developer's token answers as an unknown one (this operation's not-found is 409 match_token_invalid).
  if (!found || !mayAct(caller, found.developer_id)) return refuse('match_token_invalid', `No match token '${tokenId}'.`);
  const { due, ...token } = found;
  if (due) {
    // Past its lifetime and unpaid: stored as the `expired` it already reads as everywhere.
    await expireDueTokens(trx, { tokenId });
    token.acceptance_state = 'expired';
  }

  if (token.acceptance_state === 'payment_authorized') {
    const existing = await trx
      .selectFrom('payment_authorizations')
      .selectAll()
      .where('match_token_id', '=', tokenId)
      .where('status', '=', 'authorized')
      .executeTakeFirstOrThrow();
    const mismatch = requestMismatch(req, {
      proposalId: existing.proposal_id,
      amountCents: existing.amount_cents,
      currency: existing.currency,
    });
    return mismatch ? { ok: false, error: mismatch } : { ok: true, authorization: existing, token };
  }
  if (token.acceptance_state === 'expired') {
    return refuse('match_token_expired', `Match token ${tokenId} expired at ${token.expires_at.toISOString()}.`, {
      acceptance_state: token.acceptance_state,
    });
  }
  if (token.acceptance_state !== 'accepted') {
    return refuse('acceptance_state_invalid', `Match token ${tokenId} is ${token.acceptance_state}; payment needs an accepted token.`, {
      acceptance_state: token.acceptance_state,
    });
  }

  const proposal = await trx
    .selectFrom('proposals')
    .selectAll()
    .where('proposal_id', '=', token.proposal_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (proposal.proposal_state === 'expired' || (proposal.valid_until && proposal.valid_until <= new Date())) {
    return refuse('proposal_expired', `Proposal ${proposal.proposal_id} has expired.`, { proposal_state: 'expired' });
  }
  if (proposal.proposal_state !== 'pending_confirmation') {
    return refuse(
      'proposal_state_invalid',
      `Proposal ${proposal.proposal_id} is ${proposal.proposal_state}; payment needs pending_confirmation.`,
      { proposal_state: proposal.proposal_state },
    );
  }
  if (proposal.price_cents !== token.amount_cents || proposal.currency !== token.currency) {
    return refuse('amount_mismatch', 'The proposal price no longer matches the match token.', {
      amount: fromMinorUnits(proposal.price_cents, proposal.currency),
    });
  }
  const mismatch = requestMismatch(req, {
    proposalId: proposal.proposal_id,
    amountCents: proposal.price_cents,
    currency: proposal.currency,
  });
  if (mismatch) return { ok: false, error: mismatch };

  const now = new Date();
  const authorization = await trx
    .insertInto('payment_authorizations')
    .values({
      authorization_id: authorizationId,
      match_token_id: tokenId,
      proposal_id: proposal.proposal_id,
      amount_cents: proposal.price_cents,
      currency: proposal.currency,
      authorized_at: now,
      key_id: trace.keyId ?? null,
      developer_id: token.developer_id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const updated = await trx
    .updateTable('match_tokens')
    .set({ acceptance_state: 'payment_authorized', updated_at: now })
    .where('match_token_id', '=', tokenId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await transitionProposal(
    trx,
    proposal.proposal_id,
    'accepted',
    `payment authorized (${authorization.authorization_id})`,
    undefined,
    proposal,
  );
  return { ok: true, authorization, token: updated };
}

/**
 * Compensation for an authorization whose order could not be handed off (a checkout saga): the
 * authorization is voided, the token goes back to `accepted` (or `expired` past its lifetime) and
 * the proposal back to `pending_confirmation`, so the buyer's agent may try again. Runs inside the
 * caller's transaction; voiding twice changes nothing. Returns the token's state afterwards.
 */
export async function voidAuthorization(
  trx: Transaction<Database>,
  authorizationId: string,
  reason: string,
): Promise<{ voided: boolean; tokenId: string; acceptanceState: MatchTokenRow['acceptance_state']; tokenExpiresAt: Date }> {
  const a = await trx
    .selectFrom('payment_authorizations')
    .selectAll()
    .where('authorization_id', '=', authorizationId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const token = await trx
    .selectFrom('match_tokens')
    .selectAll()
    .where('match_token_id', '=', a.match_token_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (a.status === 'voided')
    return { voided: false, tokenId: token.match_token_id, acceptanceState: token.acceptance_state, tokenExpiresAt: token.expires_at };
  const now = new Date();
  await trx
    .updateTable('payment_authorizations')
    .set({ status: 'voided', voided_at: now, void_reason: reason })
    .where('authorization_id', '=', authorizationId)
    .execute();
  let state = token.acceptance_state;
  if (state === 'payment_authorized') {
    state = token.expires_at > now ? 'accepted' : 'expired';
    await trx
      .updateTable('match_tokens')
      .set({ acceptance_state: state, updated_at: now })
      .where('match_token_id', '=', token.match_token_id)
      .execute();
    const p = await trx.selectFrom('proposals').select('proposal_state').where('proposal_id', '=', a.proposal_id).executeTakeFirst();
    if (p?.proposal_state === 'accepted')
      await transitionProposal(trx, a.proposal_id, 'pending_confirmation', `payment authorization ${authorizationId} voided: ${reason}`);
  }
  return { voided: true, tokenId: token.match_token_id, acceptanceState: state, tokenExpiresAt: token.expires_at };
}
