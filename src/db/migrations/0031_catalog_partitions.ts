import { sql, type Kysely } from 'kysely';

/**
 * `products` becomes a table partitioned by range of product_id (docs/DECISIONS.md, "Large catalogs
 * in partitions of their own"). The existing rows stay where they are: the old table is attached
 * as the partition `products_base` for every id below LARGE_IMPORT_ID_BASE (the seed and every
 * import of fewer new products than the bulk threshold take their ids there). A large import of new
 * products fills a fresh table without indexes, indexes it in bulk and attaches it as a partition
 * of its own, with ids from LARGE_IMPORT_ID_BASE up (src/catalog/feed-import.ts). Partitioned by
 * product_id, not by merchant, so that the primary key stays product_id alone and the tables that
 * reference products by it (proposals, rec_cards, videos, community_evidence) keep their foreign
 * keys, now to the partitioned table.
 */
export const LARGE_IMPORT_ID_BASE = 1_000_000_000;

const INDEXES = [
  'products_pkey',
  'products_category_gmv_idx',
  'products_merchant_external_id_key',
  'products_search_tsv_idx',
  'products_title_trgm_idx',
  'products_tags_gin',
];
const REFERENCING = ['proposals', 'rec_cards', 'videos', 'community_evidence'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table products rename to products_base`.execute(db);
  for (const idx of INDEXES) await sql.raw(`alter index ${idx} rename to ${idx.replace(/^products_/, 'products_base_')}`).execute(db);
  for (const t of REFERENCING) await sql.raw(`alter table ${t} drop constraint ${t}_product_id_fkey`).execute(db);
  await sql`alter table products_base drop constraint products_category_id_fkey, drop constraint products_merchant_id_fkey`.execute(db);
  await sql`drop trigger products_bump_catalog_version on products_base`.execute(db);

  // Same columns (the generated search_tsv included), defaults and checks; the indexes, foreign keys and
  // the catalog-version trigger are the parent's, so every partition has them.
  await sql`create table products (like products_base including defaults including generated including constraints including storage)
    partition by range (product_id)`.execute(db);
  await sql`alter table products add constraint products_pkey primary key (product_id),
    add constraint products_category_id_fkey foreign key (category_id) references categories (category_id),
    add constraint products_merchant_id_fkey foreign key (merchant_id) references merchants (merchant_id)`.execute(db);
  await sql`create index products_category_gmv_idx on products (category_id, gmv_cents desc)`.execute(db);
  await sql`create index products_tags_gin on products using gin (tags)`.execute(db);
  // fastupdate off as before (0008): each partition's index is created or matched with it.
  await sql`create index products_search_tsv_idx on products using gin (search_tsv) with (fastupdate = off)`.execute(db);
  await sql`create index products_title_trgm_idx on products using gin (title gin_trgm_ops) with (fastupdate = off)`.execute(db);
  await sql`create trigger products_bump_catalog_version after insert or update or delete or truncate on products
    for each statement execute function bump_catalog_version()`.execute(db);
  // The existing indexes of products_base match the parent's and are attached, not rebuilt. A feed's
  // own id unique per merchant (0023) can only be a per-partition index now (a unique index of a
  // partitioned table must contain product_id): products_base keeps it, each large partition gets its
  // own, and the importer (the one writer of feed products, under its advisory lock) never inserts a
  // (merchant, external id) it finds in any partition.
  await sql`alter table products attach partition products_base for values from (minvalue) to (${sql.lit(LARGE_IMPORT_ID_BASE)})`.execute(
    db,
  );
  for (const t of REFERENCING)
    await sql
      .raw(`alter table ${t} add constraint ${t}_product_id_fkey foreign key (product_id) references products (product_id)`)
      .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
