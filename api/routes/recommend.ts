import * as R from '../../src/schemas/recommend';
import { recommend, recommendDeps } from '../../src/recommend/recommend';
import type { AppContext } from '../context';
import { auth, linkTo, type RouteRegistry } from './registry';
import { intentLinks } from './intents';
import { matchSessionLinks } from './match';

const TAG = 'Recommendation and cards';

export function recommendRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/recommend',
    tag: TAG,
    summary: 'Recommend products for a natural-language shopping intent',
    description:
      'Reads keywords, categories, budget, audience and region from the intent, retrieves products tier by tier (raw_substring, strict, narrow, fuzzy, broadened) and tops up with trending products when the tiers cannot fill `limit`. The same product from several merchants (same GTIN, or brand and MPN, or the same title and variant) is one item listing each seller in `offers`. Each call creates the intent, one catalog proposal per offer and a match session ranking them. The `cta.primary.url` of every item MUST be passed to the end user verbatim: it is a redirect that records the click under the rec_id and attributes the order. `channel=portal_demo` works without an API key, rate-limited per IP.',
    auth: auth.apiKeyOrPortalDemo('recommend'),
    query: R.RecommendQuery,
    invalidCode: 'invalid_query',
    responses: {
      200: {
        description: 'Ranked Product Card Documents and the records created for them.',
        schema: R.RecommendResponse,
        links: {
          ...intentLinks('$response.body#/intent_id'),
          ...matchSessionLinks('$response.body#/match_session_id', '$response.body#/proposals/0/proposal_id'),
          GetCard: linkTo('get', '/v1/cards/{recId}', { parameters: { 'path.recId': '$response.body#/items/0/rec_id' } }),
          FollowCardLink: linkTo('get', '/r/{recId}', { parameters: { 'path.recId': '$response.body#/items/0/rec_id' } }),
          GetProductCard: linkTo('get', '/v1/products/{productId}/card', {
            parameters: { 'path.productId': '$response.body#/items/0/product/id' },
          }),
          ProductAttribution: linkTo('get', '/v1/report/attribution', {
            parameters: { 'query.product_id': '$response.body#/items/0/product/id' },
          }),
        },
      },
    },
    errors: [
      [400, 'invalid_query', 'intent missing or empty, limit outside 1..10, or region not an ISO country code.'],
      [503, 'service_unavailable', 'Service temporarily unavailable (the database cannot be reached).'],
    ],
    handler: async (ctx: AppContext, { query }) => ({
      body: await recommend(recommendDeps(ctx.deps), query, { developerId: ctx.state.apiKey?.developerId }),
    }),
  });
}
