import { z } from 'zod';
import * as M from '../../src/schemas/match';
import { ProductCardDocument } from '../../src/schemas/catalog';
import { createMatchSession, matchSessionView } from '../../src/matching/match-sessions';
import { renderMatchSessionJson } from '../../src/matching/session-render';
import { acceptMatch, getMatchToken, matchTokenView } from '../../src/matching/match-tokens';
import { requestResourceId } from '../middleware/idempotency';
import { authorizePayment, getPaymentAuthorizationAs, paymentAuthorizationView } from '../../src/matching/payments';
import type { AppContext } from '../context';
import { callerOf } from '../caller';
import { auth, linkTo, type ErrorRow, type ResponseLink, type RouteRegistry } from './registry';

const TAG = 'Match sessions and tokens';
const matchNotFound: ErrorRow = [404, 'match_not_found', 'No match session with this id.'];

/**
 * What a match session feeds (`session`: the runtime expression of its id): the rendered session,
 * and accept, with a proposal the session ranked (`proposal`) when the answer names one.
 */
export function matchSessionLinks(session: string, proposal?: string): Record<string, ResponseLink> {
  return {
    GetMatchSession: linkTo('get', '/v1/match/{matchSessionId}', { parameters: { 'path.matchSessionId': session } }),
    AcceptMatch: linkTo('post', '/v1/match/{matchSessionId}/accept', {
      parameters: { 'path.matchSessionId': session },
      ...(proposal ? { requestBody: { proposal_id: proposal } } : {}),
    }),
  };
}

/** What a match token feeds (`token`: the runtime expression of the token object in the answer). */
export function matchTokenLinks(token: string): Record<string, ResponseLink> {
  return {
    GetMatchToken: linkTo('get', '/v1/match-tokens/{matchTokenId}', { parameters: { 'path.matchTokenId': `${token}/match_token_id` } }),
    AuthorizePayment: linkTo('post', '/v1/match-tokens/{matchTokenId}/payment-authorization', {
      parameters: { 'path.matchTokenId': `${token}/match_token_id` },
      requestBody: { proposal_id: `${token}/proposal_id`, expected_amount: `${token}/amount`, currency: `${token}/currency` },
    }),
    PlanCheckout: linkTo('post', '/v1/agentic-checkout', {
      requestBody: {
        intent_id: `${token}/intent_id`,
        proposal_id: `${token}/proposal_id`,
        match_token_id: `${token}/match_token_id`,
        amount: `${token}/amount`,
        currency: `${token}/currency`,
      },
    }),
    ConfirmMatchToken: linkTo('post', '/v1/match/{matchSessionId}/accept', {
      parameters: { 'path.matchSessionId': `${token}/match_session_id` },
      requestBody: { match_token_id: `${token}/match_token_id` },
    }),
  };
}

const RenderedMatchSession = z
  .object({
    match_session: M.MatchSession,
    ranked_proposals: z.array(M.RankedProposal),
    match_tokens: z.array(M.MatchToken),
    items: z.array(ProductCardDocument),
  })
  .meta({ id: 'RenderedMatchSession' });

function acceptDeps(ctx: AppContext) {
  const { db, signingKeys, config } = ctx.deps;
  return { db, signingKey: signingKeys.matchToken, issuer: config.publicBaseUrl, ttlSeconds: config.MATCH_TOKEN_TTL_S };
}

export function matchRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/match',
    tag: TAG,
    summary: 'Create a match session',
    description:
      'Ranks the named proposals of the intent (or all its active ones) by price fit, trust, inventory, shipping, evidence and commission; ranked_proposals carries each score breakdown and summary the explanation.',
    auth: auth.apiKey('match'),
    body: M.MatchCreateBody,
    bodyRequired: true,
    missingFields: ['intent_id'],
    responses: {
      201: {
        description: 'The ranked session.',
        schema: M.MatchSessionEnvelope,
        links: matchSessionLinks(
          '$response.body#/match_session/match_session_id',
          '$response.body#/match_session/ranked_proposals/0/proposal_id',
        ),
      },
    },
    errors: [
      [404, 'intent_not_found', 'No intent with this id.'],
      [404, 'proposal_not_found', 'A named proposal does not exist for this intent.'],
    ],
    handler: async (ctx, { body }) => {
      const { db, config, cardFacts } = ctx.deps;
      const session = await createMatchSession(db, body, {
        ttlSeconds: config.MATCH_SESSION_TTL_S,
        caller: callerOf(ctx),
        publicBaseUrl: config.publicBaseUrl,
        cardFacts,
        sessionId: requestResourceId(ctx, 'ms'),
      });
      return { status: 201, body: { match_session: matchSessionView(session) } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/match/{matchSessionId}',
    tag: TAG,
    summary: 'Get a rendered match session',
    description:
      'The session, its top `limit` ranked proposals (1..10, default 5; match_session.ranked_proposals is cut to the same top), its match tokens, and a Product Card Document for each of those proposals.',
    auth: auth.apiKey('match'),
    params: M.MatchSessionParams,
    query: M.MatchRenderQuery,
    notFoundCode: 'match_not_found',
    responses: { 200: { description: 'The rendered session.', schema: RenderedMatchSession } },
    errors: [matchNotFound],
    handler: async (ctx, { params, query }) => ({
      body: await renderMatchSessionJson(ctx.deps.db, params.matchSessionId, query.limit, callerOf(ctx), ctx.deps.frozenTops),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    }),
  });

  r.add({
    method: 'post',
    path: '/v1/match/{matchSessionId}/accept',
    tag: TAG,
    summary: 'Accept a ranked proposal for a match token',
    description:
      'Body required: `proposal_id` (default: the best ranked) mints a match token, or `match_token_id` confirms an existing one. Accepting the same proposal again returns the same token. The token lives MATCH_TOKEN_TTL_S (30 min) and carries a signed JWS.',
    auth: auth.apiKey('match'),
    params: M.MatchSessionParams,
    body: M.AcceptBody,
    bodyRequired: true,
    notFoundCode: 'match_not_found',
    responses: {
      200: { description: 'The match token.', schema: M.MatchTokenEnvelope, links: matchTokenLinks('$response.body#/match_token') },
    },
    errors: [
      matchNotFound,
      [404, 'proposal_not_found', 'No proposal with this id.'],
      [404, 'match_token_not_found', 'No match token with this id in this session.'],
      [409, 'match_session_expired', 'The match session has expired.'],
      [409, 'no_ranked_proposals', 'Nothing was ranked in this session.'],
      [409, 'proposal_not_in_session', 'The proposal was not ranked in this session.'],
      [409, 'proposal_expired', 'The proposal has expired.'],
      [409, 'match_token_expired', 'The match token has expired.'],
    ],
    handler: async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const trace = { requestId: ctx.state.requestId, keyId: ctx.state.apiKey?.keyId };
      const token = await acceptMatch(acceptDeps(ctx), params.matchSessionId, body, trace, caller, requestResourceId(ctx, 'mt'));
      return { body: { match_token: matchTokenView(token, caller) } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/match-tokens/{matchTokenId}',
    tag: TAG,
    summary: 'Get a match token',
    auth: auth.apiKey('match'),
    params: M.MatchTokenParams,
    notFoundCode: 'match_token_not_found',
    responses: { 200: { description: 'The match token.', schema: M.MatchTokenEnvelope } },
    errors: [[404, 'match_token_not_found', 'No match token with this id.']],
    handler: async (ctx, { params }) => {
      const caller = callerOf(ctx);
      return { body: { match_token: matchTokenView(await getMatchToken(ctx.deps.db, params.matchTokenId, caller), caller) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/match-tokens/{matchTokenId}/payment-authorization',
    tag: TAG,
    summary: 'Authorize payment against a match token',
    description:
      'Succeeds only for an existing, unexpired token in state accepted whose proposal is pending confirmation and matches proposal_id, expected_amount and currency when given. The token moves to payment_authorized and the proposal to accepted; repeating returns the same authorization.',
    auth: auth.apiKey('payments'),
    params: M.MatchTokenParams,
    body: M.PaymentAuthorizationBody,
    responses: {
      200: {
        description: 'Payment authorized.',
        schema: M.PaymentAuthorizationResponse,
        links: {
          GetMatchToken: linkTo('get', '/v1/match-tokens/{matchTokenId}', {
            parameters: { 'path.matchTokenId': '$response.body#/match_token/match_token_id' },
          }),
          GetPaymentAuthorization: linkTo('get', '/v1/payment-authorizations/{authorizationId}', {
            parameters: { 'path.authorizationId': '$response.body#/payment_authorization/authorization_id' },
          }),
        },
      },
    },
    errors: [
      [409, 'match_token_invalid', "No such match token (also another developer's token: it is not there for this caller)."],
      [409, 'match_token_expired', 'The match token has expired.'],
      [409, 'acceptance_state_invalid', 'The token is not in state accepted.'],
      [409, 'proposal_mismatch', 'proposal_id is not the proposal the token names.'],
      [409, 'proposal_expired', 'The proposal has expired.'],
      [409, 'proposal_state_invalid', 'The proposal is not pending confirmation.'],
      [409, 'amount_mismatch', 'expected_amount differs from the proposal price.'],
      [409, 'currency_mismatch', 'currency differs from the proposal currency.'],
    ],
    handler: async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const trace = { keyId: ctx.state.apiKey?.keyId };
      const { authorization, token } = await authorizePayment(
        ctx.deps.db,
        params.matchTokenId,
        body,
        caller,
        trace,
        requestResourceId(ctx, 'pauth'),
      );
      return {
        body: {
          payment_authorization: paymentAuthorizationView(authorization, token.intent_id),
          match_token: matchTokenView(token, caller),
        },
      };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/payment-authorizations/{authorizationId}',
    tag: TAG,
    summary: 'Get a payment authorization',
    description:
      "A payment authorization and its status: `authorized`, or `voided` (with voided_at and void_reason) once a checkout that could not complete released it (its merchant refused or never took the order), the merchant asked for the buyer on its page, or its match token expired without a checkout. The id is a checkout's `payment_authorization_id` or the answer of POST /v1/match-tokens/{matchTokenId}/payment-authorization. Another developer's authorization is not found.",
    auth: auth.apiKey('payments'),
    params: M.PaymentAuthorizationParams,
    notFoundCode: 'payment_authorization_not_found',
    responses: { 200: { description: 'The payment authorization.', schema: M.PaymentAuthorizationEnvelope } },
    errors: [[404, 'payment_authorization_not_found', 'No payment authorization with this id.']],
    handler: async (ctx, { params }) => ({
      body: { payment_authorization: await getPaymentAuthorizationAs(ctx.deps.db, params.authorizationId, callerOf(ctx)) },
    }),
  });
}
