import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect';
import type { CommunityEvidenceRow } from '../db/schema-proof';
import { getProducts } from '../catalog/products';
import type { CommunityEvidenceT, CommunityProofFeedT, CommunityProofGroupT, ProofFeedQueryT } from '../schemas/proof';
import { automationPlan } from './automation-plan';
import { evidenceWeightSql, summarize } from './consensus';
import { proofProduct } from './product-view';
import { containsAny, intentKeywords, searchWithFallback } from './text-search';

/**
 * The community proof feed: imported evidence only (see community-import.ts), grouped per catalog
 * product it was linked to, else per product name as the community wrote it. Filters apply to the
 * evidence first, so a group's consensus is over exactly the records that passed them.
 */

const EVIDENCE_PER_GROUP = 10;

const GROUP_KEY = sql<string>`coalesce('product:' || e.product_id, 'topic:' || lower(e.product_name))`;

const EVIDENCE_COLUMNS = [
  'e.evidence_id',
  'e.source',
  'e.community',
  'e.thread_url',
  'e.post_id',
  'e.author_hash',
  'e.title',
  'e.excerpt',
  'e.product_id',
  'e.product_name',
  'e.claims',
  'e.upvotes',
  'e.comment_count',
  'e.posted_at',
  'e.imported_at',
  'e.import_batch',
] as const;

export async function communityProofFeed(
  db: Db,
  f: Pick<ProofFeedQueryT, 'limit' | 'intent' | 'products' | 'subreddits'>,
  now = new Date(),
): Promise<CommunityProofFeedT> {
  const keywords = intentKeywords(f.intent);
  const products = f.products ?? [];
  const subreddits = f.subreddits ?? [];
  const filter = (query: RawBuilder<unknown> | null) => evidenceFilter(query, products, subreddits);
  const { rows: groups, match, query } = await searchWithFallback(keywords, (q) => topGroups(db, filter(q), f.limit));
  const evidence = groups.length
    ? await groupEvidence(
        db,
        filter(query),
        groups.map((g) => g.group_key),
      )
    : [];
  const catalog = await getProducts(
    db,
    evidence.flatMap((e) => (e.product_id === null ? [] : [e.product_id])),
  );

  const items = groups.map((g): CommunityProofGroupT => {
    const rows = evidence.filter((e) => e.group_key === g.group_key);
    const linked = rows[0]?.product_id != null ? catalog.get(rows[0].product_id) : undefined;
    return {
      group_id: g.group_key,
      topic: rows[0]?.product_name ?? g.group_key,
      product: linked ? proofProduct(linked) : null,
      communities: [...new Set(rows.map((e) => e.community))].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })),
      evidence_count: rows.length,
      ...summarize(rows),
      evidence: rows.slice(0, EVIDENCE_PER_GROUP).map(evidenceView),
    };
  });
  return {
    source: 'community',
    count: items.length,
    items,
    filters: { intent: f.intent ?? null, keywords, products, subreddits, match },
    automation_plan: await automationPlan(db, subreddits, now),
    generated_at: now.toISOString(),
  };
}

function evidenceFilter(query: RawBuilder<unknown> | null, products: string[], subreddits: string[]): RawBuilder<boolean> {
  const parts: RawBuilder<boolean>[] = [sql`true`];
  // The linked product's search document counts too: a thread on "these earbuds" matches an intent
  // naming the product's category.
  if (query) parts.push(sql`(e.search_tsv || coalesce(p.search_tsv, ''::tsvector)) @@ ${query}`);
  if (products.length) parts.push(containsAny(['e.product_name', 'p.title'], products));
  if (subreddits.length)
    parts.push(sql`(e.source = 'reddit' and lower(e.community) = any(${subreddits.map((s) => s.toLowerCase())}::text[]))`);
  return sql<boolean>`${sql.join(parts, sql` and `)}`;
}

/** The strongest groups: most upvote weight, then most records. */
function topGroups(db: Db, filter: RawBuilder<boolean>, limit: number) {
  return db
    .selectFrom('community_evidence as e')
    .leftJoin('products as p', 'p.product_id', 'e.product_id')
    .select([
      GROUP_KEY.as('group_key'),
      sql<number>`sum(${evidenceWeightSql(sql.ref('e.upvotes'))})`.as('weight'),
      (eb) => eb.fn.countAll<string>().as('records'),
    ])
    .where(filter)
    .groupBy(GROUP_KEY)
    .orderBy('weight', 'desc')
    .orderBy('records', 'desc')
    .orderBy('group_key')
    .limit(limit)
    .execute();
}

/** Every record of the chosen groups that passes the filters, most upvoted first. */
function groupEvidence(db: Db, filter: RawBuilder<boolean>, groupKeys: string[]) {
  return db
    .selectFrom('community_evidence as e')
    .leftJoin('products as p', 'p.product_id', 'e.product_id')
    .select([...EVIDENCE_COLUMNS, GROUP_KEY.as('group_key')])
    .where(filter)
    .where(sql<boolean>`${GROUP_KEY} = any(${groupKeys}::text[])`)
    .orderBy('e.upvotes', 'desc')
    .orderBy('e.posted_at', 'desc')
    .orderBy('e.evidence_id')
    .execute();
}

function evidenceView(e: CommunityEvidenceRow): CommunityEvidenceT {
  return {
    evidence_id: e.evidence_id,
    source: e.source,
    community: e.community,
    thread_url: e.thread_url,
    post_id: e.post_id,
    author_hash: e.author_hash,
    title: e.title,
    excerpt: e.excerpt,
    product_id: e.product_id === null ? null : String(e.product_id),
    product_name: e.product_name,
    // jsonb keeps keys in its own order; the API shows them in the documented one.
    claims: e.claims.map(({ attribute, stance, text }) => ({ attribute, stance, text })),
    upvotes: e.upvotes,
    comment_count: e.comment_count,
    posted_at: e.posted_at.toISOString(),
    imported_at: e.imported_at.toISOString(),
    import_batch: e.import_batch,
  };
}
