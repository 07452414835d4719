import type { ColumnType } from 'kysely';
import type { Selectable } from 'kysely';
import type { Defaulted, Json, Timestamp } from './columns';

/** Catalog tables (issue part 1). Money is integer minor units + currency; bigint columns read back as strings. */

export type RiskLevel = 'low' | 'medium' | 'high';
export type ProductSource = 'seed' | 'feed';

export interface CategoriesTable {
  category_id: number;
  parent_id: number | null;
  level: 1 | 2;
  name: string;
  slug: string;
}

export interface ProductsTable {
  /** Seed products are 1..N in seed order; feed products are numbered after the max id at import time. */
  product_id: number;
  title: string;
  description: string;
  brand: string | null;
  price_cents: number;
  /** Set only when the product is discounted (always > price_cents). */
  original_price_cents: number | null;
  currency: Defaulted<string>;
  discount_label: string | null;
  main_image: string | null;
  /** All images, main image first. */
  gallery: Json<string[]>;
  category_l1: string | null;
  category_l2: string | null;
  category_id: number | null;
  /** ISO 3166-1 alpha-2 codes; empty means sold everywhere. */
  region_allow: Defaulted<string[]>;
  risk_level: Defaulted<RiskLevel>;
  /** Lower-case search keywords: title words, brand, category words. */
  tags: Defaulted<string[]>;
  inventory_qty: Defaulted<number>;
  link: string | null;
  /** USD cents for seed data (bigint → string). */
  gmv_cents: Defaulted<string>;
  orders: Defaulted<number>;
  views: Defaulted<string>;
  source: ProductSource;
  external_id: string | null;
  created_at: Timestamp;
  /** The merchant selling the product (the seed catalog: the gateway's catalog merchant). */
  merchant_id: Defaulted<string>;
  /** The purchasable variants a feed lists (empty: the product is the only offer). */
  variants: Json<ProductVariant[]>;
  availability: Defaulted<Availability>;
  /** Feed attributes without a column of their own: gtin, mpn, condition, shipping, google_product_category, ... */
  feed_attributes: Json<Record<string, unknown>>;
}

export type Availability = 'in_stock' | 'out_of_stock' | 'preorder' | 'backorder' | 'discontinued';

/** One purchasable variant of a feed product; money in minor units of the product currency. */
export interface ProductVariant {
  /** The feed's variant id (SKU, Merchant Center id, ACP variant id). */
  id: string;
  sku: string | null;
  title: string | null;
  options: Array<{ name: string; value: string }>;
  price_cents: number;
  /** The compare-at (list) price when the variant is discounted. */
  compare_at_price_cents: number | null;
  availability: Availability;
  inventory_qty: number;
  image: string | null;
  link: string | null;
  gtin: string | null;
  mpn: string | null;
}

export interface MerchantFeedsTable {
  feed_id: string;
  merchant_id: string;
  url: string;
  refresh_interval_s: number;
  full_snapshot: Defaulted<boolean>;
  etag: string | null;
  last_modified: string | null;
  default_currency: string | null;
  store_url: string | null;
  status: Defaulted<'active' | 'paused' | 'deleted'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FeedRunsTable {
  run_id: string;
  merchant_id: string;
  feed_id: string | null;
  trigger: 'cli' | 'api' | 'schedule';
  format: string | null;
  status: 'running' | 'succeeded' | 'failed' | 'not_modified';
  full_snapshot: Defaulted<boolean>;
  rows_read: Defaulted<number>;
  added: Defaulted<number>;
  changed: Defaulted<number>;
  unchanged: Defaulted<number>;
  removed: Defaulted<number>;
  rejected: Defaulted<number>;
  rejections: Json<Array<{ line: number; reason: string }>>;
  error: string | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  /** bigint: reads back as a string. */
  bytes_read: ColumnType<string, number | undefined, number>;
  timings_ms: Json<Record<string, number>>;
  workflow_id: string | null;
}

export interface CreatorsTable {
  creator_id: number;
  username: string;
  display_name: string;
  avatar: string | null;
  followers: number;
  region: string;
}

export interface VideosTable {
  task_id: string;
  product_id: number;
  creator_id: number;
  thumbnail: string | null;
  video_url: string | null;
  platform_video_url: string | null;
  duration_s: number;
  /** Always USD cents (bigint → string). */
  gmv_cents: string;
  orders: number;
  views: string;
  /** 0..1: orders per view relative to a strong 10% benchmark, capped at 1. */
  conversion_score: number;
  published_at: Timestamp;
}

export interface RegionsTable {
  code: string;
  name: string;
}

/** A product's sentence embedding (migration 0034, src/catalog/embeddings.ts). */
export interface ProductEmbeddingsTable {
  product_id: number;
  model_id: string;
  /** sha256 of the embedded text, first 16 bytes. */
  text_hash: Buffer;
  /** The unit vector, little-endian float32. */
  vec: Buffer;
  /** bigint → string. */
  seq: ColumnType<string, never, never>;
  embedded_at: Defaulted<Date>;
}

/** The catalog version the embedding flow's last finished walk reached, per model (migration 0034). */
export interface CatalogEmbeddingStateTable {
  model_id: string;
  catalog_version: string;
  finished_at: Defaulted<Date>;
}

export interface CatalogTables {
  product_embeddings: ProductEmbeddingsTable;
  catalog_embedding_state: CatalogEmbeddingStateTable;
  categories: CategoriesTable;
  products: ProductsTable;
  creators: CreatorsTable;
  videos: VideosTable;
  regions: RegionsTable;
  merchant_feeds: MerchantFeedsTable;
  feed_runs: FeedRunsTable;
}

export type CategoryRow = Selectable<CategoriesTable>;
export type ProductRow = Selectable<ProductsTable>;
export type CreatorRow = Selectable<CreatorsTable>;
export type VideoRow = Selectable<VideosTable>;
