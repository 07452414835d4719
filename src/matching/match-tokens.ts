import { fromMinorUnits } from '../money';
import { sql, type QueryCreator, type Selectable, type Transaction } from 'kysely';
import { SignJWT } from 'jose';
import type { Db } from '../db/connect';
import type { Database } from '../db/schema';
import type { MatchTokensTable } from '../db/schema-matching';
import type { SigningKey } from '../crypto/signing-keys';
import { AppError } from '../errors';
import { newId } from '../ids';
import { intentView, getIntent } from './intents';
import { matchNotFound } from './match-sessions';
import { proposalNotFound, proposalView, transitionProposal } from './proposals';
import { iso } from '../time';
import { mayAct, mayRead, owns, SYSTEM, type Caller } from '../tenancy';

export type MatchTokenRow = Selectable<MatchTokensTable>;

export const matchTokenNotFound = (id: string) => new AppError(404, 'match_token_not_found', `No match token '${id}'.`);

/**
 * A token as `viewer` may see it: `trace_ids` (request, API key and developer ids of the accept) are
 * internal and shown to the token's owner only; anyone else (a token without an owner is readable by
 * id) sees an empty object.
 */
export function matchTokenView(t: MatchTokenRow, viewer: Caller) {
  return {
    match_token_id: t.match_token_id,
    match_session_id: t.match_session_id,
    intent_id: t.intent_id,
    proposal_id: t.proposal_id,
    acceptance_state: t.acceptance_state,
    amount: fromMinorUnits(t.amount_cents, t.currency),
    currency: t.currency,
    intent_snapshot: t.intent_snapshot,
    proposal_snapshot: t.proposal_snapshot,
    ranking_snapshot: t.ranking_snapshot,
    trace_ids: owns(viewer, t.developer_id) ? t.trace_ids : {},
    signed_token: t.signed_token,
    issued_at: iso(t.issued_at),
    expires_at: iso(t.expires_at),
    accepted_at: iso(t.accepted_at),
  };
}

/** Persists the expiry of tokens past their lifetime that nothing has paid against (before a write). */
export async function expireDueTokens(db: Db | Transaction<Database>, scope: { tokenId?: string; sessionId?: string }): Promise<void> {
  await expiringTokens(db, scope).execute();
}

/** The update expireDueTokens runs, returning the ids it expired (for a data-modifying CTE beside a read). */
function expiringTokens(q: QueryCreator<Database>, scope: { tokenId?: string; sessionId?: string }) {
  return q
    .updateTable('match_tokens')
    .set({ acceptance_state: 'expired', updated_at: sql<Date>`now()` })
    .where('expires_at', '<=', sql<Date>`now()`)
    .where('acceptance_state', 'in', ['issued', 'accepted'])
    .$if(Boolean(scope.tokenId), (w) => w.where('match_token_id', '=', scope.tokenId!))
    .$if(Boolean(scope.sessionId), (w) => w.where('match_session_id', '=', scope.sessionId!))
    .returning('match_token_id');
}

/** A token past its lifetime that nothing has paid against, by the database's clock: due to be stored `expired`. */
export const tokenDue = sql<boolean>`acceptance_state in ('issued', 'accepted') and expires_at <= now()`;

/** A due token reads as `expired` (writes persist it). */
const effectiveState = sql<MatchTokenRow['acceptance_state']>`case when ${tokenDue} then 'expired' else acceptance_state end`;

export function selectTokens(db: Db) {
  return db
    .selectFrom('match_tokens')
    .select([
      'match_token_id',
      'match_session_id',
      'intent_id',
      'proposal_id',
      'amount_cents',
      'currency',
      'intent_snapshot',
      'proposal_snapshot',
      'ranking_snapshot',
      'trace_ids',
      'signed_token',
      'issued_at',
      'expires_at',
      'accepted_at',
      'updated_at',
      'developer_id',
      effectiveState.as('acceptance_state'),
    ]);
}

/** A token its developer's keys may read (or anyone, for a token without an owner); else 404. */
export async function getMatchToken(db: Db, id: string, caller: Caller): Promise<MatchTokenRow> {
  const t = await selectTokens(db).where('match_token_id', '=', id).executeTakeFirst();
  if (!t || !mayRead(caller, t.developer_id)) throw matchTokenNotFound(id);
  return t;
}

export interface AcceptDeps {
  db: Db;
  signingKey: SigningKey;
  issuer: string;
  ttlSeconds: number;
}

/** The compact JWS a checkout confirm presents: who may pay what, for which proposal, until when. */
async function signMatchToken(
  deps: AcceptDeps,
  t: {
    id: string;
    sessionId: string;
    intentId: string;
    proposalId: string;
    merchantId: string;
    amountCents: number;
    currency: string;
    issuedAt: Date;
    expiresAt: Date;
  },
) {
  return new SignJWT({
    sid: t.sessionId,
    intent_id: t.intentId,
    proposal_id: t.proposalId,
    merchant_id: t.merchantId,
    amount: fromMinorUnits(t.amountCents, t.currency),
    currency: t.currency,
  })
    .setProtectedHeader({ alg: deps.signingKey.alg, kid: deps.signingKey.kid, typ: 'match-token+jwt' })
    .setJti(t.id)
    .setIssuer(deps.issuer)
    .setIssuedAt(Math.floor(t.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(t.expiresAt.getTime() / 1000))
    .sign(deps.signingKey.privateKey);
}

/**
 * Accept (docs/MATCHING.md): mint a token for a ranked proposal (the one named, else the best), or confirm
 * an existing token of this session. Idempotent: a proposal with a live token gets that token back.
 * The session row is locked, so concurrent accepts of one session are serialized.
 */
export async function acceptMatch(
  deps: AcceptDeps,
  sessionId: string,
  body: { proposal_id?: string; match_token_id?: string },
  trace: { requestId: string; keyId?: string },
  caller: Caller,
  /** Fixed by the request's Idempotency-Key claim (a retry names the same token); a live token is answered anyway. */
  tokenId: string = newId('mt'),
): Promise<MatchTokenRow> {
  return deps.db.transaction().execute(async (trx) => {
    const session = await trx
      .selectFrom('match_sessions')
      .selectAll()
      .where('match_session_id', '=', sessionId)
      .forUpdate()
      .executeTakeFirst();
    // Another developer's session (or one without an owner) is not there for this caller.
    if (!session || !mayAct(caller, session.developer_id)) throw matchNotFound(sessionId);
    const now = new Date();
    if (session.status === 'expired' || session.expires_at <= now) {
      await trx
        .updateTable('match_sessions')
        .set({ status: 'expired', updated_at: now })
        .where('match_session_id', '=', sessionId)
        .execute();
      throw new AppError(409, 'match_session_expired', `Match session ${sessionId} expired at ${session.expires_at.toISOString()}.`);
    }
    if (body.match_token_id) {
      await expireDueTokens(trx, { sessionId });
      const token = await trx
        .selectFrom('match_tokens')
        .selectAll()
        .where('match_token_id', '=', body.match_token_id)
        .where('match_session_id', '=', sessionId)
        .executeTakeFirst();
      if (!token) throw matchTokenNotFound(body.match_token_id);
      if (token.acceptance_state === 'expired' || token.acceptance_state === 'revoked') {
        throw new AppError(
          409,
          'match_token_expired',
          `Match token ${token.match_token_id} is ${token.acceptance_state}; accept the proposal again for a new one.`,
        );
      }
      if (token.acceptance_state !== 'issued') return token;
      return trx
        .updateTable('match_tokens')
        .set({ acceptance_state: 'accepted', accepted_at: now, updated_at: now })
        .where('match_token_id', '=', token.match_token_id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }

    const ranked = session.ranked_proposals;
    const proposalId = body.proposal_id ?? session.best_proposal_id;
    if (!proposalId) throw new AppError(409, 'no_ranked_proposals', `Match session ${sessionId} has no ranked proposal to accept.`);
    const entry = ranked.find((r) => r.proposal_id === proposalId);
    if (!entry) {
      // Whether another developer's proposal exists is not this caller's business: 404 for those too.
      const exists = await trx
        .selectFrom('proposals as p')
        .innerJoin('intents as i', 'i.intent_id', 'p.intent_id')
        .select(['p.proposal_id', 'i.developer_id'])
        .where('p.proposal_id', '=', proposalId)
        .executeTakeFirst();
      if (!exists || !mayAct(caller, exists.developer_id)) throw proposalNotFound(proposalId);
      throw new AppError(409, 'proposal_not_in_session', `Proposal ${proposalId} was not ranked in match session ${sessionId}.`);
    }
    // The session's tokens past their lifetime are expired in the same statement that looks for a live
    // one (the read sees the rows as they were before, so those it expires are left out by id).
    const live = await trx
      .with('expired', (q) => expiringTokens(q, { sessionId }))
      .selectFrom('match_tokens')
      .selectAll()
      .where('match_session_id', '=', sessionId)
      .where('proposal_id', '=', proposalId)
      .where('acceptance_state', 'not in', ['expired', 'revoked'])
      .where('match_token_id', 'not in', (eb) => eb.selectFrom('expired').select('match_token_id'))
      .executeTakeFirst();
    if (live) return live;

    // An expired proposal is refused as such (checked on the row the move locks).
    const proposal = await transitionProposal(trx, proposalId, 'pending_confirmation', `match token for session ${sessionId}`, (p) => {
      if (p.proposal_state === 'expired') throw new AppError(409, 'proposal_expired', `Proposal ${proposalId} has expired.`);
    });
    // On this transaction's connection: a second one from the pool while this one is held deadlocks a
    // saturated pool (every accept holding one and waiting for another).
    const intent = await getIntent(trx, session.intent_id, SYSTEM);
    const id = tokenId;
    const expiresAt = new Date(now.getTime() + deps.ttlSeconds * 1000);
    const signed = await signMatchToken(deps, {
      id,
      sessionId,
      intentId: session.intent_id,
      proposalId,
      merchantId: proposal.merchant_agent_id,
      amountCents: proposal.price_cents,
      currency: proposal.currency,
      issuedAt: now,
      expiresAt,
    });
    // The session (when still open) becomes accepted in the token's statement.
    return trx
      .with('session', (q) =>
        q
          .updateTable('match_sessions')
          .set({ status: 'accepted', updated_at: now })
          .where('match_session_id', '=', sessionId)
          .where('status', '=', 'open')
          .returning('match_session_id'),
      )
      .insertInto('match_tokens')
      .values({
        match_token_id: id,
        match_session_id: sessionId,
        intent_id: session.intent_id,
        proposal_id: proposalId,
        acceptance_state: 'accepted',
        amount_cents: proposal.price_cents,
        currency: proposal.currency,
        intent_snapshot: JSON.stringify(intentView(intent)),
        proposal_snapshot: JSON.stringify(proposalView(proposal)),
        ranking_snapshot: JSON.stringify({
          ...entry,
          ranked_count: ranked.length,
          weights: (session.summary as { weights?: unknown }).weights ?? null,
        }),
        trace_ids: JSON.stringify({
          request_id: trace.requestId,
          match_session_id: sessionId,
          api_key_id: trace.keyId ?? null,
          developer_id: session.developer_id,
        }),
        developer_id: session.developer_id,
        signed_token: signed,
        issued_at: now,
        expires_at: expiresAt,
        accepted_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
