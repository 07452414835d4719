import * as I from '../../src/schemas/intents';
import * as P from '../../src/schemas/proposals';
import { getIntent, intentView } from '../../src/matching/intents';
import { getProposal, listProposals, proposalView, submitProposal } from '../../src/matching/proposals';
import { proposalFitWarnings } from '../../src/matching/proposal-fit';
import { createIntentAndStartSurge } from '../../src/dispatch/client';
import { bodyMember, merchantToken, optionalMerchantToken, optionalMerchantTokenErrors } from './merchants';
import { callerOf } from '../caller';
import { SYSTEM } from '../../src/tenancy';
import { auth, linkTo, type ErrorRow, type ResponseLink, type RouteRegistry } from './registry';
import { requestResourceId } from '../middleware/idempotency';

const TAG = 'Intents and proposals';
const intentNotFound: ErrorRow = [404, 'intent_not_found', 'No intent with this id.'];

/** What an intent id feeds, wherever an answer carries one (`id`: the runtime expression naming it). */
export function intentLinks(id: string): Record<string, ResponseLink> {
  return {
    GetIntent: linkTo('get', '/v1/intents/{intentId}', { parameters: { 'path.intentId': id } }),
    ListIntentProposals: linkTo('get', '/v1/intents/{intentId}/proposals', { parameters: { 'path.intentId': id } }),
    MatchIntent: linkTo('post', '/v1/match', { requestBody: { intent_id: id } }),
    IntentDispatchQueue: linkTo('get', '/v1/merchant/dispatch-queue', { parameters: { 'query.intent_id': id } }),
  };
}

export function intentRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/intents',
    tag: TAG,
    summary: 'Create a shopping intent',
    description:
      'raw_query is required. Missing structure is read from the text: a normalized query, tags, a budget ("under $50") and a region ("in Canada"); resolution_summary says what was derived. Beyond what the schema states: budget_range.min must not exceed budget_range.max (400 invalid_payload).',
    auth: auth.apiKey('intents'),
    body: I.IntentCreateBody,
    bodyRequired: true,
    missingFields: ['raw_query'],
    responses: { 201: { description: 'The intent.', schema: I.IntentEnvelope, links: intentLinks('$response.body#/intent/intent_id') } },
    handler: async (ctx, { body }) => {
      const intent = await createIntentAndStartSurge(
        ctx.deps,
        body,
        { developerId: ctx.state.apiKey?.developerId },
        { intentId: requestResourceId(ctx, 'int') },
      );
      return { status: 201, body: { intent: intentView(intent) } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/intents/{intentId}',
    tag: TAG,
    summary: 'Get an intent',
    description:
      "Readable by the keys of the developer that created it, and by a merchant the intent was dispatched to (or that proposed to it) when the call carries that merchant's X-Merchant-Token; anyone else gets 404 intent_not_found.",
    auth: auth.apiKeyOptionalToken('intents', 'MerchantToken', optionalMerchantToken, optionalMerchantTokenErrors),
    params: I.IntentIdParams,
    notFoundCode: 'intent_not_found',
    responses: { 200: { description: 'The intent.', schema: I.IntentEnvelope } },
    errors: [intentNotFound],
    handler: async (ctx, { params }) => ({ body: { intent: intentView(await getIntent(ctx.deps.db, params.intentId, callerOf(ctx))) } }),
  });

  r.add({
    method: 'get',
    path: '/v1/intents/{intentId}/proposals',
    tag: TAG,
    summary: 'List the proposals of an intent',
    description:
      "Oldest first. Expired proposals are left out unless include_expired=true. The intent's developer sees every proposal; a merchant (X-Merchant-Token) the intent was sent to sees only its own.",
    auth: auth.apiKeyOptionalToken('proposals', 'MerchantToken', optionalMerchantToken, optionalMerchantTokenErrors),
    params: I.IntentIdParams,
    query: P.ProposalListQuery,
    notFoundCode: 'intent_not_found',
    responses: { 200: { description: 'The proposals.', schema: P.ProposalList } },
    errors: [intentNotFound],
    handler: async (ctx, { params, query }) => {
      const proposals = await listProposals(ctx.deps.db, params.intentId, query.include_expired, callerOf(ctx));
      return { body: { intent_id: params.intentId, count: proposals.length, proposals: proposals.map(proposalView) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/proposals',
    tag: TAG,
    summary: 'Submit a merchant proposal for an intent',
    description:
      "Needs the X-Merchant-Token of merchant_agent_id. The merchant may answer an intent that was dispatched to it or whose tags, region and categories meet its subscription (the Intent.Surge rule); any other intent is 404 intent_not_found. Exactly one of product_id (the gateway catalog id), external_id (the merchant's own product id from its feed) or variant_id (one of its variants' feed ids or SKUs) names the product; the merchant's own ids name only its own products (GET /v1/merchant/{merchantId}/products lists both ids). The product must exist; its card is frozen into product_snapshot and a trust_score is computed with its basis. proposal_state starts as quoted (or draft). Beyond what the schema states: shipping_commitment.min_days must not exceed max_days (400 invalid_payload).",
    auth: auth.apiKeyAnd('proposals', 'MerchantToken', merchantToken(bodyMember('merchant_agent_id'), 'merchant_agent_id'), [
      [401, 'missing_registration_token', 'Missing registration token (X-Merchant-Token).'],
      [403, 'invalid_registration_token', 'The token is not the registration token of merchant_agent_id.'],
      [404, 'merchant_not_found', 'No merchant agent with this id.'],
    ]),
    body: P.ProposalCreateBody,
    bodyRequired: true,
    // The product is named by one of three members (productRefOf answers none with missing_fields).
    missingFields: ['merchant_agent_id', 'intent_id', 'offer_title', 'price'],
    responses: {
      201: {
        description: 'The proposal, with warnings (e.g. a product outside the categories the intent names).',
        schema: P.ProposalCreated,
      },
    },
    errors: [
      intentNotFound,
      [
        404,
        'product_not_found',
        "No catalog product with this product_id, or no product of merchant_agent_id's own with this external_id or variant_id (another merchant's ids are not found either).",
      ],
      [409, 'merchant_inactive', 'The merchant is deactivated.'],
    ],
    handler: async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const proposal = await submitProposal(ctx.deps.db, body, caller, requestResourceId(ctx, 'prop'));
      // submitProposal has checked that the caller may answer this intent.
      const intent = await getIntent(ctx.deps.db, proposal.intent_id, SYSTEM);
      const warnings = await proposalFitWarnings(ctx.deps.db, ctx.deps.catalogSnapshots, intent, proposal.product_id);
      return { status: 201, body: { proposal: proposalView(proposal), warnings } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/proposals/{proposalId}',
    tag: TAG,
    summary: 'Get a proposal',
    description:
      "Readable by the keys of the intent's developer and by the merchant that submitted it (X-Merchant-Token); anyone else gets 404 proposal_not_found.",
    auth: auth.apiKeyOptionalToken('proposals', 'MerchantToken', optionalMerchantToken, optionalMerchantTokenErrors),
    params: P.ProposalIdParams,
    notFoundCode: 'proposal_not_found',
    responses: { 200: { description: 'The proposal.', schema: P.ProposalEnvelope } },
    errors: [[404, 'proposal_not_found', 'No proposal with this id.']],
    handler: async (ctx, { params }) => ({
      body: { proposal: proposalView(await getProposal(ctx.deps.db, params.proposalId, callerOf(ctx))) },
    }),
  });
}
