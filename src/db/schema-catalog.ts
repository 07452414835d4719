import type { Selectable } from 'kysely';
import type { Defaulted, Json, Timestamp } from './schema';

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

export interface CatalogTables {
  categories: CategoriesTable;
  products: ProductsTable;
  creators: CreatorsTable;
  videos: VideosTable;
  regions: RegionsTable;
}

export type CategoryRow = Selectable<CategoriesTable>;
export type ProductRow = Selectable<ProductsTable>;
export type CreatorRow = Selectable<CreatorsTable>;
export type VideoRow = Selectable<VideosTable>;
