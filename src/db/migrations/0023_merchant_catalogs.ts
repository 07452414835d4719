import { sql, type Kysely } from 'kysely';
import { CATALOG_MERCHANT_ID } from './0008_recommend';

/**
 * Catalogs belong to merchants. Every product names the merchant that sells it (the seed catalog
 * stays with the gateway's own catalog merchant), keeps the variants its feed lists (option values,
 * SKU, price, compare-at price, stock) and the feed attributes the catalog has no column for
 * (gtin, mpn, condition, shipping, google_product_category, ...). A feed's own ids are unique per
 * merchant, not across the catalog. Every import is recorded as a run with its counts, and a
 * merchant may register a feed URL the gateway refreshes on a schedule.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table products
    add column merchant_id text not null default ${sql.lit(CATALOG_MERCHANT_ID)} references merchants (merchant_id),
    add column variants jsonb not null default '[]'::jsonb,
    add column availability text not null default 'in_stock'
      check (availability in ('in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued')),
    add column feed_attributes jsonb not null default '{}'::jsonb`.execute(db);
  await sql`update products set availability = 'out_of_stock' where inventory_qty <= 0`.execute(db);
  await sql`drop index products_feed_external_id_key`.execute(db);
  await sql`create unique index products_merchant_external_id_key on products (merchant_id, external_id) where source = 'feed'`.execute(db);

  await sql`create table merchant_feeds (
    feed_id text primary key,
    merchant_id text not null references merchants (merchant_id),
    url text not null,
    refresh_interval_s integer not null check (refresh_interval_s between 300 and 604800),
    full_snapshot boolean not null default true,
    etag text,
    last_modified text,
    status text not null default 'active' check (status in ('active', 'paused')),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index merchant_feeds_merchant_idx on merchant_feeds (merchant_id)`.execute(db);

  await sql`create table feed_runs (
    run_id text primary key,
    merchant_id text not null references merchants (merchant_id),
    feed_id text references merchant_feeds (feed_id),
    trigger text not null check (trigger in ('cli', 'api', 'schedule')),
    format text,
    status text not null check (status in ('running', 'succeeded', 'failed', 'not_modified')),
    full_snapshot boolean not null default false,
    rows_read integer not null default 0,
    added integer not null default 0,
    changed integer not null default 0,
    unchanged integer not null default 0,
    removed integer not null default 0,
    rejected integer not null default 0,
    rejections jsonb not null default '[]'::jsonb,
    error text,
    started_at timestamptz not null default now(),
    finished_at timestamptz
  )`.execute(db);
  await sql`create index feed_runs_merchant_idx on feed_runs (merchant_id, started_at desc)`.execute(db);
  await sql`create index feed_runs_feed_idx on feed_runs (feed_id, started_at desc) where feed_id is not null`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
