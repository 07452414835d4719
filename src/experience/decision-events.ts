import type { Selectable } from 'kysely';
import type { Db } from '../db/connect';
import { DECISION_EVENT_TYPES, type DecisionEventsTable, type DecisionEventType } from '../db/schema-supply';
import { AppError } from '../errors';
import { newId } from '../ids';
import { getProduct, productNotFound } from '../catalog/products';
import { getOwnIntent, type IntentRow } from '../matching/intents';
import { mayAct, ownerOf, type Caller } from '../tenancy';
import { matchTokenNotFound } from '../matching/match-tokens';
import { proposalNotFound, type ProposalRow } from '../matching/proposals';
import { EVENTS_NEEDING_PROPOSAL, type DecisionEventInput, type DecisionEventT, type ExperiencePreviewT } from '../schemas/experience';
import { iso } from '../time';
import { buildPreview, isBuiltPreview, readContext, remixPreview } from './preview';

export type DecisionEventRow = Selectable<DecisionEventsTable>;

const invalid = (field: string, message: string) =>
  new AppError(400, 'invalid_payload', `Invalid ${field}: ${message}`, { fields: [field] });

function eventType(v: unknown): DecisionEventType {
  if (typeof v === 'string' && (DECISION_EVENT_TYPES as readonly string[]).includes(v)) return v as DecisionEventType;
  const given = v === undefined || v === null || v === '' ? 'no event_type' : `event_type ${JSON.stringify(v)}`;
  throw new AppError(
    400,
    'unsupported_decision_event',
    `Unsupported decision event: ${given}. Use one of ${DECISION_EVENT_TYPES.join(', ')}.`,
    { fields: ['event_type'] },
  );
}

function agentOf(input: DecisionEventInput, payload: Record<string, unknown>): string | null {
  const inPayload = payload.agent_id;
  if (inPayload !== undefined && (typeof inPayload !== 'string' || !inPayload.trim() || inPayload.length > 200))
    throw invalid('payload.agent_id', 'a non-empty text of at most 200 characters.');
  if (input.agent_id && typeof inPayload === 'string' && inPayload !== input.agent_id)
    throw invalid('agent_id', 'agent_id and payload.agent_id name different agents.');
  return input.agent_id ?? (inPayload as string | undefined) ?? null;
}

export function decisionEventView(e: DecisionEventRow): DecisionEventT {
  const payload = (e.payload ?? {}) as Record<string, unknown>;
  return {
    feedback_id: e.feedback_id,
    event_type: e.event_type,
    intent_id: e.intent_id,
    proposal_id: e.proposal_id,
    match_token_id: e.match_token_id,
    product_id: e.product_id,
    merchant_id: e.merchant_id,
    agent_id: e.agent_id,
    payload,
    ...(e.event_type === 'remix' && isBuiltPreview(payload.revised_experience_preview)
      ? { revised_experience_preview: payload.revised_experience_preview }
      : {}),
    created_at: iso(e.created_at),
  };
}

interface References {
  intent: IntentRow | null;
  proposal: ProposalRow | null;
  token: { match_token_id: string; proposal_id: string; intent_id: string } | null;
}

/** Every named reference must exist (404) and they must agree with each other (409). */
async function resolveReferences(db: Db, input: DecisionEventInput, caller: Caller): Promise<References> {
  const [intent, proposalRow, token, product] = await Promise.all([
    // Events are about the caller's own records: another developer's answer as ids that do not exist.
    input.intent_id ? getOwnIntent(db, input.intent_id, caller) : null,
    input.proposal_id
      ? db
          .selectFrom('proposals as p')
          .innerJoin('intents as i', 'i.intent_id', 'p.intent_id')
          .selectAll('p')
          .select('i.developer_id as intent_developer_id')
          .where('p.proposal_id', '=', input.proposal_id)
          .executeTakeFirst()
      : null,
    input.match_token_id
      ? db
          .selectFrom('match_tokens')
          .select(['match_token_id', 'proposal_id', 'intent_id', 'developer_id'])
          .where('match_token_id', '=', input.match_token_id)
          .executeTakeFirst()
      : null,
    input.product_id ? getProduct(db, input.product_id) : null,
  ]);
  if (input.proposal_id && (!proposalRow || !mayAct(caller, proposalRow.intent_developer_id))) throw proposalNotFound(input.proposal_id);
  if (input.match_token_id && (!token || !mayAct(caller, token.developer_id))) throw matchTokenNotFound(input.match_token_id);
  const proposal: ProposalRow | null = proposalRow ? (({ intent_developer_id: _owner, ...p }) => p)(proposalRow) : null;
  if (input.product_id && !product) throw productNotFound(input.product_id);
  if (token && proposal && token.proposal_id !== proposal.proposal_id) {
    throw new AppError(
      409,
      'match_token_mismatch',
      `Match token ${token.match_token_id} names proposal ${token.proposal_id}, not ${proposal.proposal_id}.`,
    );
  }
  const offer =
    proposal ??
    (token ? await db.selectFrom('proposals').selectAll().where('proposal_id', '=', token.proposal_id).executeTakeFirstOrThrow() : null);
  if (intent && offer && offer.intent_id !== intent.intent_id) {
    throw new AppError(
      409,
      'proposal_intent_mismatch',
      `Proposal ${offer.proposal_id} answers intent ${offer.intent_id}, not ${intent.intent_id}.`,
    );
  }
  if (input.product_id && offer && offer.product_id !== input.product_id) {
    throw new AppError(
      409,
      'product_mismatch',
      `Proposal ${offer.proposal_id} offers product ${offer.product_id}, not ${input.product_id}.`,
    );
  }
  return { intent: intent ?? null, proposal: offer, token: token ?? null };
}

/** confirm: the given token, else the proposal's newest one. */
async function confirmedToken(db: Db, refs: References): Promise<string> {
  if (refs.token) return refs.token.match_token_id;
  const newest = await db
    .selectFrom('match_tokens')
    .select('match_token_id')
    .where('proposal_id', '=', refs.proposal!.proposal_id)
    .orderBy('issued_at', 'desc')
    .orderBy('match_token_id', 'desc')
    .executeTakeFirst();
  if (!newest)
    throw new AppError(
      409,
      'match_token_not_issued',
      `Proposal ${refs.proposal!.proposal_id} has no match token yet; accept it in a match session first (POST /v1/match/{id}/accept).`,
    );
  return newest.match_token_id;
}

/**
 * The preview a remix starts from: the latest remix of the same proposal (or, without one, of the
 * same catalog product by the same agent), else the proposal's own preview, else a fresh one.
 */
async function remixBase(
  db: Db,
  productId: number,
  proposal: ProposalRow | null,
  agentId: string | null,
  intent: IntentRow | null,
  caller: Caller,
): Promise<{ base: ExperiencePreviewT; product: { product_id: number; title: string; brand: string | null } }> {
  // Only the caller's developer's remixes: another developer's edits are theirs (docs/TENANCY.md).
  const owner = ownerOf(caller);
  let q = db
    .selectFrom('decision_events')
    .select('payload')
    .where('event_type', '=', 'remix')
    .where('developer_id', owner === null ? 'is' : '=', owner);
  q = proposal
    ? q.where('proposal_id', '=', proposal.proposal_id)
    : q
        .where('proposal_id', 'is', null)
        .where('product_id', '=', productId)
        .where('agent_id', agentId === null ? 'is' : '=', agentId);
  const [last, product] = await Promise.all([
    q.orderBy('created_at', 'desc').orderBy('feedback_id', 'desc').executeTakeFirst(),
    getProduct(db, productId),
  ]);
  if (!product) throw productNotFound(productId);
  const previous = (last?.payload as Record<string, unknown> | undefined)?.revised_experience_preview;
  if (isBuiltPreview(previous)) return { base: previous, product };
  if (proposal && isBuiltPreview(proposal.experience_preview)) return { base: proposal.experience_preview, product };
  const context = readContext(
    intent?.experience_context ?? (proposal ? (await getOwnIntent(db, proposal.intent_id, caller)).experience_context : {}),
  );
  return { base: buildPreview(product, context), product };
}

/** `feedbackId`: fixed by the request's Idempotency-Key claim, so a retry after a crash records the event once. */
export async function recordDecisionEvent(
  db: Db,
  input: DecisionEventInput,
  caller: Caller,
  feedbackId: string = newId('fb'),
): Promise<DecisionEventT> {
  const stored = await db.selectFrom('decision_events').selectAll().where('feedback_id', '=', feedbackId).executeTakeFirst();
  if (stored && stored.developer_id === ownerOf(caller)) return decisionEventView(stored);
  const type = eventType(input.event_type);
  const payload: Record<string, unknown> = { ...(input.payload ?? {}) };
  const agentId = agentOf(input, payload);
  const refs = await resolveReferences(db, input, caller);
  const productId = refs.proposal?.product_id ?? input.product_id ?? null;
  if (EVENTS_NEEDING_PROPOSAL.includes(type) && !refs.proposal)
    throw invalid('proposal_id', `a ${type} event needs proposal_id (or match_token_id).`);

  let matchTokenId = refs.token?.match_token_id ?? null;
  if (type === 'confirm') matchTokenId = await confirmedToken(db, refs);
  if (type === 'remix') {
    if (productId === null) throw invalid('proposal_id', 'a remix needs proposal_id (or product_id for a feed item).');
    const { base, product } = await remixBase(db, productId, refs.proposal, agentId, refs.intent, caller);
    payload.revised_experience_preview = remixPreview(product, base, payload.dimension, payload.value);
  }

  const row = await db
    .insertInto('decision_events')
    .values({
      feedback_id: feedbackId,
      event_type: type,
      intent_id: refs.intent?.intent_id ?? refs.proposal?.intent_id ?? null,
      proposal_id: refs.proposal?.proposal_id ?? null,
      match_token_id: matchTokenId,
      merchant_id: refs.proposal?.merchant_agent_id ?? null,
      product_id: productId,
      agent_id: agentId,
      payload: JSON.stringify(payload),
      developer_id: ownerOf(caller),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return decisionEventView(row);
}
