import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDb, type Db } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import { createScratchDatabase, type ScratchDatabase } from '../src/dev/scratch-database';
import { buildProductCards, CardFactsCache } from '../src/catalog/cards';
import { FeedFileError, importFeed } from '../src/catalog/feed-import';
import { getProduct, getProducts, productView } from '../src/catalog/products';
import { seedCatalog } from '../src/catalog/seed';
import { ProductCardDocument } from '../src/schemas/catalog';
import { CatalogSnapshotCache } from '../src/recommend/catalog-snapshot';

// The run's shared database holds the catalog other files read; this file writes (re-seeds,
// imports feeds), so it works on a scratch database of its own on the same server.
const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'feeds');
let scratch: ScratchDatabase;
let db: Db;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'catalog-test-'));
  const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
  scratch = await createScratchDatabase({ adminUrl, tmpDir: tmp, prefix: 'cig_catalog' });
  db = createDb(scratch.url);
  await migrateToLatest(db);
  // How long this takes is measured by `npm run bench:seed` (docs/BENCHMARKS.md), not asserted here.
  await seedCatalog(db);
});

afterAll(async () => {
  await db?.destroy();
  await scratch?.drop();
  await rm(tmp, { recursive: true, force: true });
});

/** One hash over a table's rows in key order: equal hashes mean identical rows. */
async function fingerprint(table: string, key: string, where = 'true'): Promise<string> {
  const { rows } = await sql<{
    h: string;
  }>`select md5(coalesce(string_agg(t::text, '|' order by ${sql.ref(key)}), '')) as h from ${sql.table(table)} t where ${sql.raw(where)}`.execute(
    db,
  );
  return rows[0]!.h;
}

async function seedFingerprints() {
  return {
    categories: await fingerprint('categories', 'category_id'),
    products: await fingerprint('products', 'product_id', "source = 'seed'"),
    creators: await fingerprint('creators', 'creator_id'),
    videos: await fingerprint('videos', 'task_id'),
  };
}

describe('seeded catalog (full scale)', () => {
  it('seeds the required volume, with product ids 1..N', async () => {
    const count = async (t: 'products' | 'creators' | 'videos' | 'regions') =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('products')).toBe(20_000);
    expect(await count('creators')).toBeGreaterThanOrEqual(2_000);
    expect(await count('videos')).toBeGreaterThanOrEqual(50_000);
    expect(await count('regions')).toBeGreaterThanOrEqual(15);
    const ids = await db
      .selectFrom('products')
      .select((eb) => [eb.fn.min('product_id').as('min'), eb.fn.max('product_id').as('max'), eb.fn.countAll().as('n')])
      .where('source', '=', 'seed')
      .executeTakeFirstOrThrow();
    expect(ids).toEqual({ min: 1, max: 20_000, n: '20000' });
    const levels = await db
      .selectFrom('categories')
      .select(['level', (eb) => eb.fn.countAll().as('n')])
      .groupBy('level')
      .orderBy('level')
      .execute();
    expect(Number(levels[0]!.n)).toBeGreaterThanOrEqual(12);
    expect(Number(levels[1]!.n)).toBeGreaterThanOrEqual(60);
    // Every L2 category actually has products, linked to its parent's name.
    const { rows } = await sql<{ empty: number; mismatched: number }>`
      select (select count(*)::int from categories c where c.level = 2 and not exists (select 1 from products p where p.category_id = c.category_id)) as empty,
        (select count(*)::int from products p join categories c on c.category_id = p.category_id join categories l1 on l1.category_id = c.parent_id
          where p.category_l2 <> c.name or p.category_l1 <> l1.name) as mismatched`.execute(db);
    expect(rows[0]).toEqual({ empty: 0, mismatched: 0 });
  });

  it('has heavy-tailed GMV, orders and views', async () => {
    const { rows } = await sql<{ top1: number; top10: number; mean: number; median: number; views_top1: number; product_top1: number }>`
      with v as (select gmv_cents::float8 g, views::float8 w, row_number() over (order by gmv_cents desc) r, count(*) over () n from videos),
      vw as (select views::float8 w, row_number() over (order by views desc) r, count(*) over () n from videos),
      p as (select gmv_cents::float8 g, row_number() over (order by gmv_cents desc) r, count(*) over () n from products)
      select (select sum(g) filter (where r <= n / 100) / sum(g) from v) as top1,
        (select sum(g) filter (where r <= n / 10) / sum(g) from v) as top10,
        (select avg(g) from v) as mean,
        (select percentile_cont(0.5) within group (order by g) from v) as median,
        (select sum(w) filter (where r <= n / 100) / sum(w) from vw) as views_top1,
        (select sum(g) filter (where r <= n / 100) / sum(g) from p) as product_top1`.execute(db);
    const t = rows[0]!;
    expect(t.top1).toBeGreaterThan(0.25); // 1% of videos hold over a quarter of all GMV
    expect(t.top10).toBeGreaterThan(0.6);
    expect(t.mean).toBeGreaterThan(3 * t.median);
    expect(t.views_top1).toBeGreaterThan(0.1);
    expect(t.product_top1).toBeGreaterThan(0.25);
    const followers = await sql<{
      max: number;
      median: number;
    }>`select max(followers) as max, percentile_cont(0.5) within group (order by followers) as median from creators`.execute(db);
    expect(followers.rows[0]!.max).toBeGreaterThan(100 * followers.rows[0]!.median);
  });

  it('looks like a real catalog: prices, discounts, regions, risk, stock, images, tags', async () => {
    const { rows } = await sql<Record<string, number>>`
      select count(*) filter (where original_price_cents is not null)::float8 / count(*) as discounted,
        count(*) filter (where original_price_cents is not null and (original_price_cents <= price_cents or discount_label !~ '^-[0-9]+%$'))::int as bad_discounts,
        count(*) filter (where cardinality(region_allow) = 0)::float8 / count(*) as everywhere,
        count(*) filter (where exists (select 1 from unnest(region_allow) r where r not in (select code from regions)))::int as unknown_regions,
        count(*) filter (where risk_level = 'low')::float8 / count(*) as low_risk,
        count(*) filter (where inventory_qty = 0)::int as out_of_stock,
        count(*) filter (where main_image !~ '^https://cdn\\.example-shop\\.test/' or jsonb_array_length(gallery) < 1)::int as bad_images,
        count(*) filter (where exists (select 1 from unnest(tags) t where t <> lower(t)) or cardinality(tags) < 3)::int as bad_tags,
        count(*) filter (where price_cents <= 0)::int as free
      from products where source = 'seed'`.execute(db);
    const s = rows[0]!;
    expect(s.discounted).toBeGreaterThan(0.15);
    expect(s.discounted).toBeLessThan(0.6);
    expect(s.bad_discounts).toBe(0);
    expect(s.everywhere).toBeGreaterThan(0.3);
    expect(s.unknown_regions).toBe(0);
    expect(s.low_risk).toBeGreaterThan(0.7);
    expect(s.out_of_stock).toBeGreaterThan(0);
    expect(s.bad_images).toBe(0);
    expect(s.bad_tags).toBe(0);
    expect(s.free).toBe(0);
    const shoes = await db
      .selectFrom('products')
      .select(['title', 'tags', 'price_cents'])
      .where('category_l2', '=', 'Running Shoes')
      .limit(50)
      .execute();
    expect(shoes.some((p) => /running shoes/i.test(p.title))).toBe(true);
    for (const p of shoes) expect(p.price_cents).toBeGreaterThanOrEqual(3_000);
    expect(shoes[0]!.tags).toEqual(expect.arrayContaining(['footwear', 'running', 'shoes']));
  });
});

describe('feed import', () => {
  it('imports the good CSV rows, reports bad ones by line, and updates on re-import', async () => {
    const before = await db
      .selectFrom('products')
      .select((eb) => eb.fn.max('product_id').as('max'))
      .executeTakeFirstOrThrow();
    const report = await importFeed(db, path.join(FIXTURES, 'mixed.csv'));
    expect(report.imported).toBe(3);
    expect(report.updated).toBe(0);
    expect(report.skipped).toEqual([
      { line: 5, reason: expect.stringMatching(/^price/) },
      { line: 6, reason: 'id is missing' },
      { line: 7, reason: expect.stringMatching(/^region "USA"/) },
      { line: 8, reason: 'expected 10 fields, found 3' },
      { line: 10, reason: expect.stringMatching(/^duplicate id "SKU-1001" \(first on line 2\)/) },
      { line: 11, reason: expect.stringMatching(/^image/) },
    ]);
    const rows = await db
      .selectFrom('products')
      .selectAll()
      .where('source', '=', 'feed')
      .where('external_id', 'like', 'SKU-%')
      .orderBy('product_id')
      .execute();
    expect(rows.map((r) => r.external_id)).toEqual(['SKU-1001', 'SKU-1002', 'SKU-1007']);
    expect(rows.map((r) => r.product_id)).toEqual([before.max! + 1, before.max! + 2, before.max! + 3]);
    const [shoe, pourOver, matcha] = rows;
    // "Footwear > Running Shoes" lands in the seed taxonomy; an unknown L2 is created under the known L1.
    expect(shoe).toMatchObject({
      price_cents: 8999,
      currency: 'USD',
      category_l1: 'Footwear',
      category_l2: 'Running Shoes',
      region_allow: ['CA', 'US'],
      brand: 'Kestrel',
    });
    const seedShoes = await db
      .selectFrom('categories')
      .select('category_id')
      .where('slug', '=', 'footwear--running-shoes')
      .executeTakeFirstOrThrow();
    expect(shoe!.category_id).toBe(seedShoes.category_id);
    expect(pourOver!.description).toBe('Dripper, carafe and two cups.\nGift boxed.');
    expect(pourOver!.category_id).toBeGreaterThan(1000);
    expect(matcha).toMatchObject({ price_cents: 2400, currency: 'JPY' });
    expect(productView(matcha!).price_usd).toBeNull();

    const again = await importFeed(db, path.join(FIXTURES, 'mixed.csv'));
    expect(again).toMatchObject({ imported: 0, updated: 3 });
    const n = await db
      .selectFrom('products')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('external_id', 'like', 'SKU-%')
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(3);
  });

  it('reads JSON Lines with prices, sale prices and availability', async () => {
    const report = await importFeed(db, path.join(FIXTURES, 'mixed.jsonl'));
    expect(report).toMatchObject({ imported: 3, updated: 0 });
    expect(report.skipped.map((s) => s.line)).toEqual([3, 4, 6, 7]);
    const j1 = await db.selectFrom('products').selectAll().where('external_id', '=', 'J-1').executeTakeFirstOrThrow();
    expect(j1).toMatchObject({
      price_cents: 4499,
      original_price_cents: 5999,
      discount_label: '-25%',
      category_l2: 'Building Sets',
      region_allow: ['GB', 'US'],
    });
    const j2 = await db.selectFrom('products').selectAll().where('external_id', '=', 'J-2').executeTakeFirstOrThrow();
    expect(j2).toMatchObject({ currency: 'EUR', price_cents: 3900, inventory_qty: 0 });
  });

  it('leaves nothing half-imported when the file fails as a whole', async () => {
    const header = 'id,title,price,category\n';
    const good = Array.from({ length: 1_200 }, (_, i) => `BULK-${i},Bulk Item ${i},${(i % 90) + 10}.00,Toys & Games > Plush Toys`).join(
      '\n',
    );
    const broken = path.join(tmp, 'broken.csv');
    // 1,200 good rows (more than one write batch) and then a quote that never closes.
    await writeFile(broken, `${header}${good}\nBULK-X,"Unterminated title,5.00,Toys & Games\n`);
    await expect(importFeed(db, broken)).rejects.toThrow(/unterminated quoted field starting on line 1202/);
    const left = await db
      .selectFrom('products')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('external_id', 'like', 'BULK-%')
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);

    const noPrice = path.join(tmp, 'no-price.csv');
    await writeFile(noPrice, 'id,title\nA,B\n');
    await expect(importFeed(db, noPrice)).rejects.toThrow(FeedFileError);
    await expect(importFeed(db, path.join(tmp, 'missing.csv'))).rejects.toThrow();

    // Sanity: the same rows without the broken tail import fine.
    const fine = path.join(tmp, 'fine.csv');
    await writeFile(fine, `${header}${good}\n`);
    expect(await importFeed(db, fine)).toMatchObject({ imported: 1_200, updated: 0, skipped: [] });
  });

  it('re-seeding leaves identical seed rows and keeps feed products', async () => {
    const before = await seedFingerprints();
    const feedBefore = await fingerprint('products', 'product_id', "source = 'feed'");
    await seedCatalog(db);
    expect(await seedFingerprints()).toEqual(before);
    expect(await fingerprint('products', 'product_id', "source = 'feed'")).toBe(feedBefore);
    // Seed ids may not run into feed ids: refused, and nothing changes.
    await expect(seedCatalog(db, { products: 20_010 })).rejects.toThrow(/feed-imported products already use ids/);
    expect(await seedFingerprints()).toEqual(before);
  });
});

describe('products and cards', () => {
  it('reads products one at a time or as a map', async () => {
    expect((await getProduct(db, 1))?.product_id).toBe(1);
    expect(await getProduct(db, 9_999_999)).toBeUndefined();
    const map = await getProducts(db, [3, 1, 3, 9_999_999]);
    expect([...map.keys()].sort()).toEqual([1, 3]);
    const view = productView(map.get(1)!);
    expect(Object.keys(view).sort()).toEqual(
      [
        'brand',
        'category_l1',
        'category_l2',
        'discount_label',
        'external_id',
        'gallery',
        'id',
        'main_image',
        'original_price_usd',
        'price_usd',
        'title',
        'price',
        'availability',
        'seller',
        'variants',
      ].sort(),
    );
    expect(view).toMatchObject({
      id: '1',
      price_usd: map.get(1)!.price_cents / 100,
      price: { amount: map.get(1)!.price_cents / 100, currency: 'USD' },
      seller: { merchant_id: 'gateway-catalog' },
      variants: [],
    });
  });

  it('caches of catalog facts refresh ahead against the catalog version: past the TTL they are served while checked in the background, read again only when the catalog changed, and before use once expired', async () => {
    let queries = 0;
    const counting = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scratch.url, max: 4 }) }),
      log: (e) => void (e.level === 'query' && queries++),
    });
    const build = () => buildProductCards(counting, [1], opts);
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: t0 });
    const cache = new CardFactsCache(counting, 10);
    const opts = { publicBaseUrl: 'https://gw.example.test/', recIdFor: (id: number) => `rec_${id}`, now: new Date(t0), cache };
    try {
      const [card] = await build();
      expect(queries).toBe(3); // the catalog version, then the facts (product, videos)
      vi.setSystemTime(t0 + 15_000); // stale: served as is, checked behind the caller's back
      expect(await build()).toEqual([card]);
      await vi.waitFor(() => expect(queries).toBe(4)); // the version alone: unchanged, so kept
      vi.setSystemTime(t0 + 20_000); // fresh again since the check
      expect(await build()).toEqual([card]);
      expect(queries).toBe(4);

      await sql`update products set title = title || ' (renamed)' where product_id = 1`.execute(db);
      vi.setSystemTime(t0 + 30_000); // stale again: the old facts still, while the check finds the change
      expect(await build()).toEqual([card]);
      await vi.waitFor(() => expect(queries).toBe(7));
      const [renamed] = await build();
      expect(renamed!.product.title).toBe(`${card!.product.title} (renamed)`);
      expect(queries).toBe(7);
      vi.setSystemTime(t0 + 60_000); // past twice the TTL since the check: read before use
      expect(await build()).toEqual([renamed]);
      expect(queries).toBe(10);

      const snapshots = new CatalogSnapshotCache(10);
      const first = await snapshots.get(counting);
      const perLoad = queries - 10; // the version and the snapshot's reads
      expect(perLoad).toBeGreaterThan(1);
      vi.setSystemTime(t0 + 75_000);
      expect(await snapshots.get(counting)).toBe(first); // stale, served at once
      await vi.waitFor(() => expect(queries).toBe(10 + perLoad + 1)); // unchanged: kept
      expect(await snapshots.get(counting)).toBe(first);
      await sql`update products set title = ${card!.product.title} where product_id = 1`.execute(db);
      vi.setSystemTime(t0 + 90_000);
      expect(await snapshots.get(counting)).toBe(first);
      await vi.waitFor(() => expect(queries).toBe(10 + 2 * perLoad + 1)); // changed: read again
      expect(await snapshots.get(counting)).not.toBe(first);
    } finally {
      vi.useRealTimers();
      await sql`update products set title = ${(await getProduct(db, 1))!.title.replace(/ \(renamed\)$/, '')} where product_id = 1`.execute(
        db,
      );
      await counting.destroy();
    }
  });

  it('builds valid Product Card Documents in request order, with top videos in one query', async () => {
    const top = await db.selectFrom('products').select('product_id').orderBy('gmv_cents', 'desc').limit(10).execute();
    const ids = [9_999_999, ...top.map((t) => t.product_id)];
    const feed = await db.selectFrom('products').select('product_id').where('external_id', '=', 'SKU-1002').executeTakeFirstOrThrow();
    ids.push(feed.product_id);

    // Count statements through a logging Kysely on the same database.
    let queries = 0;
    const counting = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scratch.url, max: 4 }) }),
      log: (e) => void (e.level === 'query' && queries++),
    });
    const now = new Date('2025-01-02T03:04:05Z');
    const opts = { publicBaseUrl: 'https://gw.example.test/', channel: 'chat', recIdFor: (id: number) => `rec_${id}`, now };
    const cards = await buildProductCards(counting, ids, opts);
    expect(queries).toBe(2);
    const again = await buildProductCards(counting, ids, opts);
    expect(queries).toBe(4);

    // With a facts cache, known products cost no query; only the missing ones are read (after the
    // catalog version they are read at).
    const cache = new CardFactsCache(db, 60);
    expect(await buildProductCards(counting, ids.slice(0, 5), { ...opts, cache })).toEqual(cards.slice(0, 4));
    expect(queries).toBe(7);
    expect(await buildProductCards(counting, ids.slice(1, 5), { ...opts, cache })).toEqual(cards.slice(0, 4));
    expect(queries).toBe(7);
    expect(await buildProductCards(counting, ids, { ...opts, cache })).toEqual(cards);
    expect(queries).toBe(10);
    await counting.destroy();

    expect(again).toEqual(cards);
    expect(cards.map((c) => c.product.id)).toEqual(ids.slice(1).map(String));
    for (const c of cards) ProductCardDocument.parse(c);
    const first = cards[0]!;
    expect(first).toMatchObject({ rec_id: `rec_${top[0]!.product_id}`, channel: 'chat', generated_at: now.toISOString() });
    expect(first.cta.primary.url).toBe(`https://gw.example.test/r/rec_${top[0]!.product_id}`);
    expect(first.videos).toHaveLength(3);
    const gmv = first.videos.map((v) => v.gmv_usd);
    expect(gmv).toEqual([...gmv].sort((a, b) => b - a));
    const best = await db
      .selectFrom('videos')
      .select('task_id')
      .where('product_id', '=', top[0]!.product_id)
      .orderBy('gmv_cents', 'desc')
      .orderBy('task_id')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(first.videos[0]!.task_id).toBe(best.task_id);
    expect(first.selection_story.headline).toMatch(/by creator GMV/);
    expect(first.hero_pitch.key_benefits.length).toBeGreaterThanOrEqual(1);

    const feedCard = cards.at(-1)!;
    expect(feedCard.videos).toEqual([]);
    expect(feedCard.cta.secondary.url).toBe('https://merchant.test/p/1002');
    expect(feedCard.compliance).toEqual({ region_allow: [], risk_level: 'low' });
    expect(await buildProductCards(db, [], opts)).toEqual([]);
  });
});
