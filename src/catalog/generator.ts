import { chance, int, logNormal, pareto, pick, rngFor, sample, weightedSampler, type Rng } from './random';
import { REGIONS, TAXONOMY, searchTags, seedCategories, slugify, type L1Def, type L2Def, type Risk, type SeedCategory } from './taxonomy';

/**
 * The synthetic catalog, computed in memory and deterministically from a seed. Each product and
 * creator draws from its own PRNG stream (seed, kind, index), so item k is the same whatever the
 * catalog size; videos depend on the whole catalog (who sells what) and use one stream.
 */

export const DEFAULT_SEED = 20240601;
export const DEFAULT_COUNTS = { products: 20_000, creators: 2_000, videos: 50_000 } as const;

export const CDN = 'https://cdn.example-shop.test';
export const SHOP = 'https://shop.example-shop.test';
export const PLATFORM = 'https://video.example-platform.test';

// Timestamps hang off a fixed date, not the clock, so re-seeding yields identical rows.
const ANCHOR_MS = Date.UTC(2025, 5, 1);
const DAY_MS = 86_400_000;

export interface GeneratorOptions {
  seed?: number;
  products?: number;
  creators?: number;
  videos?: number;
}

export interface SeedProduct {
  product_id: number;
  title: string;
  description: string;
  brand: string;
  price_cents: number;
  original_price_cents: number | null;
  currency: 'USD';
  discount_label: string | null;
  main_image: string;
  gallery: string[];
  category_l1: string;
  category_l2: string;
  category_id: number;
  region_allow: string[];
  risk_level: Risk;
  tags: string[];
  inventory_qty: number;
  link: string;
  gmv_cents: number;
  orders: number;
  views: number;
  source: 'seed';
  external_id: null;
  created_at: string;
}

export interface SeedCreator {
  creator_id: number;
  username: string;
  display_name: string;
  avatar: string;
  followers: number;
  region: string;
}

export interface SeedVideo {
  task_id: string;
  product_id: number;
  creator_id: number;
  thumbnail: string;
  video_url: string;
  platform_video_url: string;
  duration_s: number;
  gmv_cents: number;
  orders: number;
  views: number;
  conversion_score: number;
  published_at: string;
}

export interface GeneratedCatalog {
  regions: typeof REGIONS;
  categories: SeedCategory[];
  products: SeedProduct[];
  creators: SeedCreator[];
  videos: SeedVideo[];
}

/** Seed video ids: fixed prefix + zero padding, so stale ones can be found by range. */
export function seedTaskId(index: number): string {
  return `sv_${String(index).padStart(7, '0')}`;
}

export function generateCatalog(opts: GeneratorOptions = {}): GeneratedCatalog {
  const seed = opts.seed ?? DEFAULT_SEED;
  const counts = { ...DEFAULT_COUNTS, ...stripUndefined(opts) };
  const categories = seedCategories();
  const l2Ids = new Map(categories.filter((c) => c.level === 2).map((c) => [c.slug, c.category_id]));
  const leaves = TAXONOMY.flatMap((l1) =>
    l1.children.map((l2) => ({ l1, l2, id: l2Ids.get(`${slugify(l1.name)}--${slugify(l2.name)}`)! })),
  );
  // Some categories are simply bigger than others (fashion and beauty outnumber automotive).
  const leafWeights = leaves.map((_, i) => 0.5 + rngFor(seed, 'leaf-weight', i)() * 1.5);
  const pickLeaf = weightedSampler(leafWeights);

  const products: SeedProduct[] = [];
  const appeal: number[] = [];
  for (let i = 1; i <= counts.products; i++) {
    const rng = rngFor(seed, 'product', i);
    const leaf = leaves[pickLeaf(rng)]!;
    products.push(makeProduct(rng, i, leaf.l1, leaf.l2, leaf.id));
    // How likely creators are to pick this product up: a few products carry the market.
    appeal.push(pareto(rng, 1, 1.6));
  }

  const creators = makeCreators(seed, counts.creators);
  const videos = makeVideos(seed, counts.videos, products, appeal, creators);
  return { regions: REGIONS, categories, products, creators, videos };
}

function stripUndefined(o: GeneratorOptions): Partial<typeof DEFAULT_COUNTS> {
  const out: Record<string, number> = {};
  for (const k of ['products', 'creators', 'videos'] as const) if (o[k] !== undefined) out[k] = o[k]!;
  return out;
}

const COLORS = ['Black', 'White', 'Sage Green', 'Navy', 'Beige', 'Charcoal', 'Blush Pink', 'Sky Blue', 'Olive', 'Cream'];
const PACKS = ['2-Pack', '3-Pack', 'Bundle', 'Set of 2', 'Value Pack'];
const DISCOUNTS = [10, 15, 20, 25, 30, 35, 40, 50];
const APPAREL = new Set(["Women's Clothing", "Men's Clothing", 'Footwear', 'Bags & Accessories']);
const COLORED = new Set(['Electronics', 'Computers & Office', 'Home & Kitchen', 'Sports & Outdoors', 'Pet Supplies']);

function makeProduct(rng: Rng, id: number, l1: L1Def, l2: L2Def, categoryId: number): SeedProduct {
  const brand = pick(rng, l1.brands);
  const [adj1, adj2] = sample(rng, l2.adjectives, 2);
  const noun = pick(rng, l2.nouns);
  let title = `${brand} ${chance(rng, 0.35) ? `${capitalize(adj2!)} ` : ''}${capitalize(adj1!)} ${titleCase(noun)}`;
  if (APPAREL.has(l1.name) || (COLORED.has(l1.name) && chance(rng, 0.3))) title += ` - ${pick(rng, COLORS)}`;
  else if (chance(rng, 0.2)) title += `, ${pick(rng, PACKS)}`;

  const [lo, hi] = l2.price;
  // Log-uniform within the category's range, then retail-style endings (.99, .49, .00).
  const listUsd = Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo)));
  const listCents = Math.max(99, Math.floor(listUsd) * 100 + pick(rng, [99, 99, 99, 49, 0]));
  let price = listCents;
  let original: number | null = null;
  let label: string | null = null;
  if (chance(rng, 0.35)) {
    const pct = pick(rng, DISCOUNTS);
    price = Math.max(1, Math.round((listCents * (100 - pct)) / 100));
    original = listCents;
    label = `-${pct}%`;
  }

  const imageCount = int(rng, 3, 5);
  const gallery = Array.from({ length: imageCount }, (_, k) => `${CDN}/p/${id}/${k === 0 ? 'main' : k}.jpg`);
  const features = sample(rng, l1.features, 2);
  const description = `${capitalize(adj1!)} ${noun} from ${brand}. ${features.join('. ')}.`;
  const createdAt = new Date(ANCHOR_MS - Math.floor(rng() * 720) * DAY_MS - Math.floor(rng() * DAY_MS));
  return {
    product_id: id,
    title,
    description,
    brand,
    price_cents: price,
    original_price_cents: original,
    currency: 'USD',
    discount_label: label,
    main_image: gallery[0]!,
    gallery,
    category_l1: l1.name,
    category_l2: l2.name,
    category_id: categoryId,
    region_allow: regionAllow(rng, l2),
    risk_level: riskLevel(rng, l2.risk ?? 'low'),
    tags: searchTags(title, brand, l1.name, l2.name),
    inventory_qty: chance(rng, 0.07) ? 0 : Math.round(logNormal(rng, 250, 1.1)),
    link: `${SHOP}/products/${id}-${slugify(`${brand} ${noun}`)}`,
    gmv_cents: 0,
    orders: 0,
    views: 0,
    source: 'seed',
    external_id: null,
    created_at: createdAt.toISOString(),
  };
}

function regionAllow(rng: Rng, l2: L2Def): string[] {
  // Most products sell everywhere; regulated goods (food, supplements) more often ship to a few markets.
  const restricted = l2.risk && l2.risk !== 'low' ? 0.65 : 0.4;
  if (!chance(rng, restricted)) return [];
  const codes = sample(
    rng,
    REGIONS.map((r) => r.code),
    int(rng, 1, 6),
  );
  if (!codes.includes('US') && chance(rng, 0.7)) codes.unshift('US');
  return codes.sort();
}

function riskLevel(rng: Rng, base: Risk): Risk {
  const r = rng();
  if (base === 'high') return r < 0.6 ? 'high' : r < 0.9 ? 'medium' : 'low';
  if (base === 'medium') return r < 0.1 ? 'high' : r < 0.6 ? 'medium' : 'low';
  return r < 0.01 ? 'high' : r < 0.05 ? 'medium' : 'low';
}

const FIRST = [
  'Ava',
  'Mia',
  'Leo',
  'Noah',
  'Zoe',
  'Kai',
  'Luna',
  'Ethan',
  'Maya',
  'Liam',
  'Chloe',
  'Ivy',
  'Jade',
  'Omar',
  'Nina',
  'Ruby',
  'Theo',
  'Aria',
  'Sofia',
  'Jay',
  'Emma',
  'Yuki',
  'Priya',
  'Lucas',
  'Ines',
  'Hana',
  'Diego',
  'Sara',
  'Max',
  'Lea',
];
const LAST = [
  'Park',
  'Nguyen',
  'Garcia',
  'Smith',
  'Khan',
  'Rossi',
  'Tanaka',
  'Silva',
  'Müller',
  'Martin',
  'Lee',
  'Brown',
  'Lopez',
  'Chen',
  'Dubois',
  'Santos',
  'Kim',
  'Wright',
  'Costa',
  'Ali',
];
const HANDLE_SUFFIX = [
  'finds',
  'reviews',
  'daily',
  'style',
  'hauls',
  'picks',
  'home',
  'fit',
  'eats',
  'tech',
  'glow',
  'deals',
  'tries',
  'life',
  'unboxed',
];
// Creator markets, weighted: the US dominates social commerce volume.
const CREATOR_REGION_WEIGHTS = [40, 12, 6, 5, 4, 4, 3, 3, 2, 4, 3, 4, 4, 3, 3];

function makeCreators(seed: number, count: number): SeedCreator[] {
  const pickRegion = weightedSampler(CREATOR_REGION_WEIGHTS);
  const taken = new Set<string>();
  const out: SeedCreator[] = [];
  for (let i = 1; i <= count; i++) {
    const rng = rngFor(seed, 'creator', i);
    const first = pick(rng, FIRST);
    const last = pick(rng, LAST);
    let username = `${slugify(first)}.${pick(rng, HANDLE_SUFFIX)}`;
    // Uniqueness by construction: later creators get a numeric suffix, as real handles do.
    if (taken.has(username)) username = `${username}${i}`;
    taken.add(username);
    out.push({
      creator_id: i,
      username,
      display_name: `${first} ${last}`,
      avatar: `${CDN}/creators/${i}.jpg`,
      followers: Math.min(50_000_000, Math.round(pareto(rng, 1_000, 0.9))),
      region: REGIONS[pickRegion(rng)]!.code,
    });
  }
  return out;
}

function makeVideos(seed: number, count: number, products: SeedProduct[], appeal: number[], creators: SeedCreator[]): SeedVideo[] {
  if (!products.length || !creators.length) return [];
  const rng = rngFor(seed, 'videos');
  const pickProduct = weightedSampler(appeal);
  // Bigger creators post more product videos, sub-linearly.
  const pickCreator = weightedSampler(creators.map((c) => Math.pow(c.followers, 0.5)));
  const videos: SeedVideo[] = [];
  for (let i = 1; i <= count; i++) {
    const product = products[pickProduct(rng)]!;
    const creator = creators[pickCreator(rng)]!;
    const taskId = seedTaskId(i);
    // Log-normal reach scaled by audience, log-normal conversion: together a heavy-tailed GMV.
    const reach = Math.pow(creator.followers / 10_000, 0.35);
    const views = Math.max(50, Math.round(logNormal(rng, 8_000, 1.5) * reach));
    const rate = Math.min(0.08, logNormal(rng, 0.003, 0.8));
    const orders = Math.floor(views * rate);
    const gmv = orders * product.price_cents;
    product.gmv_cents += gmv;
    product.orders += orders;
    product.views += views;
    videos.push({
      task_id: taskId,
      product_id: product.product_id,
      creator_id: creator.creator_id,
      thumbnail: `${CDN}/videos/${taskId}/thumb.jpg`,
      video_url: `${CDN}/videos/${taskId}/video.mp4`,
      platform_video_url: `${PLATFORM}/@${encodeURIComponent(creator.username)}/video/${taskId}`,
      duration_s: Math.round(Math.min(600, Math.max(7, logNormal(rng, 32, 0.6)))),
      gmv_cents: gmv,
      orders,
      views,
      conversion_score: round4(Math.min(1, views ? orders / views / 0.1 : 0)),
      published_at: new Date(ANCHOR_MS - Math.floor(rng() * 365 * DAY_MS)).toISOString(),
    });
  }
  return videos;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const capitalize = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
const titleCase = (s: string) =>
  s
    .split(' ')
    .map((w) => (/[A-Z]/.test(w) ? w : capitalize(w)))
    .join(' ');
