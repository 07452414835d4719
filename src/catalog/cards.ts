import { sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/connect';
import type { ProductRow, VideosTable } from '../db/schema-catalog';
import type { ProductCardDocumentT, ProductOfferT, VideoT } from '../schemas/catalog';
import { CDN } from './generator';
import { formatMajorUnits, fromMinorUnits, toMinorUnits } from '../money';
import { centsToNumber, productView } from './products';
import { TAXONOMY } from './taxonomy';
import { freshness } from '../refresh-ahead';
import { readCatalogVersion } from './version';

/**
 * Product Card Documents (docs/CATALOG.md). All copy is derived from catalog facts with fixed templates,
 * so the same product and data always give the same card; only rec_id and generated_at vary.
 */

export interface CardOptions {
  publicBaseUrl: string;
  channel?: string | null;
  recIdFor: (productId: number) => string;
  now?: Date;
  /** Catalog facts already loaded by this process; without it every call reads the database. */
  cache?: CardFactsCache;
}

const VIDEOS_PER_CARD = 3;

interface RankedProduct extends ProductRow {
  /** Products in the same category with more GMV (0 = category leader). */
  gmv_rank: number;
  category_size: number;
}

type VideoWithCreator = Omit<VideosTable, 'creator_id' | 'published_at'> & {
  username: string;
  display_name: string;
  avatar: string | null;
  followers: number;
  creator_region: string;
};

/** What a card is built from: the product with its category rank, and its top videos. */
interface CardFacts {
  product: RankedProduct;
  videos: VideoWithCreator[];
}

const REVALIDATE_BATCH_MS = 50;

/**
 * Card facts change only when the catalog is re-seeded or a feed is imported, yet reading them is
 * most of the cost of a rendered match session, so each API process keeps them, refresh-ahead
 * (src/refresh-ahead.ts) with CARD_CACHE_TTL_S: facts past it are still served while checked in the
 * background against the catalog version (migration 0019): unchanged, they are kept for another
 * TTL at the cost of one small read per batch; changed, they are read again. Checks run on `db`,
 * never on a caller's transaction.
 */
export class CardFactsCache {
  private readonly lru: LRUCache<number, { facts: CardFacts; at: number; version: string }>;
  /** Ids being checked, and those waiting for the next batch. */
  private readonly checking = new Set<number>();
  private readonly queued: number[] = [];

  constructor(
    private readonly db: Db,
    private readonly ttlSeconds: number,
    max = 5000,
  ) {
    this.lru = new LRUCache({ max });
  }

  /** Facts that may be used now (fresh or stale); a stale one is checked in the background. */
  get(id: number): CardFacts | undefined {
    const entry = this.lru.get(id);
    if (!entry) return undefined;
    const f = freshness(entry.at, this.ttlSeconds * 1000);
    if (f === 'expired') return undefined;
    if (f === 'stale') this.check(id);
    return entry.facts;
  }

  /** `version`: the catalog version read before the facts were (so never newer than they are). */
  set(id: number, facts: CardFacts, version: string) {
    this.lru.set(id, { facts, at: Date.now(), version });
  }

  /** Stale ids seen within REVALIDATE_BATCH_MS are checked together: one version read, and one read of those that changed. */
  private check(id: number): void {
    if (this.checking.has(id)) return;
    this.checking.add(id);
    this.queued.push(id);
    if (this.queued.length > 1) return;
    setTimeout(() => {
      const ids = this.queued.splice(0);
      this.revalidate(ids)
        .catch(() => undefined) // still stale: the next use tries again, and expiry bounds it
        .finally(() => ids.forEach((i) => this.checking.delete(i)));
    }, REVALIDATE_BATCH_MS).unref();
  }

  private async revalidate(ids: number[]): Promise<void> {
    const version = await readCatalogVersion(this.db);
    const changed: number[] = [];
    for (const id of ids) {
      const entry = this.lru.peek(id);
      if (entry?.version === version) this.set(id, entry.facts, version);
      else changed.push(id);
    }
    if (changed.length) for (const [id, facts] of await loadCardFacts(this.db, changed)) this.set(id, facts, version);
  }
}

export async function buildProductCards(db: Db, productIds: number[], opts: CardOptions): Promise<ProductCardDocumentT[]> {
  const ids = [...new Set(productIds.filter((id) => Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647))];
  if (!ids.length) return [];
  const facts = new Map<number, CardFacts>();
  for (const id of ids) {
    const hit = opts.cache?.get(id);
    if (hit) facts.set(id, hit);
  }
  const missing = ids.filter((id) => !facts.has(id));
  if (missing.length) {
    const version = opts.cache ? await readCatalogVersion(db) : '';
    for (const [id, loaded] of await loadCardFacts(db, missing)) {
      facts.set(id, loaded);
      opts.cache?.set(id, loaded, version);
    }
  }
  const generatedAt = (opts.now ?? new Date()).toISOString();
  const cards: ProductCardDocumentT[] = [];
  for (const id of productIds) {
    const f = facts.get(id);
    if (f) cards.push(buildCard(f.product, f.videos, opts, generatedAt));
  }
  return cards;
}

async function loadCardFacts(db: Db, ids: number[]): Promise<Map<number, CardFacts>> {
  const [products, videos] = await Promise.all([loadRankedProducts(db, ids), loadTopVideos(db, ids)]);
  const facts = new Map<number, CardFacts>(products.map((product) => [product.product_id, { product, videos: [] }]));
  for (const v of videos) facts.get(v.product_id)?.videos.push(v);
  return facts;
}

async function loadRankedProducts(db: Db, ids: number[]): Promise<RankedProduct[]> {
  const { rows } = await sql<RankedProduct>`
    select p.*,
      (select count(*)::int from products q where q.category_id = p.category_id and q.gmv_cents > p.gmv_cents) as gmv_rank,
      (select count(*)::int from products q where q.category_id = p.category_id) as category_size
    from products p
    where p.product_id = any(${ids}::int[])`.execute(db);
  return rows;
}

/** Top videos of every requested product in one round trip (lateral join on (product_id, gmv_cents desc)). */
async function loadTopVideos(db: Db, ids: number[]): Promise<VideoWithCreator[]> {
  const { rows } = await sql<VideoWithCreator>`
    select v.product_id, v.task_id, v.thumbnail, v.video_url, v.platform_video_url, v.duration_s, v.gmv_cents, v.orders, v.views,
      v.conversion_score, c.username, c.display_name, c.avatar, c.followers, c.region as creator_region
    from unnest(${ids}::int[]) as want(product_id)
    cross join lateral (
      select * from videos x where x.product_id = want.product_id order by x.gmv_cents desc, x.task_id limit ${VIDEOS_PER_CARD}
    ) v
    join creators c on c.creator_id = v.creator_id
    order by v.product_id, v.gmv_cents desc, v.task_id`.execute(db);
  return rows;
}

function buildCard(p: RankedProduct, videos: VideoWithCreator[], opts: CardOptions, generatedAt: string): ProductCardDocumentT {
  const recId = opts.recIdFor(p.product_id);
  const base = opts.publicBaseUrl.replace(/\/+$/, '');
  const l1 = TAXONOMY.find((c) => c.name === p.category_l1);
  const stats = { gmv: Number(p.gmv_cents), orders: p.orders, views: Number(p.views) };
  const topVideo = videos[0];
  const price = formatPrice(p.price_cents, p.currency);
  const kind = (p.category_l2 ?? p.category_l1 ?? 'its category').toLowerCase();

  const oneLiner = p.discount_label
    ? `${p.title} at ${price} (${p.discount_label}).`
    : `${p.title} at ${price}${l1 ? `: ${l1.benefits[p.product_id % l1.benefits.length]!.title.toLowerCase()}` : ''}.`;
  const why = topVideo
    ? `A ${topVideo.duration_s}s video by @${topVideo.username} alone drove ${formatUsd(Number(topVideo.gmv_cents))} in sales from ${compact(Number(topVideo.views))} views; short demos make the value obvious.`
    : stats.orders > 0
      ? `${compact(stats.orders)} orders so far in ${kind}; it sells on its own before any creator push.`
      : `New in ${kind} with no creator videos yet: an early-mover pick at ${price}.`;

  return {
    rec_id: recId,
    product: productView(p),
    hero_pitch: {
      one_liner: oneLiner,
      why_it_wins_on_platform: why,
      key_benefits: keyBenefits(p, l1, stats.orders),
      target_audience: {
        persona: l1?.persona ?? `Shoppers looking for ${kind}`,
        age: l1?.age ?? '18-54',
        region: p.region_allow.length ? p.region_allow : [...new Set(videos.map((v) => v.creator_region))],
      },
    },
    selection_story: selectionStory(p, videos, stats),
    videos: videos.map(videoView),
    cta: {
      primary: { label: p.inventory_qty > 0 ? 'Shop now' : 'Check availability', url: `${base}/r/${encodeURIComponent(recId)}` },
      secondary: p.link
        ? { label: 'View on merchant site', url: p.link }
        : { label: 'View product card', url: `${base}/v1/products/${p.product_id}/card` },
    },
    compliance: { region_allow: p.region_allow, risk_level: p.risk_level },
    offers: [productOffer(p, recId, base)],
    generated_at: generatedAt,
    channel: opts.channel ?? null,
  };
}

/** The card's product as an offer of its seller, bought through the card's own attributed link. */
function productOffer(p: ProductRow, recId: string, base: string): ProductOfferT {
  const view = productView(p);
  return {
    product_id: view.id,
    external_id: view.external_id,
    merchant_id: view.seller.merchant_id,
    seller: view.seller.name,
    title: view.title,
    price_usd: view.price_usd,
    price: view.price,
    availability: view.availability,
    inventory_qty: p.inventory_qty,
    rec_id: recId,
    url: `${base}/r/${encodeURIComponent(recId)}`,
    link: p.link,
    proposal_id: null,
  };
}

const PURCHASABLE = new Set(['in_stock', 'backorder', 'preorder']);

/**
 * Offers in the order a card lists them (docs/RECOMMEND.md#one-product-many-sellers): the ones that
 * can be bought first, those in `currency` (the card's) before others, then cheapest first; ties keep
 * the order given (the recommendation's rank).
 */
export function orderOffers(offers: ProductOfferT[], currency: string): ProductOfferT[] {
  return offers
    .map((o, i) => ({ o, i }))
    .sort(
      (a, b) =>
        Number(!PURCHASABLE.has(a.o.availability)) - Number(!PURCHASABLE.has(b.o.availability)) ||
        Number(a.o.price.currency !== currency) - Number(b.o.price.currency !== currency) ||
        a.o.price.currency.localeCompare(b.o.price.currency) ||
        a.o.price.amount - b.o.price.amount ||
        a.i - b.i,
    )
    .map(({ o }) => o);
}

/**
 * A card listing several sellers' offers of its product (ordered by orderOffers), its selection story
 * saying so. The card's product, copy and CTA stay its own.
 */
export function withOffers(card: ProductCardDocumentT, offers: ProductOfferT[]): ProductCardDocumentT {
  const ordered = orderOffers(offers, card.product.price?.currency ?? 'USD');
  if (ordered.length < 2) return { ...card, offers: ordered };
  const best = ordered[0]!;
  const from = PURCHASABLE.has(best.availability)
    ? `, from ${formatPrice(toMinorUnits(best.price.amount, best.price.currency), best.price.currency)} (${best.seller ?? best.merchant_id})`
    : '';
  return {
    ...card,
    offers: ordered,
    selection_story: { ...card.selection_story, bullets: [...card.selection_story.bullets, `Sold by ${ordered.length} sellers${from}`] },
  };
}

function keyBenefits(
  p: ProductRow,
  l1: (typeof TAXONOMY)[number] | undefined,
  orders: number,
): ProductCardDocumentT['hero_pitch']['key_benefits'] {
  const out: ProductCardDocumentT['hero_pitch']['key_benefits'] = [];
  if (p.discount_label && p.original_price_cents != null) {
    out.push({
      icon: 'tag',
      title: `Save ${p.discount_label.replace(/^-/, '')}`,
      desc: `Now ${formatPrice(p.price_cents, p.currency)}, down from ${formatPrice(p.original_price_cents, p.currency)}.`,
    });
  }
  if (orders >= 100) out.push({ icon: 'trending-up', title: 'Proven seller', desc: `${compact(orders)} orders from creator videos.` });
  const pool = l1?.benefits ?? [{ icon: 'star', title: 'Shopper favourite', desc: p.description.split('. ')[0] ?? p.title }];
  for (let i = 0; out.length < 3 && i < pool.length; i++) out.push(pool[(p.product_id + i) % pool.length]!);
  return out;
}

function selectionStory(
  p: RankedProduct,
  videos: VideoWithCreator[],
  stats: { gmv: number; orders: number; views: number },
): ProductCardDocumentT['selection_story'] {
  const kind = p.category_l2 ?? p.category_l1 ?? 'its category';
  // Share of the category it beats on GMV; a product without sales scores only on its offer.
  const percentile = p.category_size > 1 ? 1 - p.gmv_rank / (p.category_size - 1) : 1;
  const conversion = videos.length ? Math.max(...videos.map((v) => v.conversion_score)) : 0;
  const offer = (p.inventory_qty > 0 ? 0.6 : 0) + (p.discount_label ? 0.4 : 0.2);
  const score = stats.gmv > 0 ? 100 * (0.6 * percentile + 0.25 * conversion + 0.15 * offer) : 25 * offer;
  const topShare = Math.max(1, Math.ceil((1 - percentile) * 100));
  const headline =
    stats.gmv <= 0
      ? `Fresh pick in ${kind}`
      : p.gmv_rank === 0
        ? `#1 in ${kind} by creator GMV`
        : topShare <= 50
          ? `Top ${topShare}% in ${kind} by creator GMV`
          : `Early traction in ${kind}`;
  const bullets: string[] = [];
  if (stats.gmv > 0)
    bullets.push(`${formatUsd(stats.gmv)} GMV, ${compact(stats.orders)} orders, ${compact(stats.views)} views across creator videos`);
  if (videos.length) {
    const best = videos[0]!;
    bullets.push(`Best video: @${best.username} (${compact(best.followers)} followers), ${formatUsd(Number(best.gmv_cents))} GMV`);
  }
  if (p.discount_label) bullets.push(`On sale ${p.discount_label}: ${formatPrice(p.price_cents, p.currency)}`);
  bullets.push(p.inventory_qty > 0 ? `In stock (${p.inventory_qty} units)` : 'Currently out of stock');
  bullets.push(p.region_allow.length ? `Ships to ${p.region_allow.join(', ')}` : 'Ships to all regions');
  return { headline, bullets, platform_score: Math.round(score * 10) / 10 };
}

function videoView(v: VideoWithCreator): VideoT {
  return {
    task_id: v.task_id,
    creator: {
      username: v.username,
      display_name: v.display_name,
      avatar: v.avatar ?? `${CDN}/creators/default.jpg`,
      followers: v.followers,
    },
    thumbnail: v.thumbnail,
    video_url: v.video_url,
    duration_s: v.duration_s,
    gmv_usd: centsToNumber(v.gmv_cents),
    orders: v.orders,
    views: Number(v.views),
    conversion_score: v.conversion_score,
    platform_video_url: v.platform_video_url,
  };
}

export function formatPrice(cents: number, currency: string): string {
  if (currency === 'USD') return formatUsd(cents);
  return `${currency} ${formatMajorUnits(cents, currency)}`;
}

function formatUsd(cents: number): string {
  const usd = fromMinorUnits(cents, 'USD');
  return usd >= 10_000 ? `$${compact(usd)}` : `$${usd.toFixed(2)}`;
}

function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1).replace(/\.0$/, '')}k`;
  return String(Math.round(n));
}
