import type { Db } from '../db/connect';
import type { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import { understandShoppingIntent } from '../recommend/understand';
import type { IntentRow } from './intents';
import type { z } from 'zod';
import type { ProposalWarning as ProposalWarningSchema } from '../schemas/proposals';

/** Something about an accepted proposal the submitting merchant should know; it does not refuse it. */
export type ProposalWarning = z.infer<typeof ProposalWarningSchema>;

/**
 * Does the proposed product sit in a category the intent's words name? The intent is read as
 * GET /v1/recommend reads it (same vocabulary); a product in another category, e.g. a robot vacuum
 * offered for "trail running shoes", gets a warning. An intent that names no category cannot be
 * judged, so it gets none. Matching ranks offers on price, trust and delivery, not on fit, so without
 * this the off-topic offer would be ranked silently.
 */
export async function proposalFitWarnings(
  db: Db,
  snapshots: CatalogSnapshotCache,
  intent: Pick<IntentRow, 'raw_query'>,
  productId: number,
): Promise<ProposalWarning[]> {
  const [snapshot, product] = await Promise.all([
    snapshots.get(db),
    db.selectFrom('products').select(['product_id', 'title', 'category_id']).where('product_id', '=', productId).executeTakeFirst(),
  ]);
  if (!product) return [];
  const si = understandShoppingIntent(intent.raw_query, { categories: snapshot.categories });
  // Audience hints ("for my mum") are not categories the shopper asked for.
  const asked = si.categories.filter((c) => c.via !== 'audience');
  if (asked.length === 0) return [];
  const byId = new Map(snapshot.categories.map((c) => [c.category_id, c]));
  const own = product.category_id === null ? undefined : byId.get(product.category_id);
  const lineage = new Set<number>(own ? [own.category_id, ...(own.parent_id === null ? [] : [own.parent_id])] : []);
  if (asked.some((c) => lineage.has(c.category_id))) return [];
  const parent = own?.parent_id == null ? undefined : byId.get(own.parent_id);
  const productCategory = own ? (parent ? `${parent.name} > ${own.name}` : own.name) : null;
  const intentCategories = asked.map((c) => c.path);
  return [
    {
      code: 'product_category_mismatch',
      message: `Product ${product.product_id} (${product.title}${productCategory ? `, ${productCategory}` : ''}) is not in the categories the intent asks for (${intentCategories.join('; ')}). The proposal was stored and will be ranked; check the product_id.`,
      product_category: productCategory,
      intent_categories: intentCategories,
    },
  ];
}
