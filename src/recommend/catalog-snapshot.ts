import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { assessReadiness } from '../registry/readiness';
import { getMerchant } from '../registry/merchants';
import { ALL_CATEGORIES, type CategoryRef, type PriceQuartiles } from './understand';
import { freshness } from '../refresh-ahead';
import { readCatalogVersion } from '../catalog/version';

/** How far back "recent" creator GMV reaches, counted from the newest video in the catalog. */
export const TRENDING_WINDOW_DAYS = 90;
/** Trending products kept in memory; fill filters them by region and budget. */
const TRENDING_POOL = 2000;

export interface TrendingProduct {
  product_id: number;
  price_cents: number;
  currency: string;
  region_allow: string[];
  category_l1: string | null;
  recent_gmv_cents: number;
}

/** Catalog facts every recommendation reads and that change only with a seed or feed import. */
export interface CatalogSnapshot {
  categories: CategoryRef[];
  /** What "cheap" and "premium" mean per category: its catalog price quartiles. */
  priceQuartiles: PriceQuartiles;
  trending: TrendingProduct[];
  /** The reserved catalog merchant's readiness score (an input of catalog proposals' trust score). */
  catalogMerchantReadiness: number;
}

/**
 * Keeps the snapshot per process, refresh-ahead with `ttlSeconds` (0: read on every call): past the
 * TTL it is still served while checked in the background against the catalog version (migration
 * 0019), and read again only when the catalog changed. Concurrent callers share the work in flight.
 */
export class CatalogSnapshotCache {
  private value: { at: number; version: string; snapshot: CatalogSnapshot } | null = null;
  private pending: Promise<CatalogSnapshot> | null = null;

  constructor(private readonly ttlSeconds: number) {}

  async get(db: Db): Promise<CatalogSnapshot> {
    const f = this.value && this.ttlSeconds > 0 ? freshness(this.value.at, this.ttlSeconds * 1000) : 'expired';
    if (f === 'fresh') return this.value!.snapshot;
    if (f === 'stale') {
      this.refresh(db, this.value!.version).catch(() => undefined); // served stale meanwhile; expiry bounds how long
      return this.value!.snapshot;
    }
    return this.refresh(db);
  }

  /** Reads the version, then the snapshot unless `known` is still the version (a change in between only causes one more read later). */
  private refresh(db: Db, known?: string): Promise<CatalogSnapshot> {
    this.pending ??= (async () => {
      const version = await readCatalogVersion(db);
      const snapshot = version === known && this.value ? this.value.snapshot : await loadSnapshot(db);
      this.value = { at: Date.now(), version, snapshot };
      return snapshot;
    })().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }
}

async function loadSnapshot(db: Db): Promise<CatalogSnapshot> {
  // One after the other: the two aggregates over the whole catalog would otherwise take both cores
  // at once, and every request in flight would wait for them (a reload runs behind live traffic).
  const categories = await db
    .selectFrom('categories')
    .select(['category_id', 'level', 'name', 'parent_id'])
    .orderBy('category_id')
    .execute();
  const priceQuartiles = await loadPriceQuartiles(db);
  const trending = await loadTrending(db);
  const merchant = await getMerchant(db, CATALOG_MERCHANT_ID);
  return { categories, priceQuartiles, trending, catalogMerchantReadiness: assessReadiness(merchant).score };
}

/** USD price quartiles per category, per L1 (over its L2s) and over the whole catalog. */
async function loadPriceQuartiles(db: Db): Promise<PriceQuartiles> {
  const { rows } = await sql<{ category_id: number; p25: number; p75: number }>`
    with priced as (
      select p.price_cents, c.category_id, c.parent_id from products p join categories c on c.category_id = p.category_id where p.currency = 'USD'
    )
    select coalesce(grouping_id, ${ALL_CATEGORIES}) as category_id,
      percentile_disc(0.25) within group (order by price_cents) as p25,
      percentile_disc(0.75) within group (order by price_cents) as p75
    from (
      select category_id as grouping_id, price_cents from priced
      union all select parent_id, price_cents from priced where parent_id is not null
      union all select null, price_cents from priced
    ) g
    group by grouping_id`.execute(db);
  return new Map(rows.map((r) => [r.category_id, { p25: r.p25, p75: r.p75 }]));
}

async function loadTrending(db: Db): Promise<TrendingProduct[]> {
  const { rows } = await sql<TrendingProduct & { recent_gmv_cents: string }>`
    with since as (select max(published_at) - make_interval(days => ${TRENDING_WINDOW_DAYS}) as t from videos)
    select p.product_id, p.price_cents, p.currency, p.region_allow, p.category_l1, sum(v.gmv_cents)::bigint as recent_gmv_cents
    from videos v
    join products p on p.product_id = v.product_id
    cross join since
    where v.published_at >= since.t and p.inventory_qty > 0
    group by p.product_id
    order by recent_gmv_cents desc, p.product_id
    limit ${TRENDING_POOL}`.execute(db);
  return rows.map((r) => ({ ...r, recent_gmv_cents: Number(r.recent_gmv_cents) }));
}
