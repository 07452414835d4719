import { sql, type Kysely } from 'kysely';

/** Catalog: regions, a two-level category taxonomy, products, creators and their product videos. */
export async function up(db: Kysely<any>): Promise<void> {
  const textArray = (c: any) => c.notNull().defaultTo(sql`'{}'`);

  await db.schema
    .createTable('regions')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('category_id', 'integer', (c) => c.primaryKey())
    .addColumn('parent_id', 'integer', (c) => c.references('categories.category_id'))
    .addColumn('level', 'smallint', (c) => c.notNull().check(sql`level in (1, 2)`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addCheckConstraint('categories_parent_by_level', sql`(level = 1) = (parent_id is null)`)
    .execute();
  await db.schema.createIndex('categories_parent_idx').on('categories').column('parent_id').execute();

  await db.schema
    .createTable('products')
    .addColumn('product_id', 'integer', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('brand', 'text')
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('original_price_cents', 'integer')
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .addColumn('discount_label', 'text')
    .addColumn('main_image', 'text')
    .addColumn('gallery', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('category_l1', 'text')
    .addColumn('category_l2', 'text')
    .addColumn('category_id', 'integer', (c) => c.references('categories.category_id'))
    .addColumn('region_allow', sql`text[]`, textArray)
    .addColumn('risk_level', 'text', (c) =>
      c
        .notNull()
        .defaultTo('low')
        .check(sql`risk_level in ('low', 'medium', 'high')`),
    )
    .addColumn('tags', sql`text[]`, textArray)
    .addColumn('inventory_qty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('link', 'text')
    .addColumn('gmv_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('views', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('seed', 'feed')`))
    .addColumn('external_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('products_feed_has_external_id', sql`source <> 'feed' or external_id is not null`)
    .execute();
  // The feed importer upserts on the merchant's own id.
  await db.schema
    .createIndex('products_feed_external_id_key')
    .on('products')
    .column('external_id')
    .unique()
    .where(sql.ref('source'), '=', 'feed')
    .execute();
  await db.schema.createIndex('products_category_gmv_idx').on('products').columns(['category_id', 'gmv_cents desc']).execute();
  await db.schema.createIndex('products_tags_gin').on('products').using('gin').column('tags').execute();

  await db.schema
    .createTable('creators')
    .addColumn('creator_id', 'integer', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('avatar', 'text')
    .addColumn('followers', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('region', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('videos')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.product_id'))
    .addColumn('creator_id', 'integer', (c) => c.notNull().references('creators.creator_id'))
    .addColumn('thumbnail', 'text')
    .addColumn('video_url', 'text')
    .addColumn('platform_video_url', 'text')
    .addColumn('duration_s', 'integer', (c) => c.notNull())
    .addColumn('gmv_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('views', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('conversion_score', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('videos_product_gmv_idx').on('videos').columns(['product_id', 'gmv_cents desc']).execute();
  await db.schema.createIndex('videos_creator_idx').on('videos').column('creator_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
