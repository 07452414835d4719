import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { formatPrice } from '../catalog/cards';
import type { ProductRow } from '../db/schema-catalog';
import { getProducts } from '../catalog/products';
import { fromMinorUnits, toMinorUnits } from '../money';
import { keywordTags, normalizeQuery } from '../matching/intent-text';
import type { ExperienceFeedInput, ExperienceFeedT, FitStatementT, InspirationRefT } from '../schemas/experience';
import { buildExperienceCard, type CardProduct } from './card';
import { contentId } from './content-id';
import { loadCreatorEvidence } from './facts';
import { deriveTaste, effectiveTaste, type DerivedTaste, type EffectiveTaste } from './taste';
import type { Caller } from '../tenancy';

/** Candidates scored per feed: the best-selling matches of the seeds, enough to rank from. */
const CANDIDATES = 400;
/** Products a referenced creator contributes: that creator's best-converting videos. */
const CREATOR_PRODUCTS = 20;

/** Ranking weights (docs/EXPERIENCE.md): taste first, creator evidence breaks near-ties. */
const W = { category_l2: 3, category_l1: 2, brand: 2, keyword: 1, max_keywords: 3, creator_ref: 2, in_band: 1, out_of_band: -1 };

interface Seeds {
  categories: Set<string>;
  brands: Set<string>;
  keywords: Set<string>;
  /** product id → the referenced creator's best video of it. */
  creatorProducts: Map<number, { username: string; orders: number; views: number }>;
  /** category or brand → the referenced product it came from. */
  fromProduct: Map<string, { product_id: number; title: string }>;
}

type ResolvedRef = InspirationRefT & {
  resolved: boolean;
  seeds: { categories: string[]; brands: string[]; keywords: string[]; product_ids: number[] };
};

const plural = (w: string) => [w, w.endsWith('s') ? w.slice(0, -1) : `${w}s`];

async function resolveInspiration(
  db: Db,
  refs: InspirationRefT[],
  taste: EffectiveTaste,
): Promise<{ seeds: Seeds; resolved: ResolvedRef[] }> {
  const seeds: Seeds = {
    categories: new Set(taste.categories),
    brands: new Set(taste.brands),
    keywords: new Set(taste.keywords),
    creatorProducts: new Map(),
    fromProduct: new Map(),
  };
  const productIds = refs.flatMap((r) => (r.type === 'product' ? [r.product_id] : []));
  const usernames = refs.flatMap((r) => (r.type === 'creator' ? [r.username.replace(/^@/, '')] : []));
  const [products, creatorVideos] = await Promise.all([
    getProducts(db, productIds),
    usernames.length
      ? sql<{ username: string; product_id: number; orders: number; views: string }>`
          select c.username, v.product_id, v.orders, v.views
          from creators c cross join lateral (
            select * from videos x where x.creator_id = c.creator_id and x.orders > 0
            order by x.conversion_score desc, x.gmv_cents desc, x.task_id limit ${CREATOR_PRODUCTS}
          ) v
          where c.username = any(${usernames}::text[])
          order by c.username, v.conversion_score desc, v.gmv_cents desc, v.task_id`
          .execute(db)
          .then((r) => r.rows)
      : [],
  ]);
  const resolved = refs.map((ref): ResolvedRef => {
    const out: ResolvedRef['seeds'] = { categories: [], brands: [], keywords: [], product_ids: [] };
    if (ref.type === 'product') {
      const p = products.get(ref.product_id);
      if (!p) return { ...ref, resolved: false, seeds: out };
      for (const c of [p.category_l2].filter((x): x is string => !!x)) {
        out.categories.push(c);
        seeds.categories.add(c);
        if (!seeds.fromProduct.has(c)) seeds.fromProduct.set(c, { product_id: p.product_id, title: p.title });
      }
      if (p.brand) {
        out.brands.push(p.brand);
        seeds.brands.add(p.brand);
        if (!seeds.fromProduct.has(p.brand)) seeds.fromProduct.set(p.brand, { product_id: p.product_id, title: p.title });
      }
      return { ...ref, resolved: true, seeds: out };
    }
    if (ref.type === 'creator') {
      const name = ref.username.replace(/^@/, '');
      for (const v of creatorVideos.filter((v) => v.username === name)) {
        out.product_ids.push(v.product_id);
        if (!seeds.creatorProducts.has(v.product_id))
          seeds.creatorProducts.set(v.product_id, { username: v.username, orders: v.orders, views: Number(v.views) });
      }
      return { ...ref, resolved: out.product_ids.length > 0, seeds: out };
    }
    out.keywords = keywordTags(normalizeQuery(ref.text));
    for (const k of out.keywords) seeds.keywords.add(k);
    return { ...ref, resolved: out.keywords.length > 0, seeds: out };
  });
  return { seeds, resolved };
}

type Candidate = CardProduct & Pick<ProductRow, 'orders'>;

async function candidates(db: Db, seeds: Seeds, taste: EffectiveTaste, excluded: number[]): Promise<Candidate[]> {
  const cats = [...seeds.categories];
  const brands = [...seeds.brands];
  const keywords = [...seeds.keywords].flatMap(plural);
  const creatorIds = [...seeds.creatorProducts.keys()];
  const seeded = cats.length || brands.length || keywords.length || creatorIds.length;
  // Without any seed (a new agent, no profile, no refs) the feed starts from what sells.
  const match = seeded
    ? sql`and (p.category_l2 = any(${cats}::text[]) or p.category_l1 = any(${cats}::text[]) or p.brand = any(${brands}::text[])
              or p.tags && ${keywords}::text[] or p.product_id = any(${creatorIds}::int[]))`
    : sql``;
  const { rows } = await sql<Candidate>`
    select p.product_id, p.external_id, p.title, p.brand, p.category_l1, p.category_l2, p.price_cents, p.currency, p.main_image, p.region_allow, p.tags, p.orders
    from products p
    where p.inventory_qty > 0
      and not (p.product_id = any(${excluded}::int[]))
      and not coalesce(p.category_l2 = any(${taste.avoid_categories}::text[]) or p.category_l1 = any(${taste.avoid_categories}::text[]), false)
      and not coalesce(p.brand = any(${taste.avoid_brands}::text[]), false)
      ${match}
    order by p.gmv_cents desc, p.product_id
    limit ${CANDIDATES}`.execute(db);
  return rows;
}

function inBand(priceCents: number, band: EffectiveTaste['price_band']): boolean | null {
  if (!band || (band.min === null && band.max === null)) return null;
  // Price bands are USD (the caller compares only USD products).
  const price = fromMinorUnits(priceCents, 'USD');
  return (band.min === null || price >= band.min) && (band.max === null || price <= band.max);
}

function score(p: Candidate, seeds: Seeds, taste: EffectiveTaste): number {
  let s = 0;
  if (p.category_l2 && seeds.categories.has(p.category_l2)) s += W.category_l2;
  else if (p.category_l1 && seeds.categories.has(p.category_l1)) s += W.category_l1;
  if (p.brand && seeds.brands.has(p.brand)) s += W.brand;
  const tags = new Set(p.tags);
  const hits = [...seeds.keywords].filter((k) => plural(k).some((v) => tags.has(v))).length;
  s += W.keyword * Math.min(W.max_keywords, hits);
  if (seeds.creatorProducts.has(p.product_id)) s += W.creator_ref;
  const band = inBand(p.price_cents, taste.price_band);
  if (band !== null) s += band ? W.in_band : W.out_of_band;
  // Creator evidence: 0..1, one order is worth little, ten thousand saturate.
  return s + Math.min(1, Math.log10(1 + p.orders) / 4);
}

/** The statements a feed item earns from the taste profile and the inspiration refs. */
function tasteFit(p: Candidate, seeds: Seeds, taste: EffectiveTaste, derived: DerivedTaste, explicit: Record<string, unknown>) {
  const fits: FitStatementT[] = [];
  const caveats: FitStatementT[] = [];
  const cat = [p.category_l2, p.category_l1].find((c): c is string => !!c && taste.categories.includes(c));
  if (cat) {
    const d = derived.categories.find((c) => c.name === cat);
    fits.push(
      explicit.categories || !d
        ? {
            basis: 'taste_category',
            statement: `It is in ${cat}, a category in your taste profile.`,
            data: { category: cat, source: 'explicit' },
          }
        : {
            basis: 'taste_category',
            statement: `It is in ${cat}, where your decisions score +${d.score} over ${d.events} event(s).`,
            data: { category: cat, source: 'decision_events', score: d.score, events: d.events },
          },
    );
  }
  if (p.brand && taste.brands.includes(p.brand)) {
    const d = derived.brands.find((b) => b.name === p.brand);
    fits.push(
      explicit.brands || !d
        ? {
            basis: 'taste_brand',
            statement: `It is by ${p.brand}, a brand in your taste profile.`,
            data: { brand: p.brand, source: 'explicit' },
          }
        : {
            basis: 'taste_brand',
            statement: `It is by ${p.brand}, where your decisions score +${d.score} over ${d.events} event(s).`,
            data: { brand: p.brand, source: 'decision_events', score: d.score, events: d.events },
          },
    );
  }
  for (const key of [p.category_l2, p.brand]) {
    const ref = key && !taste.categories.includes(key) && !taste.brands.includes(key) ? seeds.fromProduct.get(key) : undefined;
    if (ref && ref.product_id !== p.product_id) {
      fits.push({
        basis: 'inspiration',
        statement: `It shares ${key} with product ${ref.product_id} (${ref.title}) you referenced.`,
        data: { shared: key, product_id: ref.product_id },
      });
    }
  }
  const creator = seeds.creatorProducts.get(p.product_id);
  if (creator) {
    fits.push({
      basis: 'inspiration',
      statement: `@${creator.username}, whom you referenced, has a video of it credited with ${creator.orders.toLocaleString('en-US')} orders from ${creator.views.toLocaleString('en-US')} views.`,
      data: { username: creator.username, orders: creator.orders, views: creator.views },
    });
  }
  const band = taste.price_band;
  const within = inBand(p.price_cents, band);
  if (band && within !== null && p.currency === 'USD') {
    const range = `${band.min === null ? 'any' : formatPrice(toMinorUnits(band.min, 'USD'), 'USD')}–${band.max === null ? 'any' : formatPrice(toMinorUnits(band.max, 'USD'), 'USD')}`;
    const whose = explicit.price_band ? 'your' : 'the';
    const tail = explicit.price_band ? 'price band' : 'band of the prices you liked';
    const data = {
      price: fromMinorUnits(p.price_cents, 'USD'),
      band_min: band.min,
      band_max: band.max,
      source: explicit.price_band ? 'explicit' : 'decision_events',
    };
    (within ? fits : caveats).push({
      basis: 'price_band',
      statement: `At ${formatPrice(p.price_cents, 'USD')} it is ${within ? 'within' : 'outside'} ${whose} ${range} ${tail}.`,
      data,
    });
  }
  return { fits, caveats };
}

/**
 * A proactive feed for a shopper agent: catalog products ranked by fit with its taste (its decision
 * events merged with the profile it sends) and its inspiration refs, as experience cards. Same input
 * over the same events and catalog: same items in the same order, same feed_id.
 */
export async function experienceFeed(db: Db, input: ExperienceFeedInput, caller: Caller, now = new Date()): Promise<ExperienceFeedT> {
  const explicit = input.taste_profile ?? {};
  const derived = await deriveTaste(db, input.agent_id, caller);
  const taste = effectiveTaste(derived, explicit);
  const { seeds, resolved } = await resolveInspiration(db, input.inspiration_refs ?? [], taste);
  const pool = await candidates(db, seeds, taste, derived.excluded_product_ids);
  const top = pool
    .map((p) => ({ p, s: score(p, seeds, taste) }))
    .sort((a, b) => b.s - a.s || a.p.product_id - b.p.product_id)
    .slice(0, input.limit)
    .map((x) => x.p);
  const evidence = await loadCreatorEvidence(
    db,
    top.map((p) => p.product_id),
  );
  const keywords = [...seeds.keywords];
  const items = top.map((p) => {
    const { fits, caveats } = tasteFit(p, seeds, taste, derived, explicit);
    return buildExperienceCard({
      product: p,
      evidence: evidence.get(p.product_id) ?? [],
      keywords,
      extraFits: fits,
      extraCaveats: caveats,
    });
  });
  const request = { agent_id: input.agent_id, taste_profile: explicit, inspiration_refs: input.inspiration_refs ?? [], limit: input.limit };
  return {
    feed_id: contentId('feed', { ...request, items: items.map((i) => i.experience_id) }),
    agent_id: input.agent_id,
    taste_profile: { derived, explicit, effective: taste },
    inspiration_refs: resolved,
    items,
    generated_at: now.toISOString(),
  };
}
