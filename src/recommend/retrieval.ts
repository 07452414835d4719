import { sql, type RawBuilder } from 'kysely';
import { queryWithGenericPlan, type Db } from '../db/connect';
import type { ProductRow } from '../db/schema-catalog';
import type { CatalogSnapshot, TrendingProduct } from './catalog-snapshot';
import type { ShoppingIntent } from './understand';
import type { SemanticTier } from './semantic';
import { attributeFit } from './attributes';

/**
 * Retrieval tiers (docs/CONTRACT.md#recommendation), tried in order until `limit` products are found; each tier adds
 * only products the earlier ones did not. Region, budget and the audience's excluded categories
 * filter every tier and the trending fill alike.
 */
export const MATCH_TIERS = ['raw_substring', 'strict', 'narrow', 'fuzzy', 'broadened'] as const;
export type MatchTier = (typeof MATCH_TIERS)[number] | 'none';

export interface Hit {
  product: ProductRow;
  /** The tier that found it, `semantic` when its meaning alone did, or `trending` for the fill. */
  source: MatchTier | 'semantic' | 'trending';
}

type TierHit = Hit & { source: (typeof MATCH_TIERS)[number] };

export interface Retrieval {
  hits: Hit[];
  /** The last tier that contributed (the one that filled, when the tiers filled `limit`), or `none`. */
  tier: MatchTier;
  intentHits: number;
  trendingFill: number;
  /** Intent hits no full-text tier found: the semantic tier's, by meaning alone. */
  semanticHits: number;
}

/** Product columns a hit carries (everything but the search document). */
const PRODUCT_COLUMNS = sql.raw(
  [
    'product_id',
    'title',
    'description',
    'brand',
    'price_cents',
    'original_price_cents',
    'currency',
    'discount_label',
    'main_image',
    'gallery',
    'category_l1',
    'category_l2',
    'category_id',
    'region_allow',
    'risk_level',
    'tags',
    'inventory_qty',
    'link',
    'gmv_cents',
    'orders',
    'views',
    'source',
    'external_id',
    'created_at',
    'merchant_id',
    'variants',
    'availability',
    'feed_attributes',
  ]
    .map((c) => `p.${c}`)
    .join(', '),
);

/**
 * Which candidates a recommendation ranks: the catalog's words (full text), meaning (the semantic
 * tier's sentence embeddings), or both fused (the shipped ranker). The evaluation compares all three.
 */
export const RANKERS = ['fulltext', 'semantic', 'hybrid'] as const;
export type Ranker = (typeof RANKERS)[number];

export interface RetrieveOptions {
  /** The shipped ranker (hybrid) when the process has a semantic tier; full text without one. */
  ranker?: Ranker;
  semantic?: SemanticTier;
  /** The shipped settings unless the evaluation's tuner (eval/tune-fusion.ts) tries others. */
  fusion?: FusionSettings;
}

export async function retrieve(
  db: Db,
  si: ShoppingIntent,
  limit: number,
  snapshot: CatalogSnapshot,
  options: RetrieveOptions = {},
): Promise<Retrieval> {
  const ranker = options.semantic ? (options.ranker ?? 'hybrid') : 'fulltext';
  if (ranker !== 'fulltext') return byMeaning(db, si, limit, snapshot, options.semantic!, ranker, options.fusion ?? FUSION);
  const found = await textHits(db, si, limit, snapshot);
  return withTrendingFill(db, si, limit, snapshot, found, found.at(-1)?.source ?? 'none');
}

/** The full-text tiers in turn until `limit` products are found. */
async function textHits(db: Db, si: ShoppingIntent, limit: number, snapshot: CatalogSnapshot): Promise<TierHit[]> {
  const groups = categoryGroups(si, snapshot);
  const probes = MATCH_TIERS.flatMap((t) => tierCondition(t, si, groups) ?? []);
  const found: TierHit[] = [];
  for (const statement of byPlanKind(probes)) {
    if (found.length >= limit) break;
    found.push(...(await runTiers(db, statement, filters(si, found), limit - found.length)));
  }
  return found;
}

/** Intent hits, topped up to `limit` with trending products that pass the same filters. */
async function withTrendingFill(
  db: Db,
  si: ShoppingIntent,
  limit: number,
  snapshot: CatalogSnapshot,
  found: Hit[],
  tier: MatchTier,
): Promise<Retrieval> {
  const hits: Hit[] = [...found];
  const intentHits = hits.length;
  if (hits.length < limit) {
    const fill = trendingFill(snapshot.trending, si, new Set(hits.map((h) => h.product.product_id)), limit - hits.length);
    for (const product of await loadProducts(db, fill)) hits.push({ product, source: 'trending' });
  }
  return { hits, tier, intentHits, trendingFill: hits.length - intentHits, semanticHits: 0 };
}

/**
 * The fusion's settings, tuned on the evaluation set (eval/recommend, docs/RECOMMEND.md), not by hand:
 * candidates each side brings, the reciprocal-rank constant, each side's weight, and the similarity
 * a product needs to count as a match of the sentence's meaning.
 */
export interface FusionSettings {
  candidates: number;
  rrfK: number;
  semanticWeight: number;
  textWeight: number;
  semanticMatch: number;
  semanticSupport: number;
  /** How much the attributes asked for (attributeFit, in [-1, 1]) move a product. */
  attributeWeight: number;
}

export const FUSION: FusionSettings = {
  candidates: 60,
  rrfK: 40,
  semanticWeight: 1,
  textWeight: 0.5,
  /** Below this a product is nearer the sentence than most, but not what it asks for. */
  semanticMatch: 0.4,
  /** With the catalog's words behind it, a product needs less of the meaning. */
  semanticSupport: 0.25,
  attributeWeight: 0.03,
};

/** Full-text tiers whose hits contain all the sentence's words (or its phrase, or close to it): matches in their own right. */
const WORD_MATCH_TIERS = new Set<MatchTier>(['raw_substring', 'strict', 'narrow', 'fuzzy']);

/**
 * Semantic (meaning alone) or hybrid retrieval: the products nearest the sentence's meaning and the
 * full-text tiers' candidates, fused by reciprocal rank. Only products that match count: near enough
 * in meaning, or found by all the words and not far in meaning. When none does, the answer is the
 * trending suggestion, labelled as such; when fewer than `limit` do, the answer is shorter, never
 * topped up with products that do not fit.
 */
async function byMeaning(
  db: Db,
  si: ShoppingIntent,
  limit: number,
  snapshot: CatalogSnapshot,
  semantic: SemanticTier,
  ranker: Exclude<Ranker, 'fulltext'>,
  fusion: FusionSettings,
): Promise<Retrieval> {
  const pool = Math.max(limit, fusion.candidates);
  const [text, near] = await Promise.all([
    ranker === 'hybrid' ? textHits(db, si, pool, snapshot) : Promise.resolve([]),
    semantic.search(db, si.query, pool * 3, fusion.semanticSupport),
  ]);
  const similarity = new Map(near.map((n) => [n.productId, n.score]));
  // The filters (region, budget, audience) apply to the meaning's candidates as to the words'.
  const textIds = new Set(text.map((h) => h.product.product_id));
  const nearRows = await loadProducts(
    db,
    near.map((n) => n.productId).filter((id) => !textIds.has(id)),
    filters(si, []),
  );
  const semanticRank = new Map<number, number>();
  let rank = 0;
  const rowById = new Map(nearRows.map((r) => [r.product_id, r]));
  for (const n of near) if (textIds.has(n.productId) || rowById.has(n.productId)) semanticRank.set(n.productId, ++rank);

  // A category the words named (by the taxonomy's names and the shopper words for them) is a match
  // in its own right: "pram" names Strollers, whose products need not say "pram".
  const named = new Set(categoryGroups(si, snapshot).flat());
  const candidates: Array<Hit & { score: number }> = [];
  const consider = (product: ProductRow, source: Hit['source'], textRank: number | null) => {
    const sim = similarity.get(product.product_id) ?? null;
    const byAllWords = textRank !== null && WORD_MATCH_TIERS.has(source as MatchTier);
    const inNamedCategory = textRank !== null && product.category_id !== null && named.has(product.category_id);
    // A product the embedding walk has not reached yet is judged by its words alone: it is
    // searchable by full text from its import on.
    const unembedded = !semantic.index.has(product.product_id);
    // All the words, and not far in meaning; or a category the words named, which the encoder may
    // not know the word for ("pram", "sunnies").
    const matches = (sim !== null && sim >= fusion.semanticMatch) || (byAllWords && (sim !== null || unembedded)) || inNamedCategory;
    if (!matches) return;
    // Without a vector, its place among the words' candidates stands in for its place by meaning.
    const semRank = semanticRank.get(product.product_id) ?? (unembedded && textRank !== null ? textRank : undefined);
    // "4 person tent": a 4-person tent before a 2-person one; a product that states nothing comparable is left where it is.
    const fit = si.attributes.length ? attributeFit(si.attributes, product).score : 0;
    const score =
      (semRank ? fusion.semanticWeight / (fusion.rrfK + semRank) : 0) +
      (textRank ? fusion.textWeight / (fusion.rrfK + textRank) : 0) +
      fusion.attributeWeight * fit;
    candidates.push({ product, source, score });
  };
  text.forEach((h, i) => consider(h.product, h.source, i + 1));
  for (const r of nearRows) consider(r, 'semantic', null);
  candidates.sort((a, b) => b.score - a.score || a.product.product_id - b.product.product_id);
  const hits: Hit[] = candidates.slice(0, limit).map(({ product, source }) => ({ product, source }));
  if (!hits.length) return withTrendingFill(db, si, limit, snapshot, [], 'none');
  return {
    hits,
    tier: tierOf(hits),
    intentHits: hits.length,
    trendingFill: 0,
    semanticHits: hits.filter((h) => h.source === 'semantic').length,
  };
}

/** The answer's tier: the weakest full-text tier among its hits; a hit found by meaning alone counts as broadened. */
export function tierOf(hits: readonly Hit[]): MatchTier {
  let weakest = -1;
  for (const h of hits) {
    const i = h.source === 'semantic' ? MATCH_TIERS.indexOf('broadened') : MATCH_TIERS.indexOf(h.source as (typeof MATCH_TIERS)[number]);
    weakest = Math.max(weakest, i);
  }
  return weakest < 0 ? 'none' : MATCH_TIERS[weakest]!;
}

/**
 * Consecutive tiers whose plan suits every value of their parameters, in tier order, go in one
 * statement, prepared once per session; a tier whose plan depends on its values (broadened) goes in
 * a statement of its own, planned for them. One statement instead of one per tier saves a round
 * trip, and a statement's executor start, for every tier that comes up short.
 */
function byPlanKind(probes: TierProbe[]): TierProbe[][] {
  const statements: TierProbe[][] = [];
  for (const probe of probes) {
    const last = statements[statements.length - 1];
    if (last && last[0]!.genericPlan && probe.genericPlan) last.push(probe);
    else statements.push([probe]);
  }
  return statements;
}

/**
 * The categories the words named, in groups: one group per naming term, in the order the terms
 * came ("trainers for the gym": the trainers' categories before the gym's). Each group holds the L2
 * ids named, plus every child of an L1 named (a product sits in its L2; feed products may sit in an L1).
 */
function categoryGroups(si: ShoppingIntent, snapshot: CatalogSnapshot): number[][] {
  const groups = new Map<string, Set<number>>();
  for (const c of si.categories) {
    const ids = groups.get(c.term) ?? new Set<number>();
    groups.set(c.term, ids);
    ids.add(c.category_id);
    if (c.level === 1) for (const child of snapshot.categories) if (child.parent_id === c.category_id) ids.add(child.category_id);
  }
  return [...groups.values()].map((ids) => [...ids]);
}

/** One ordered run of candidates. */
interface Branch {
  where: RawBuilder<boolean>;
  order: RawBuilder<unknown>;
}

interface TierProbe {
  tier: (typeof MATCH_TIERS)[number];
  /** Candidates in this order: all of the first branch's, then the next's (branches never overlap). */
  branches: Branch[];
  /**
   * The same plan suits every value of the parameters (an index scan on the search's own index),
   * so the statement is prepared once per session instead of planned per request. Not so for
   * broadened, whose OR of words and categories needs the values to choose its plan.
   */
  genericPlan: boolean;
}

const allKeywords = (si: ShoppingIntent) => sql`plainto_tsquery('english', ${si.keywords.join(' ')})`;
const anyKeyword = (si: ShoppingIntent) =>
  sql.join(
    si.keywords.map((k) => sql`plainto_tsquery('english', ${k})`),
    sql` || `,
  );
const inCategory = (ids: number[]) => sql<boolean>`p.category_id = any(${ids}::int[])`;
const notInCategory = (ids: number[]) => sql<boolean>`not coalesce(p.category_id = any(${ids}::int[]), false)`;
const popularity = sql`(p.inventory_qty > 0) desc, p.gmv_cents desc, p.product_id`;

/** Products of the first-named categories first, then the next group's, then the rest. */
function categoryOrder(groups: number[][]): RawBuilder<unknown> {
  if (!groups.length) return sql``;
  const whens = groups.map((ids, i) => sql`when ${inCategory(ids)} then ${i}`);
  return sql`case ${sql.join(whens, sql` `)} else ${groups.length} end, `;
}

function tierCondition(t: (typeof MATCH_TIERS)[number], si: ShoppingIntent, groups: number[][]): TierProbe | null {
  const hasKeywords = si.keywords.length > 0;
  const categoryIds = groups.flat();
  const byCategory = categoryOrder(groups);
  switch (t) {
    case 'raw_substring':
      // Whole words in order, so "cat" does not find "vacation".
      if (si.phrase.length < 3) return null;
      return {
        tier: t,
        branches: [{ where: sql`p.title ~* ${`\\m${escapeRegex(si.phrase)}\\M`}`, order: sql`${byCategory}${popularity}` }],
        genericPlan: true,
      };
    case 'strict':
      if (!hasKeywords || !categoryIds.length) return null;
      return {
        tier: t,
        branches: [
          {
            where: sql`p.search_tsv @@ ${allKeywords(si)} and ${inCategory(categoryIds)}`,
            order: sql`${byCategory}ts_rank(p.search_tsv, ${allKeywords(si)}) desc, ${popularity}`,
          },
        ],
        genericPlan: true,
      };
    case 'narrow':
      if (!hasKeywords) return null;
      return {
        tier: t,
        branches: [
          {
            where: sql`p.search_tsv @@ ${allKeywords(si)}`,
            order: sql`${byCategory}ts_rank(p.search_tsv, ${allKeywords(si)}) desc, ${popularity}`,
          },
        ],
        genericPlan: true,
      };
    case 'fuzzy': {
      if (si.phrase.length < 4) return null;
      // Typos: trigram word similarity of the whole phrase against titles (pg_trgm's <% uses the index),
      // kept to the named categories when there are some.
      const scope = categoryIds.length ? sql` and ${inCategory(categoryIds)}` : sql``;
      return {
        tier: t,
        branches: [
          {
            where: sql`${si.phrase} <% p.title${scope}`,
            order: sql`${byCategory}word_similarity(${si.phrase}, p.title) desc, ${popularity}`,
          },
        ],
        genericPlan: true,
      };
    }
    case 'broadened': {
      if (!hasKeywords && !categoryIds.length) return null;
      return { tier: t, branches: broadenedBranches(si, groups), genericPlan: false };
    }
  }
}

/**
 * Any of the words, or any of the named categories: products of the first-named categories first,
 * then the next group's, then the rest; within each, those matching more of the words first (a
 * product matching none ranks 0), then by popularity. Ranking all of them at once meant computing
 * the word rank of every product matching any word (thousands for "skin care"), when the first
 * category's own products almost always fill the answer. So each step of that order is a branch
 * of its own, tried only while the answer is not full: a group's products matching a word, then its
 * other products by popularity, and only then the other products matching a word.
 */
function broadenedBranches(si: ShoppingIntent, groups: number[][]): Branch[] {
  const anyWord = si.keywords.length ? sql<boolean>`p.search_tsv @@ (${anyKeyword(si)})` : null;
  const byWordRank = sql`ts_rank(p.search_tsv, ${anyKeyword(si)}) desc, ${popularity}`;
  const branches: Branch[] = [];
  groups.forEach((ids, i) => {
    // A category named again by a later term stays with the first group that named it.
    const earlier = groups.slice(0, i).flat();
    const member = earlier.length ? sql<boolean>`${inCategory(ids)} and ${notInCategory(earlier)}` : inCategory(ids);
    if (anyWord) branches.push({ where: sql`${member} and ${anyWord}`, order: byWordRank });
    branches.push({ where: anyWord ? sql`${member} and not ${anyWord}` : member, order: popularity });
  });
  if (anyWord) branches.push({ where: groups.length ? sql`${anyWord} and ${notInCategory(groups.flat())}` : anyWord, order: byWordRank });
  return branches;
}

function filters(si: ShoppingIntent, already: TierHit[]): RawBuilder<boolean> {
  const parts: RawBuilder<boolean>[] = [];
  if (si.region) parts.push(sql`(cardinality(p.region_allow) = 0 or ${si.region.code} = any(p.region_allow))`);
  if (si.budget) {
    parts.push(sql`p.currency = 'USD'`);
    if (si.budget.minCents !== null) parts.push(sql`p.price_cents >= ${si.budget.minCents}`);
    if (si.budget.maxCents !== null) parts.push(sql`p.price_cents <= ${si.budget.maxCents}`);
  }
  if (si.excludedL1.length) parts.push(sql`coalesce(p.category_l1, '') <> all(${si.excludedL1}::text[])`);
  if (already.length) parts.push(sql`p.product_id <> all(${already.map((h) => h.product.product_id)}::int[])`);
  return parts.length ? sql.join(parts, sql` and `) : sql<boolean>`true`;
}

/**
 * Runs tiers in turn, as one statement. Each tier is a CTE of the ids it ranks first that the
 * tiers before it did not return, as if each ran once the earlier ones came up short: Postgres
 * computes a CTE only when it is first read, and the Append under the limit reads the next tier
 * only while the limit is not reached, so a tier that is not needed costs nothing. Within a tier,
 * its branches are an Append under the limit in the same way. Candidates are ranked as ids alone and
 * only the winners' rows are read whole: sorting hundreds of full product rows to keep three cost
 * more than the search itself.
 */
async function runTiers(db: Db, tiers: TierProbe[], filter: RawBuilder<boolean>, limit: number): Promise<TierHit[]> {
  const cte = (i: number) => sql.raw(`tier_${i}`);
  const ctes = tiers.map((t, i) => {
    const earlier = tiers.slice(0, i).map((_, j) => sql`select product_id from ${cte(j)}`);
    const notEarlier = earlier.length ? sql` and p.product_id <> all(array(${sql.join(earlier, sql` union all `)}))` : sql``;
    const branches = t.branches.map(
      (b) => sql`select p.product_id from products p where ${b.where} and ${filter}${notEarlier} order by ${b.order} limit ${limit}`,
    );
    const ranked =
      branches.length === 1
        ? branches[0]!
        : sql`select product_id from (${sql.join(
            branches.map((b) => sql`(${b})`),
            sql` union all `,
          )}) branches limit ${limit}`;
    return sql`${cte(i)} as materialized (select product_id, ${sql.lit(MATCH_TIERS.indexOf(t.tier))} as tier from (${ranked}) ranked)`;
  });
  const inTurn = sql.join(
    tiers.map((_, i) => sql`select product_id, tier from ${cte(i)}`),
    sql` union all `,
  );
  const query = sql<ProductRow & { tier: number }>`
    with ${sql.join(ctes, sql`, `)}
    select ${PRODUCT_COLUMNS}, hit.tier
    from rows from (unnest(array(select row(product_id, tier) from (${inTurn}) in_turn limit ${limit})) as (product_id int, tier int))
      with ordinality as hit(product_id, tier, position)
    join products p on p.product_id = hit.product_id
    order by hit.position`;
  const rows = tiers[0]!.genericPlan ? await queryWithGenericPlan(db, query.compile(db)) : (await query.execute(db)).rows;
  return rows.map(({ tier, ...product }) => ({ product, source: MATCH_TIERS[tier]! }));
}

/** Recent best sellers that pass the same region, budget and audience filters as the tiers. */
function trendingFill(pool: TrendingProduct[], si: ShoppingIntent, taken: Set<number>, count: number): number[] {
  const out: number[] = [];
  for (const p of pool) {
    if (out.length >= count) break;
    if (taken.has(p.product_id)) continue;
    if (si.region && p.region_allow.length && !p.region_allow.includes(si.region.code)) continue;
    if (si.budget) {
      if (p.currency !== 'USD') continue;
      if (si.budget.minCents !== null && p.price_cents < si.budget.minCents) continue;
      if (si.budget.maxCents !== null && p.price_cents > si.budget.maxCents) continue;
    }
    if (p.category_l1 && si.excludedL1.includes(p.category_l1)) continue;
    out.push(p.product_id);
  }
  return out;
}

async function loadProducts(db: Db, ids: number[], filter: RawBuilder<boolean> = sql<boolean>`true`): Promise<ProductRow[]> {
  if (!ids.length) return [];
  const { rows } =
    await sql<ProductRow>`select ${PRODUCT_COLUMNS} from products p where p.product_id = any(${ids}::int[]) and ${filter}`.execute(db);
  const byId = new Map(rows.map((r) => [r.product_id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
