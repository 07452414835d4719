import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect';
import { centsToNumber } from '../catalog/products';
import type { CommerceProofFeedT, CommerceProofItemT, ProofFeedQueryT } from '../schemas/proof';
import { proofProduct } from './product-view';
import { proofStatement } from './proof-statement';
import { containsAny, intentKeywords, searchWithFallback } from './text-search';

/**
 * The commerce proof feed: creator videos whose outcomes are on record (orders and GMV above zero),
 * best converting first. Filtering narrows the products; it never changes the ranking.
 */
export async function commerceProofFeed(
  db: Db,
  f: Pick<ProofFeedQueryT, 'limit' | 'intent' | 'products'>,
  now = new Date(),
): Promise<CommerceProofFeedT> {
  const keywords = intentKeywords(f.intent);
  const products = f.products ?? [];
  const { rows, match } = await searchWithFallback(keywords, (query) => outcomeVideos(db, query, products, f.limit));
  return {
    source: 'commerce',
    count: rows.length,
    items: rows.map(item),
    filters: { intent: f.intent ?? null, keywords, products, match },
    generated_at: now.toISOString(),
  };
}

function outcomeVideos(db: Db, query: RawBuilder<unknown> | null, products: string[], limit: number) {
  return db
    .selectFrom('videos as v')
    .innerJoin('creators as c', 'c.creator_id', 'v.creator_id')
    .innerJoin('products as p', 'p.product_id', 'v.product_id')
    .select([
      'v.task_id',
      'v.thumbnail',
      'v.video_url',
      'v.platform_video_url',
      'v.duration_s',
      'v.published_at',
      'v.orders',
      'v.gmv_cents',
      'v.views',
      'v.conversion_score',
      'c.username',
      'c.display_name',
      'c.avatar',
      'c.followers',
      'p.product_id',
      'p.title',
      'p.brand',
      'p.category_l1',
      'p.category_l2',
      'p.price_cents',
      'p.currency',
    ])
    .where('v.orders', '>', 0)
    .where('v.gmv_cents', '>', '0')
    .$if(query !== null, (qb) => qb.where(sql<boolean>`p.search_tsv @@ ${query}`))
    .$if(products.length > 0, (qb) => qb.where(containsAny(['p.title'], products)))
    .orderBy('v.conversion_score', 'desc')
    .orderBy('v.gmv_cents', 'desc')
    .orderBy('v.task_id')
    .limit(limit)
    .execute();
}

type OutcomeVideo = Awaited<ReturnType<typeof outcomeVideos>>[number];

function item(v: OutcomeVideo): CommerceProofItemT {
  const views = Number(v.views);
  return {
    task_id: v.task_id,
    video: {
      thumbnail: v.thumbnail,
      video_url: v.video_url,
      platform_video_url: v.platform_video_url,
      duration_s: v.duration_s,
      published_at: v.published_at.toISOString(),
    },
    creator: { username: v.username, display_name: v.display_name, avatar: v.avatar, followers: v.followers },
    product: proofProduct(v),
    outcome: { orders: v.orders, gmv_usd: centsToNumber(v.gmv_cents), views, conversion_score: v.conversion_score },
    proof_statement: proofStatement({
      username: v.username,
      duration_s: v.duration_s,
      product_title: v.title,
      orders: v.orders,
      gmv_cents: Number(v.gmv_cents),
      views,
    }),
  };
}
