import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { PRODUCT_COLUMNS, bulkUpsert, lockCatalog } from './bulk';
import { generateCatalog, seedTaskId, type GeneratorOptions } from './generator';

export interface SeedCounts {
  regions: number;
  categories: number;
  products: number;
  creators: number;
  videos: number;
}

/**
 * Writes the generated catalog in one transaction. Upserts rather than delete-and-insert, so rows
 * other tables may reference keep their ids, and re-seeding leaves identical rows; seed rows beyond
 * the requested counts are removed. Feed-imported products are left alone.
 */
export async function seedCatalog(db: Db, opts: GeneratorOptions = {}): Promise<SeedCounts> {
  const catalog = generateCatalog(opts);
  const productCount = catalog.products.length;
  await db.transaction().execute(async (trx) => {
    await lockCatalog(trx);

    const clash = await trx
      .selectFrom('products')
      .select((eb) => eb.fn.min('product_id').as('first'))
      .where('source', '=', 'feed')
      .where('product_id', '<=', productCount)
      .executeTakeFirst();
    if (clash?.first != null) {
      throw new Error(
        `feed-imported products already use ids from ${clash.first}; seed at most ${clash.first - 1} products or remove the feed products first`,
      );
    }

    await bulkUpsert(
      trx,
      'regions',
      [
        ['code', 'text'],
        ['name', 'text'],
      ],
      catalog.regions,
      { target: 'code' },
    );
    await upsertCategories(trx, catalog.categories);
    // Seed stock is a quantity; its availability follows it.
    const products = catalog.products.map((p) => ({ ...p, availability: p.inventory_qty > 0 ? 'in_stock' : 'out_of_stock' }));
    await bulkUpsert(trx, 'products', PRODUCT_COLUMNS, products, { target: 'product_id' });
    await bulkUpsert(
      trx,
      'creators',
      [
        ['creator_id', 'integer'],
        ['username', 'text'],
        ['display_name', 'text'],
        ['avatar', 'text'],
        ['followers', 'integer'],
        ['region', 'text'],
      ],
      catalog.creators,
      { target: 'creator_id' },
    );
    await bulkUpsert(trx, 'videos', VIDEO_COLUMNS, catalog.videos, { target: 'task_id' });

    // A smaller re-seed drops the seed rows it no longer generates.
    const lastTask = seedTaskId(catalog.videos.length);
    await sql`delete from videos where task_id like 'sv\_%' and task_id > ${lastTask}`.execute(trx);
    await sql`delete from videos where product_id in (select product_id from products where source = 'seed' and product_id > ${productCount})
      or creator_id > ${catalog.creators.length}`.execute(trx);
    await trx.deleteFrom('products').where('source', '=', 'seed').where('product_id', '>', productCount).execute();
    await trx.deleteFrom('creators').where('creator_id', '>', catalog.creators.length).execute();
  });
  // Fresh statistics so the first queries after a seed get sensible plans; the vacuum sets hint bits
  // and the visibility map up front, so card facts' rank counts are index-only scans from the start
  // (a cold card read costs a third less) and no first reader pays for marking the new rows.
  await sql`vacuum (analyze) categories, products, creators, videos`.execute(db);
  return {
    regions: catalog.regions.length,
    categories: catalog.categories.length,
    products: productCount,
    creators: catalog.creators.length,
    videos: catalog.videos.length,
  };
}

const VIDEO_COLUMNS = [
  ['task_id', 'text'],
  ['product_id', 'integer'],
  ['creator_id', 'integer'],
  ['thumbnail', 'text'],
  ['video_url', 'text'],
  ['platform_video_url', 'text'],
  ['duration_s', 'integer'],
  ['gmv_cents', 'bigint'],
  ['orders', 'integer'],
  ['views', 'bigint'],
  ['conversion_score', 'double precision'],
  ['published_at', 'timestamptz'],
] as const;

/**
 * Seed categories own ids 1..SEED_CATEGORY_ID_LIMIT. A feed imported before the seed may already
 * have created a category with a seed slug under another id; it is merged into the seed category.
 */
async function upsertCategories(trx: Db, categories: ReturnType<typeof generateCatalog>['categories']): Promise<void> {
  const idBySlug = new Map(categories.map((c) => [c.slug, c.category_id]));
  const clashing = await trx
    .selectFrom('categories')
    .select(['category_id', 'slug'])
    .where('slug', 'in', [...idBySlug.keys()])
    .execute();
  const moved = clashing.filter((c) => idBySlug.get(c.slug) !== c.category_id);
  for (const c of moved)
    await trx
      .updateTable('categories')
      .set({ slug: `${c.slug}~merging-${c.category_id}` })
      .where('category_id', '=', c.category_id)
      .execute();

  const columns = [
    ['category_id', 'integer'],
    ['parent_id', 'integer'],
    ['level', 'smallint'],
    ['name', 'text'],
    ['slug', 'text'],
  ] as const;
  await bulkUpsert(
    trx,
    'categories',
    columns,
    categories.filter((c) => c.level === 1),
    { target: 'category_id' },
  );
  await bulkUpsert(
    trx,
    'categories',
    columns,
    categories.filter((c) => c.level === 2),
    { target: 'category_id' },
  );

  for (const c of moved) {
    const target = idBySlug.get(c.slug)!;
    await trx.updateTable('products').set({ category_id: target }).where('category_id', '=', c.category_id).execute();
    await trx.updateTable('categories').set({ parent_id: target }).where('parent_id', '=', c.category_id).execute();
    await trx.deleteFrom('categories').where('category_id', '=', c.category_id).execute();
  }
}
