import { COMMUNITY_SOURCES, ProofFeed, ProofFeedQuery } from '../../src/schemas/proof';
import { commerceProofFeed } from '../../src/proof/commerce-feed';
import { communityProofFeed } from '../../src/proof/community-feed';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Proof';

const isCommunity = (source: string) => (COMMUNITY_SOURCES as readonly string[]).includes(source);

export function proofRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/proof-feed',
    tag: TAG,
    summary: 'Proof feed: outcome-backed creator videos or community evidence',
    description:
      'source=commerce (default): creator videos with verified outcomes (orders and GMV above zero), ranked by conversion_score, then GMV, each with a proof statement generated from its numbers. source=community, community-proof or reddit: imported community evidence grouped per product or topic, with an upvote-weighted consensus score, flagged contradictions and the automation_plan of the bounded import (allow-listed subreddits, per-source limits, schedule; no crawling). Both variants filter by intent and products; subreddits applies to the community variant only. Nothing is fetched from the network.',
    auth: auth.apiKey('recommend'),
    query: ProofFeedQuery,
    responses: {
      200: { description: 'CommerceProofFeed for source=commerce, CommunityProofFeed for a community source.', schema: ProofFeed },
    },
    handler: async (ctx, { query }) => ({
      body: isCommunity(query.source) ? await communityProofFeed(ctx.deps.db, query) : await commerceProofFeed(ctx.deps.db, query),
    }),
  });
}
