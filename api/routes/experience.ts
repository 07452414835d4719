import * as E from '../../src/schemas/experience';
import { recordDecisionEvent } from '../../src/experience/decision-events';
import { experienceFeed } from '../../src/experience/feed';
import { requestResourceId } from '../middleware/idempotency';
import { auth, type RouteRegistry } from './registry';
import { callerOf } from '../caller';

const TAG = 'Experience commerce';

export function experienceRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/decision-events',
    tag: TAG,
    summary: 'Record a decision event',
    description:
      'Shopper-side feedback on an offer or a feed item (pick, nope, remix, confirm) and outcome events (view, click, purchase, return, complaint, fulfilled, late_delivery). Every named reference must exist and agree with the others; merchant_id and product_id are derived from the proposal. remix needs payload.dimension and payload.value and answers with the revised experience preview; confirm links to the given match token or the newest token of the proposal. SLA and reputation read these events (docs/EXPERIENCE.md). Beyond what the schema states (its anyOf says which references each event type needs): a remix value must differ from the current one, and agent_id and payload.agent_id must name the same agent (400 invalid_payload); every named reference must exist (404) and agree with the others (409).',
    auth: auth.apiKey('experience'),
    body: E.DecisionEventBody,
    bodyRequired: true,
    missingFields: ['event_type'],
    missingCode: 'unsupported_decision_event',
    responses: { 201: { description: 'The stored event.', schema: E.DecisionEventEnvelope } },
    errors: [
      [400, 'unsupported_decision_event', 'event_type is missing or not one of the supported types.'],
      [
        400,
        'invalid_payload',
        'A field is invalid, a remix lacks a remixable payload.dimension or a payload.value, or confirm/fulfilled/late_delivery name no proposal.',
      ],
      [404, 'intent_not_found', 'No intent with this id.'],
      [404, 'proposal_not_found', 'No proposal with this id.'],
      [404, 'match_token_not_found', 'No match token with this id.'],
      [404, 'product_not_found', 'No catalog product with this id.'],
      [409, 'proposal_intent_mismatch', 'The proposal answers another intent.'],
      [409, 'match_token_mismatch', 'The match token names another proposal.'],
      [409, 'product_mismatch', 'product_id differs from the product of the proposal.'],
      [409, 'match_token_not_issued', 'confirm without match_token_id on a proposal that has no match token.'],
    ],
    handler: async (ctx, { body }) => {
      const event = await recordDecisionEvent(ctx.deps.db, body, callerOf(ctx), requestResourceId(ctx, 'fb'));
      return { status: 201, body: { decision_event: event } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/experience-feed',
    tag: TAG,
    summary: 'Proactive experience feed for a shopper agent',
    description:
      "Catalog products as experience cards, ranked by fit with the agent's taste profile (derived from its pick, confirm, purchase, nope, return and complaint events, merged with the taste_profile sent; explicit members win) and its inspiration refs, with creator evidence breaking near-ties. Products whose latest taste event is negative are left out. Deterministic: the same input over the same events gives the same items in the same order and the same feed_id. Beyond what the schema states: taste_profile.price_band.min must not exceed its max (400 invalid_payload).",
    auth: auth.apiKey('experience'),
    body: E.ExperienceFeedBody,
    bodyRequired: true,
    missingFields: ['agent_id'],
    missingCode: 'invalid_payload',
    responses: { 200: { description: 'The feed.', schema: E.ExperienceFeedEnvelope } },
    errors: [[400, 'invalid_payload', 'agent_id missing, or a field is invalid (limit 1..24).']],
    handler: async (ctx, { body }) => ({ body: { feed: await experienceFeed(ctx.deps.db, body, callerOf(ctx)) } }),
  });
}
