import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { IntentsTable } from '../db/schema-matching';
import type { MerchantRow } from '../db/schema';
import { intentCategoryTags } from './category-terms';

/**
 * "The merchants subscribed to this intent", the one rule the Intent.Surge fan-out, the commerce
 * runtime's merchant queries and the proposal permission check share (docs/DISPATCH.md): an active
 * merchant whose subscription tags meet the intent's tags, and whose region and category tags agree
 * with the intent's when both sides state them.
 */
type IntentSide = { intent_tags: string[]; region: IntentsTable['region'] };

/** The subscribed merchants as a query, in merchant_id order; callers choose the columns, paging and limit. */
export function subscribedMerchants(db: Db, intent: IntentSide) {
  const categories = intentCategoryTags(intent.intent_tags);
  return db
    .selectFrom('merchants')
    .where('status', '=', 'active')
    .where(sql<boolean>`subscription_tags && ${sql.val(intent.intent_tags)}::text[]`)
    .where(sql<boolean>`(cardinality(regions) = 0 or ${intent.region}::text is null or ${intent.region}::text = any(regions))`)
    .where(
      sql<boolean>`(cardinality(category_tags) = 0 or ${categories.length} = 0
        or lower(category_tags::text)::text[] && ${sql.val(categories)}::text[])`,
    )
    .orderBy('merchant_id');
}

/** The same rule for one merchant already in hand (its status is the caller's concern). */
export function subscribesTo(m: Pick<MerchantRow, 'subscription_tags' | 'regions' | 'category_tags'>, i: IntentSide): boolean {
  const tags = new Set(i.intent_tags);
  if (!m.subscription_tags.some((t) => tags.has(t))) return false;
  if (m.regions.length && i.region !== null && !m.regions.includes(i.region)) return false;
  const categories = intentCategoryTags(i.intent_tags);
  if (m.category_tags.length && categories.length && !m.category_tags.some((t) => categories.includes(t.toLowerCase()))) return false;
  return true;
}
