import { ProductCardDocument } from '../../src/schemas/catalog';
import * as R from '../../src/schemas/recommend';
import { AppError } from '../../src/errors';
import { getIssuedCard, issueCards } from '../../src/recommend/issued-cards';
import { followCard } from '../../src/recommend/clicks';
import { showcaseProducts } from '../../src/recommend/showcase';
import type { AppContext } from '../context';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Recommendation and cards';

const cardOptions = (ctx: AppContext, channel: string | undefined) => ({
  publicBaseUrl: ctx.deps.config.publicBaseUrl,
  channel: channel ?? null,
  cache: ctx.deps.cardFacts,
});

export function cardRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/cards/{recId}',
    tag: TAG,
    summary: 'Get an issued Product Card Document',
    description:
      'The card exactly as it was handed out under this rec_id (by a match session, a product card, a showcase or a recommendation).',
    auth: auth.apiKey('recommend'),
    params: R.RecIdParams,
    responses: { 200: { description: 'The stored card.', schema: ProductCardDocument } },
    errors: [[404, 'not_found', 'No card with this rec_id.']],
    handler: async (ctx, { params }) => ({ body: await getIssuedCard(ctx.deps.db, params.recId) }),
  });

  r.add({
    method: 'get',
    path: '/v1/products/{productId}/card',
    tag: TAG,
    summary: 'Build a fresh Product Card Document for a product',
    description: 'Built from the catalog now, under a new rec_id that is kept for attribution.',
    auth: auth.apiKey('recommend'),
    params: R.ProductIdParams,
    query: R.CardQuery,
    notFoundCode: 'product_not_found',
    responses: { 200: { description: 'The card.', schema: ProductCardDocument } },
    errors: [[404, 'product_not_found', 'No product with this id.']],
    handler: async (ctx, { params, query }) => {
      const id = /^\d{1,10}$/.test(params.productId) ? Number(params.productId) : NaN;
      const [card] = Number.isSafeInteger(id)
        ? await issueCards(ctx.deps.db, [id], { ...cardOptions(ctx, query.channel), source: 'product_card' })
        : [];
      if (!card) throw new AppError(404, 'product_not_found', `No product '${params.productId}' in the catalog.`);
      return { body: card };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/creators/{username}/showcase',
    tag: TAG,
    summary: "A creator's showcase",
    description: "The creator's best-converting products as Product Card Documents (limit 1..10, default 6).",
    auth: auth.apiKey('recommend'),
    params: R.CreatorParams,
    query: R.ShowcaseQuery,
    notFoundCode: 'creator_not_found',
    responses: { 200: { description: 'The showcase.', schema: R.ShowcaseResponse } },
    errors: [[404, 'creator_not_found', 'No creator with this username.']],
    handler: async (ctx, { params, query }) => {
      const { username, productIds } = await showcaseProducts(ctx.deps.db, params.username, query.limit);
      const items = await issueCards(ctx.deps.db, productIds, { ...cardOptions(ctx, query.channel ?? 'showcase'), source: 'showcase' });
      return { body: { username, count: items.length, items } };
    },
  });

  r.add({
    method: 'get',
    path: '/r/{recId}',
    tag: TAG,
    summary: 'Follow a card call-to-action',
    description:
      'The URL in cta.primary.url. Records the click against the rec_id and redirects (302) to the product page with rec_id attached. Hand the URL to the shopper verbatim: the rec_id in it is what attributes the order.',
    auth: auth.none,
    params: R.RecIdParams,
    extraQueryIgnored: 'The link travels to shoppers; sites and mail clients append tracking parameters (utm_*, fbclid) on the way.',
    responses: { 302: { description: 'Redirect to the product page.' } },
    errors: [[404, 'not_found', 'No card with this rec_id.']],
    handler: async (ctx, { params }) => {
      ctx.redirect(
        await followCard(ctx.deps.db, params.recId, {
          userAgent: ctx.get('user-agent') || undefined,
          publicBaseUrl: ctx.deps.config.publicBaseUrl,
        }),
      );
      return undefined;
    },
  });
}
