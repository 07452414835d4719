import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { poolOf, type Db } from '../db/connect';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { LARGE_IMPORT_ID_BASE } from '../db/migrations/0031_catalog_partitions';
import type { Availability, ProductVariant } from '../db/schema-catalog';
import { newId } from '../ids';
import { minorUnitDigits, parseMajorUnits } from '../money';
import { CountingSource, FeedFileError, fileSource, openFeed, type FeedFormat } from './feed-format';
import { BULK_PENDING_LIST, BulkIndexWork } from './bulk-index';
import { canonicalRecords } from './feed-mappings';
import { SEED_CATEGORY_ID_LIMIT, categorySlug, searchTags, slugify } from './taxonomy';

/**
 * Loads a merchant's product feed into the catalog (docs/CATALOG.md). The format is detected from
 * the content and mapped to one flat record per purchasable row; bad rows are reported by line and
 * skipped. Rows stream through COPY into a scratch table of the import's transaction, and one set
 * of statements folds them into products: rows sharing a product key (Shopify Handle,
 * item_group_id, ACP product id) become one product with its variants, a product the merchant
 * already has is updated only when something changed, a new one gets the next product id. With
 * `fullSnapshot`, the merchant's feed products missing from the file become unavailable
 * (discontinued, stock 0) and are never deleted, so old cards and clicks still resolve.
 * Everything happens in ONE transaction: a file that fails as a whole leaves the catalog as it was.
 * Memory stays bounded whatever the file size: rows are parsed, written and forgotten.
 */

export { FeedFileError };

export interface FeedReport {
  run_id: string;
  merchant_id: string;
  format: FeedFormat | null;
  rows_read: number;
  /** New products. */
  imported: number;
  /** Products the merchant already had (changed + unchanged). */
  updated: number;
  changed: number;
  unchanged: number;
  /** Products of a full snapshot missing from it, now unavailable. */
  removed: number;
  rejected: number;
  /** The rejected rows (the first MAX_REPORTED_REJECTIONS of them). */
  skipped: Array<{ line: number; reason: string }>;
  /** Milliseconds per phase (parse+COPY, dedupe, group, update, insert, remove, commit): where an import spends its time. */
  timings_ms: Record<string, number>;
  /**
   * The merchant's ids of the feed's first `mapIds` products beside the gateway's, in feed order
   * (empty unless asked for; all of a merchant's products: listMerchantProducts).
   */
  products: ImportedProductIds[];
}

/** One product of an import by both of its ids: the merchant's own (and its variants') and the gateway's. */
export interface ImportedProductIds {
  external_id: string;
  product_id: number;
  /** The feed ids of the product's variants (empty when the product is its only offer). */
  variant_ids: string[];
}

export interface ImportOptions {
  /** The registered merchant whose catalog this is; default the gateway's catalog merchant. */
  merchantId?: string;
  fullSnapshot?: boolean;
  defaultCurrency?: string;
  storeUrl?: string | null;
  trigger?: 'cli' | 'api' | 'schedule';
  feedId?: string | null;
  /** The run record's id when the caller chose it (a scheduled refresh: a retried attempt reuses its run). */
  runId?: string;
  workflowId?: string | null;
  /** New products from which an import builds a partition of its own (default PARTITION_MIN_PRODUCTS; tests lower it). */
  partitionMinProducts?: number;
  /** Called about every PROGRESS_ROWS rows with the rows and bytes read so far; `final` once all are read. */
  onProgress?: (p: { rows: number; bytes: number; final?: boolean }) => void;
  /** How many of the feed's products (the first, in feed order) the report maps to their gateway ids; default none. */
  mapIds?: number;
  /** Timings measured before the import (a scheduled refresh's fetch), recorded with the run's own. */
  timingsMs?: Record<string, number>;
  /**
   * Runs once the import is committed, before the run is recorded as succeeded: whoever reads a
   * finished run (the merchant's runs list, the next refresh) finds what goes with it already written.
   */
  beforeFinish?: () => Promise<void>;
}

/** Header aliases, lower-case (Google Merchant Center and ACP names are accepted too). */
const FIELDS = {
  id: ['id', 'external_id', 'sku', 'item_id', 'offer_id'],
  group: ['item_group_id', 'group_id'],
  title: ['title', 'name'],
  description: ['description'],
  brand: ['brand'],
  price: ['price'],
  sale_price: ['sale_price'],
  compare_at: ['compare_at_price', 'list_price'],
  currency: ['currency'],
  category: ['category', 'category_path', 'product_category', 'product_type', 'google_product_category'],
  image: ['image', 'image_link', 'image_url', 'main_image'],
  gallery: ['additional_image_link', 'additional_images', 'gallery'],
  link: ['link', 'url', 'product_url'],
  region: ['region', 'regions', 'region_allow', 'country', 'countries'],
  quantity: ['inventory', 'inventory_qty', 'quantity', 'inventory_quantity'],
  availability: ['availability'],
} as const;

const REQUIRED: Record<string, readonly string[]> = { id: FIELDS.id, title: FIELDS.title, price: FIELDS.price };
/** Attributes kept on the product as they are (feed_attributes). */
const KEPT_ATTRIBUTES = [
  'gtin',
  'mpn',
  'condition',
  'shipping',
  'shipping_weight',
  'google_product_category',
  'product_type',
  'seller_name',
  'seller_url',
  'age_group',
  'gender',
  'material',
  'pattern',
  'color',
  'size',
  'availability_date',
  'expiration_date',
] as const;
/** Merchant Center attributes that tell an item_group_id's variants apart. */
const VARIANT_ATTRIBUTES = ['color', 'size', 'material', 'pattern', 'age_group', 'gender', 'size_type'] as const;

/** Stock a feed does not state: treated as available. */
const DEFAULT_INVENTORY = 100;
const MAX_MINOR_UNITS = 1_000_000_000;
const MAX_REPORTED_REJECTIONS = 10_000;
const PROGRESS_ROWS = 10_000;
/**
 * An import of at least this many new products builds them into a partition of products of its own
 * (migration 0031): below it, inserting into products_base with its live indexes costs less than
 * the partition's DDL, and every partition is one more scan in each search.
 */
export const PARTITION_MIN_PRODUCTS = 100_000;
/** For the indexes a partition's attach builds (the default 64 MB sorts a large GIN build in many passes). */
const PARTITION_MAINTENANCE_WORK_MEM = '256MB';

export interface FeedItem {
  line: number;
  product_key: string;
  variant_key: string;
  title: string;
  description: string;
  brand: string | null;
  price_cents: number;
  original_price_cents: number | null;
  currency: string;
  discount_label: string | null;
  main_image: string | null;
  gallery: string[];
  category_path: string[];
  region_allow: string[];
  inventory_qty: number;
  availability: Availability;
  link: string | null;
  keywords: string[];
  attributes: Record<string, unknown>;
  variant: ProductVariant;
  has_options: boolean;
}

class RowError extends Error {}

/** `npm run import-feed`, tests and the bench: a feed file. */
export async function importFeed(db: Db, filePath: string, opts: ImportOptions = {}): Promise<FeedReport> {
  return importFeedSource(db, fileSource(filePath), opts);
}

/** A feed from any byte source (a file, an HTTP body, a string). */
export async function importFeedSource(db: Db, source: AsyncIterable<Buffer>, opts: ImportOptions = {}): Promise<FeedReport> {
  const merchantId = opts.merchantId ?? CATALOG_MERCHANT_ID;
  const merchant = await db
    .selectFrom('merchants')
    .select(['merchant_id', 'status'])
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!merchant)
    throw new FeedFileError(`no registered merchant ${JSON.stringify(merchantId)}: register it first (POST /v1/merchant/register)`);
  const pool = poolOf(db);
  if (!pool) throw new Error('importFeed needs a Db made by createDb (it streams rows with COPY)');
  const report: FeedReport = {
    run_id: opts.runId ?? newId('frun'),
    merchant_id: merchantId,
    format: null,
    rows_read: 0,
    imported: 0,
    updated: 0,
    changed: 0,
    unchanged: 0,
    removed: 0,
    rejected: 0,
    skipped: [],
    timings_ms: { ...opts.timingsMs },
    products: [],
  };
  await db
    .insertInto('feed_runs')
    .values({
      run_id: report.run_id,
      merchant_id: merchantId,
      feed_id: opts.feedId ?? null,
      trigger: opts.trigger ?? 'cli',
      status: 'running',
      full_snapshot: opts.fullSnapshot ?? false,
      workflow_id: opts.workflowId ?? null,
    })
    // A retried attempt of the same run (or a scheduled run that recorded its fetch) continues its record.
    .onConflict((oc) => oc.column('run_id').doUpdateSet({ status: 'running', error: null, finished_at: null }))
    .execute();
  const counting = new CountingSource(source);
  const progress = runProgress(db, report.run_id, opts.onProgress);
  const client = await pool.connect();
  const indexWork = new BulkIndexWork(pool);
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('catalog-writer'))`);
    // The set statements hash every staged row's keys (dedupe, group, anti-join): with the 4 MB
    // default a large feed's hash tables spill to disk in many batches (a million keys need about
    // 100 MB). Local to this transaction, which runs one at a time (the advisory lock).
    await client.query(`set local work_mem = '256MB'`);
    const partition = await runImport(client, counting, merchantId, { ...opts, onProgress: progress }, report, indexWork);
    let t = Date.now();
    await client.query('commit');
    report.timings_ms.commit = Date.now() - t;
    if (partition) {
      // Statistics for the first searches of a new partition (autovacuum comes by later), after
      // commit so that the attach's locks are not held for it.
      t = Date.now();
      await client.query(`analyze ${partition}`).catch(() => undefined); // the import stands without it
      report.timings_ms.analyze = Date.now() - t;
    }
    t = Date.now();
    await indexWork.finish();
    report.timings_ms.index_merge = Date.now() - t;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    await indexWork.finish().catch(() => undefined);
    await finishRun(db, report, counting.bytes, 'failed', (err as Error).message);
    throw err;
  } finally {
    client.release();
  }
  await opts.beforeFinish?.();
  await finishRun(db, report, counting.bytes, 'succeeded', null);
  return report;
}

/** Once a second at most: the caller's progress callback, and the counts so far on the run record (GET …/runs shows a running import). */
function runProgress(db: Db, runId: string, onProgress: ImportOptions['onProgress']): NonNullable<ImportOptions['onProgress']> {
  let last = 0;
  let writing: Promise<unknown> = Promise.resolve();
  return (p) => {
    onProgress?.(p);
    const now = Date.now();
    if (now - last < 1000 && !p.final) return;
    last = now;
    // Outside the import's transaction, so visible while it runs; a lost update is only a stale count.
    writing = writing
      .then(() =>
        db
          .updateTable('feed_runs')
          .set({ rows_read: p.rows, bytes_read: p.bytes })
          .where('run_id', '=', runId)
          .where('status', '=', 'running')
          .execute(),
      )
      .catch(() => undefined);
  };
}

async function finishRun(db: Db, r: FeedReport, bytes: number, status: 'succeeded' | 'failed', error: string | null): Promise<void> {
  await db
    .updateTable('feed_runs')
    .set({
      status,
      bytes_read: bytes,
      timings_ms: JSON.stringify(r.timings_ms),
      format: r.format,
      rows_read: r.rows_read,
      added: r.imported,
      changed: r.changed,
      unchanged: r.unchanged,
      removed: r.removed,
      rejected: r.rejected,
      rejections: JSON.stringify(r.skipped.slice(0, 1000)),
      error,
      finished_at: new Date(),
    })
    .where('run_id', '=', r.run_id)
    .execute();
}

const STAGE_COLUMNS = [
  'seq',
  'line',
  'product_key',
  'variant_key',
  'title',
  'description',
  'brand',
  'price_cents',
  'original_price_cents',
  'currency',
  'discount_label',
  'main_image',
  'gallery',
  'category_l1',
  'category_l2',
  'category_id',
  'region_allow',
  'tags',
  'inventory_qty',
  'availability',
  'link',
  'feed_attributes',
  'variant',
  'has_options',
] as const;

async function runImport(
  client: pg.PoolClient,
  source: CountingSource,
  merchantId: string,
  opts: ImportOptions,
  report: FeedReport,
  indexWork: BulkIndexWork,
): Promise<string | null> {
  const feed = await openFeed(source);
  report.format = feed.format;
  if (feed.header && feed.format !== 'shopify_csv') {
    const missing = Object.entries(REQUIRED)
      .filter(([, aliases]) => !aliases.some((a) => feed.header!.includes(a)))
      .map(([name]) => name);
    if (missing.length) throw new FeedFileError(`the header row (line 1) lacks required column(s): ${missing.join(', ')}`);
  }
  const categories = await Categories.load(client);
  await client.query(`create temp table feed_stage (
    seq integer, line integer, product_key text, variant_key text, title text, description text, brand text, price_cents integer,
    original_price_cents integer, currency text, discount_label text, main_image text, gallery jsonb, category_l1 text, category_l2 text,
    category_id integer, region_allow text[], tags text[], inventory_qty integer, availability text, link text, feed_attributes jsonb,
    variant json, has_options boolean) on commit drop`);

  const reject = (line: number, reason: string) => {
    report.rejected++;
    if (report.skipped.length < MAX_REPORTED_REJECTIONS) report.skipped.push({ line, reason });
  };
  const mapping = { defaultCurrency: (opts.defaultCurrency ?? 'USD').toUpperCase(), storeUrl: opts.storeUrl ?? null };
  let seq = 0;
  let lastProgress = 0;
  async function* copyLines(): AsyncGenerator<string> {
    let buffer = '';
    for await (const record of canonicalRecords(feed.format, feed.records, mapping)) {
      report.rows_read++;
      if (opts.onProgress && report.rows_read - lastProgress >= PROGRESS_ROWS) {
        lastProgress = report.rows_read;
        opts.onProgress({ rows: report.rows_read, bytes: source.bytes });
      }
      if ('error' in record) {
        reject(record.line, record.error);
        continue;
      }
      let item: FeedItem;
      try {
        item = parseFeedRow(record.values, record.line);
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        reject(record.line, err.message);
        continue;
      }
      const [l1, l2] = item.category_path;
      const c1 = l1 ? categories.resolve(l1, null) : null;
      const c2 = l1 && l2 ? categories.resolve(l2, c1!) : null;
      const tags = [...new Set([...searchTags(item.title, item.brand, c1?.name, c2?.name), ...searchTags(...item.keywords)])];
      buffer += copyRow([
        ++seq,
        item.line,
        item.product_key,
        item.variant_key,
        item.title,
        item.description,
        item.brand,
        item.price_cents,
        item.original_price_cents,
        item.currency,
        item.discount_label,
        item.main_image,
        item.gallery,
        c1?.name ?? null,
        c2?.name ?? null,
        (c2 ?? c1)?.id ?? null,
        new PgTextArray(item.region_allow),
        new PgTextArray(tags),
        item.inventory_qty,
        item.availability,
        item.link,
        item.attributes,
        item.variant,
        item.has_options,
      ]);
      if (buffer.length >= 256 * 1024) {
        yield buffer;
        buffer = '';
      }
    }
    if (buffer) yield buffer;
  }
  const t = Date.now();
  const copy = client.query(copyFrom(`copy feed_stage (${STAGE_COLUMNS.join(', ')}) from stdin`));
  await pipeline(Readable.from(copyLines()), copy);
  opts.onProgress?.({ rows: report.rows_read, bytes: source.bytes, final: true });
  report.timings_ms.parse_copy = Date.now() - t;
  await categories.insertNew(client);
  return merge(client, merchantId, opts, report, reject, indexWork);
}

/** A text[] column of the staging table, written as an array literal (staged as jsonb, each row cost a jsonb parse and, per product, a subquery unpacking it). */
class PgTextArray {
  constructor(readonly items: string[]) {}
  toString(): string {
    let out = '{';
    for (let i = 0; i < this.items.length; i++) {
      if (i) out += ',';
      out += `"${this.items[i]!.replace(/[\\"]/g, '\\$&')}"`;
    }
    return `${out}}`;
  }
}

/** COPY text format: tab-separated, \N for null, backslash escapes; arrays and objects as JSON, text[] as array literals. */
function copyRow(values: unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i) line += '\t';
    if (v === null || v === undefined) line += '\\N';
    else if (typeof v === 'number') line += String(v);
    else if (typeof v === 'boolean') line += v ? 't' : 'f';
    else if (v instanceof PgTextArray) line += escapeCopy(v.toString());
    else line += escapeCopy(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return `${line}\n`;
}

function escapeCopy(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/** The staged rows into products, as set operations (docs/CATALOG.md, "How an import is applied"). */
async function merge(
  client: pg.PoolClient,
  merchantId: string,
  opts: ImportOptions,
  report: FeedReport,
  reject: (line: number, reason: string) => void,
  indexWork: BulkIndexWork,
): Promise<string | null> {
  const full = opts.fullSnapshot ?? false;
  let attach: { part: string; first: number; end: number } | null = null;
  let t = Date.now();
  const lap = (name: string) => {
    report.timings_ms[name] = Date.now() - t;
    t = Date.now();
  };
  // The same variant id twice: the first row wins, the others are rejected with their lines. The
  // ids seen twice are found by hashing (no sort of the staged rows); only their rows are windowed.
  const dups = await client.query<{ line: number; variant_key: string; first_line: number }>(`
    with twice as (select variant_key from feed_stage group by variant_key having count(*) > 1),
    d as (select seq, line, variant_key, first_value(line) over w as first_line, row_number() over w as n
          from feed_stage where variant_key in (select variant_key from twice) window w as (partition by variant_key order by seq))
    delete from feed_stage s using d where s.seq = d.seq and d.n > 1
    returning d.line, d.variant_key, d.first_line`);
  for (const d of dups.rows.sort((a, b) => a.line - b.line))
    reject(d.line, `duplicate id ${JSON.stringify(d.variant_key)} (first on line ${d.first_line})`);
  if (report.skipped.length > 1) report.skipped.sort((a, b) => a.line - b.line);

  lap('dedupe');
  await client.query('analyze feed_stage');
  // One row per product: the fields of its first row, its variants in file order, stock summed.
  // Most products are one row: only the keys with several rows are aggregated (found by hashing,
  // no sort of the staged rows); a one-row product is its row. feed_products is a view, not a
  // second copy of every staged row: each statement below reads it once, a scan of the staged rows
  // and a hash join against the few grouped keys.
  await client.query(`create temp table feed_groups on commit drop as
    select product_key, min(seq) as first_seq, jsonb_agg(variant::jsonb order by seq) as variants,
           least(sum(inventory_qty), 2147483647)::integer as stock,
           case when bool_or(availability = 'in_stock') then 'in_stock' when bool_or(availability = 'preorder') then 'preorder'
                when bool_or(availability = 'backorder') then 'backorder' when bool_or(availability = 'out_of_stock') then 'out_of_stock'
                else 'discontinued' end as avail
    from feed_stage
    where product_key in (select product_key from feed_stage group by product_key having count(*) > 1)
    group by product_key`);
  await client.query(`create temp view feed_products as
    select s.*, coalesce(g.variants, case when s.has_options then jsonb_build_array(s.variant::jsonb) else '[]'::jsonb end) as variants,
           coalesce(g.stock, s.inventory_qty) as stock, coalesce(g.avail, s.availability) as avail
    from feed_stage s left join feed_groups g using (product_key)
    where g.product_key is null or g.first_seq = s.seq`);
  await client.query('analyze feed_groups');
  lap('group');

  const staged = await client.query<{ n: number }>(`select count(*)::int as n from feed_products`);
  const matched = await client.query<{ n: number }>(
    `select count(*)::int as n from feed_products x join products p on p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key`,
    [merchantId],
  );
  report.updated = matched.rows[0]!.n;
  const newProducts = staged.rows[0]!.n - report.updated;
  const ownPartition = newProducts >= (opts.partitionMinProducts ?? PARTITION_MIN_PRODUCTS);
  // Before anything here writes products (the switch needs the index for an instant). The new
  // products of a large import go into a partition of their own, indexed in bulk; what is left for
  // the existing indexes is the update of the products the merchant already has.
  await indexWork.deferIfLarge(ownPartition ? report.updated : staged.rows[0]!.n);
  // With the pending lists on, each time one fills the insert stops to merge it into its index: a
  // larger list merges in fewer, larger sorted batches (the rest after commit, index_merge).
  if (indexWork.deferred) await client.query(`set local gin_pending_list_limit = '${BULK_PENDING_LIST}'`);
  lap('index_defer');

  const fields = `title = x.title, description = x.description, brand = x.brand, price_cents = x.price_cents,
    original_price_cents = x.original_price_cents, currency = x.currency, discount_label = x.discount_label, main_image = x.main_image,
    gallery = x.gallery, category_l1 = x.category_l1, category_l2 = x.category_l2, category_id = x.category_id,
    region_allow = x.region_allow, tags = x.tags, inventory_qty = x.stock, availability = x.avail, link = x.link, variants = x.variants,
    feed_attributes = x.feed_attributes`;
  // Only what differs is written: an unchanged refresh costs reads, not index maintenance.
  const changed = report.updated
    ? await client.query(
        `update products p set ${fields}
     from feed_products x
     where p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key
       and (p.title, p.description, p.brand, p.price_cents, p.original_price_cents, p.currency, p.discount_label, p.main_image, p.gallery,
            p.category_id, p.region_allow, p.tags, p.inventory_qty, p.availability, p.link, p.variants, p.feed_attributes)
           is distinct from
           (x.title, x.description, x.brand, x.price_cents, x.original_price_cents, x.currency, x.discount_label, x.main_image, x.gallery,
            x.category_id, x.region_allow, x.tags, x.stock, x.avail, x.link, x.variants, x.feed_attributes)`,
        [merchantId],
      )
    : { rowCount: 0 };
  report.changed = changed.rowCount ?? 0;
  report.unchanged = report.updated - report.changed;
  lap('update');

  const columns = `product_id, merchant_id, source, external_id, title, description, brand, price_cents, original_price_cents, currency,
       discount_label, main_image, gallery, category_l1, category_l2, category_id, region_allow, tags, inventory_qty, availability, link,
       variants, feed_attributes, risk_level, gmv_cents, orders, views, created_at`;
  const rows = (firstId: string) => `select ${firstId} + row_number() over (order by x.seq), $1, 'feed', x.product_key, x.title,
       x.description, x.brand, x.price_cents, x.original_price_cents, x.currency, x.discount_label, x.main_image, x.gallery, x.category_l1,
       x.category_l2, x.category_id, x.region_allow, x.tags, x.stock, x.avail, x.link, x.variants, x.feed_attributes, 'low', 0, 0, 0, now()
     from feed_products x
     where not exists (select 1 from products p where p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key)`;
  if (!ownPartition) {
    // Ids below LARGE_IMPORT_ID_BASE: the products_base partition.
    const inserted = await client.query(
      `insert into products (${columns}) ${rows(`(select coalesce(max(product_id), 0) from products where product_id < ${LARGE_IMPORT_ID_BASE})`)}`,
      [merchantId],
    );
    report.imported = inserted.rowCount ?? 0;
    lap('insert');
  } else {
    // A table of its own, filled without indexes or row-by-row foreign-key checks, then attached: the
    // attach builds each of the parent's indexes with one CREATE INDEX (a sort, not 900,000 GIN
    // inserts) and checks the foreign keys with one join. The range check makes the attach skip its
    // scan for the partition bound. Ids follow the last large partition's, from LARGE_IMPORT_ID_BASE.
    const { rows: next } = await client.query<{ first: number }>(
      `select coalesce(max(product_id), ${LARGE_IMPORT_ID_BASE - 1}) + 1 as first from products where product_id >= ${LARGE_IMPORT_ID_BASE}`,
    );
    const first = next[0]!.first;
    const end = first + newProducts;
    if (end > 2_147_483_647) throw new Error('product ids for large catalogs are exhausted');
    const part = `products_p${first}`;
    await client.query(`set local maintenance_work_mem = '${PARTITION_MAINTENANCE_WORK_MEM}'`);
    await client.query(`create table ${part} (like products including defaults including generated including constraints,
      constraint ${part}_range check (product_id >= ${first} and product_id < ${end}))`);
    const inserted = await client.query(`insert into ${part} (${columns}) ${rows(String(first - 1))}`, [merchantId]);
    report.imported = inserted.rowCount ?? 0;
    if (report.imported !== newProducts) throw new Error(`expected ${newProducts} new products, inserted ${report.imported}`);
    lap('insert');
    // The parent's indexes, each built by one CREATE INDEX from the parent's own definition (the
    // attach then adopts them), and the one that is the partition's alone (a unique index of a
    // partitioned table must contain product_id).
    await client.query(`alter table ${part} add constraint ${part}_pkey primary key (product_id)`);
    const { rows: defs } = await client.query<{ def: string }>(
      `select pg_get_indexdef(i.indexrelid) as def from pg_index i where i.indrelid = 'products'::regclass and not i.indisprimary`,
    );
    for (const { def } of defs) {
      const own = def.replace(
        /^CREATE (UNIQUE )?INDEX (\S+) ON ONLY (public\.)?products /,
        (_m, unique: string | undefined, name: string) =>
          `CREATE ${unique ?? ''}INDEX ${name.replace(/^products_/, `${part}_`)} ON ${part} `,
      );
      if (own === def) throw new Error(`unexpected index definition on products: ${def}`);
      await client.query(own);
    }
    await client.query(`create unique index ${part}_merchant_external_id_key on ${part} (merchant_id, external_id) where source = 'feed'`);
    lap('index_build');
    attach = { part, first, end };
  }

  if (full) {
    const removed = await client.query(
      `update products p set availability = 'discontinued', inventory_qty = 0
       where p.merchant_id = $1 and p.source = 'feed' and p.availability <> 'discontinued'
         and not exists (select 1 from feed_products x where x.product_key = p.external_id)`,
      [merchantId],
    );
    report.removed = removed.rowCount ?? 0;
    lap('remove');
  }
  const mapIds = Math.max(0, Math.floor(opts.mapIds ?? 0));
  if (mapIds > 0) {
    // The merchant's ids beside the gateway's for the first products of the file (a large import's
    // new products are in its partition, not attached yet). One more scan of the staged rows.
    const own = attach
      ? `(select product_id, merchant_id, source, external_id from products
          union all select product_id, merchant_id, source, external_id from ${attach.part})`
      : 'products';
    const mapped = await client.query<ImportedProductIds>(
      `select x.product_key as external_id, p.product_id, jsonb_path_query_array(x.variants, '$[*].id') as variant_ids
       from (select product_key, seq, variants from feed_products order by seq limit $2) x
       cross join lateral (select q.product_id from ${own} q
                           where q.merchant_id = $1 and q.source = 'feed' and q.external_id = x.product_key limit 1) p
       order by x.seq`,
      [merchantId, mapIds],
    );
    report.products = mapped.rows;
    lap('id_map');
  }
  // Before its tables are dropped at commit.
  await client.query('drop view feed_products');
  if (!attach) return null;
  // Last before commit: attaching takes SHARE ROW EXCLUSIVE on the tables whose foreign keys it
  // clones or checks (merchants and categories; proposals, rec_cards, videos, community_evidence)
  // until commit, which holds their writers. The indexes are built already, the range check lets
  // it skip the bound scan: what is left is one join per foreign key.
  await client.query(`alter table products attach partition ${attach.part} for values from (${attach.first}) to (${attach.end})`);
  await client.query(`alter table ${attach.part} drop constraint ${attach.part}_range`);
  // The rows went into the partition, not through products: its catalog-version trigger did not fire.
  await client.query(`update catalog_version set version = version + 1`);
  lap('attach');
  return attach.part;
}

/** Validates one flat record; throws RowError with a reason naming the field. */
export function parseFeedRow(values: Record<string, unknown>, line: number): FeedItem {
  const get = (field: keyof typeof FIELDS): unknown => {
    for (const alias of FIELDS[field])
      if (values[alias] !== undefined && values[alias] !== null && values[alias] !== '') return values[alias];
    return undefined;
  };
  const text = (field: keyof typeof FIELDS, max: number, required = false): string | null => {
    const v = get(field);
    if (v === undefined || (typeof v === 'string' && !v.trim())) {
      if (required) throw new RowError(`${field} is missing`);
      return null;
    }
    if (typeof v !== 'string' && typeof v !== 'number') throw new RowError(`${field} must be text`);
    const s = String(v).trim();
    if (s.length > max) throw new RowError(`${field} is longer than ${max} characters`);
    return s;
  };
  const plain = (key: string, max = 500): string | null => {
    const v = values[key];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v !== 'string' && typeof v !== 'number') return null;
    const s = String(v).trim();
    return s ? s.slice(0, max) : null;
  };

  const enableSearch = values.enable_search;
  if (enableSearch === false || (typeof enableSearch === 'string' && enableSearch.trim().toLowerCase() === 'false')) {
    throw new RowError('enable_search is false: not listed');
  }

  const externalId = text('id', 128, true)!;
  const group = text('group', 128);
  const title = text('title', 500, true)!;
  const description = text('description', 10_000) ?? '';
  const brand = text('brand', 200);

  const currencyColumn = text('currency', 16)?.toUpperCase() ?? null;
  if (currencyColumn !== null && !/^[A-Z]{3}$/.test(currencyColumn))
    throw new RowError(`currency ${JSON.stringify(currencyColumn)} is not an ISO 4217 code`);
  const price = parseMoney('price', get('price'), currencyColumn, true)!;
  const sale = parseMoney('sale_price', get('sale_price'), price.currency, false);
  if (sale && sale.currency !== price.currency) throw new RowError('sale_price and price have different currencies');
  const compareAt = parseMoney('compare_at_price', get('compare_at'), price.currency, false);
  if (compareAt && compareAt.currency !== price.currency) throw new RowError('compare_at_price and price have different currencies');
  let priceCents = price.minor;
  let original: number | null = null;
  if (sale && sale.minor < price.minor) {
    priceCents = sale.minor;
    original = price.minor;
  } else if (compareAt && compareAt.minor > price.minor) original = compareAt.minor;
  const label = original !== null ? `-${Math.round((1 - priceCents / original) * 100)}%` : null;

  const categoryRaw = get('category');
  const categoryText = typeof categoryRaw === 'string' && /^\s*\d+\s*$/.test(categoryRaw) ? undefined : categoryRaw; // a bare Google category id names no path
  const categoryPath = (
    Array.isArray(categoryText) ? categoryText.map(String) : typeof categoryText === 'string' ? categoryText.split('>') : []
  )
    .map((s) => s.trim())
    .filter(Boolean);
  if (categoryPath.some((c) => c.length > 120)) throw new RowError('category: a level is longer than 120 characters');
  if (categoryPath.some((c) => !slugify(c))) throw new RowError('category: a level has no letters or digits');

  const image = url('image', text('image', 2048));
  const extra = list(get('gallery'), /[|,]/).map((u) => url('additional_image_link', u)!);
  const gallery = [...new Set([...(image ? [image] : []), ...extra])];
  const link = url('link', text('link', 2048));
  const variantImage = url('variant_image', plain('variant_image', 2048));

  const regions = list(get('region'), /[\s,;|]+/).map((r) => r.toUpperCase());
  const badRegion = regions.find((r) => !/^[A-Z]{2}$/.test(r));
  if (badRegion) throw new RowError(`region ${JSON.stringify(badRegion)} is not an ISO 3166-1 alpha-2 code`);

  const stock = stockOf(get('quantity'), get('availability'));

  const attributes: Record<string, unknown> = {};
  for (const k of KEPT_ATTRIBUTES) {
    const v = values[k];
    if (v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length)) attributes[k] = v;
  }
  let options = Array.isArray(values.options)
    ? (values.options as Array<{ name?: unknown; value?: unknown }>)
        .filter((o) => o && typeof o.name === 'string' && typeof o.value === 'string')
        .map((o) => ({ name: String(o.name), value: String(o.value) }))
    : [];
  if (!options.length && group) {
    options = VARIANT_ATTRIBUTES.filter((k) => plain(k)).map((k) => ({ name: k, value: plain(k)! }));
  }
  const keywords = Array.isArray(values.keywords) ? (values.keywords as unknown[]).map(String) : [];
  const gtin = plain('gtin', 50);
  const mpn = plain('mpn', 70);

  return {
    line,
    product_key: group ?? externalId,
    variant_key: externalId,
    title,
    description,
    brand,
    price_cents: priceCents,
    original_price_cents: original,
    currency: price.currency,
    discount_label: label,
    main_image: gallery[0] ?? null,
    gallery,
    category_path: categoryPath.slice(0, 2),
    region_allow: [...new Set(regions)].sort(),
    inventory_qty: stock.qty,
    availability: stock.availability,
    link,
    keywords,
    attributes,
    has_options: options.length > 0,
    variant: {
      id: externalId,
      sku: plain('sku', 128) ?? null,
      title: plain('variant_title') ?? null,
      options,
      price_cents: priceCents,
      compare_at_price_cents: original,
      availability: stock.availability,
      inventory_qty: stock.qty,
      image: variantImage ?? gallery[0] ?? null,
      link,
      gtin,
      mpn,
    },
  };
}

function parseMoney(field: string, raw: unknown, currency: string | null, required: boolean): { minor: number; currency: string } | null {
  if (raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim())) {
    if (required) throw new RowError(`${field} is missing`);
    return null;
  }
  let minor: number | null;
  let cur = currency;
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    // ACP: {amount: integer minor units, currency}.
    const o = raw as { amount?: unknown; currency?: unknown };
    if (!Number.isSafeInteger(o.amount) || typeof o.currency !== 'string' || !/^[A-Za-z]{3}$/.test(o.currency))
      throw new RowError(`${field} must be {amount: integer minor units, currency}`);
    cur = o.currency.toUpperCase();
    minor = o.amount as number;
  } else {
    let amount: string;
    if (typeof raw === 'number') amount = String(raw);
    else if (typeof raw === 'string') {
      // "19.99", "19.99 USD", "USD 19.99", "$19.99", "1,299.00 USD"
      const m = /^\s*(?:([A-Za-z]{3})\s+)?\$?\s*(\d[\d,]*(?:\.\d+)?)\s*(?:([A-Za-z]{3}))?\s*$/.exec(raw);
      if (!m) throw new RowError(`${field} ${JSON.stringify(raw)} is not a price`);
      amount = m[2]!.replace(/,/g, '');
      const named = (m[1] ?? m[3])?.toUpperCase();
      if (named && cur && named !== cur) throw new RowError(`${field} is in ${named} but currency says ${cur}`);
      cur = named ?? cur;
    } else throw new RowError(`${field} is not a price`);
    cur ??= 'USD';
    minor = parseMajorUnits(amount, cur);
    if (minor === null) throw new RowError(`${field} ${amount} has more than ${minorUnitDigits(cur)} decimals for ${cur}`);
  }
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new RowError(`${field} must be greater than 0`);
  if (minor > MAX_MINOR_UNITS) throw new RowError(`${field} is implausibly large`);
  return { minor, currency: cur! };
}

function url(field: string, value: string | null): string | null {
  if (value === null) return null;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new RowError(`${field} is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new RowError(`${field} must be an http(s) URL`);
  return u.toString();
}

function list(raw: unknown, separator: RegExp): string[] {
  const items = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(separator) : [];
  return items.map((s) => s.trim()).filter(Boolean);
}

const AVAILABILITY: Record<string, Availability> = {
  in_stock: 'in_stock',
  limited_stock: 'in_stock',
  available: 'in_stock',
  out_of_stock: 'out_of_stock',
  sold_out: 'out_of_stock',
  preorder: 'preorder',
  pre_order: 'preorder',
  backorder: 'backorder',
  discontinued: 'discontinued',
};

/** Stock from a quantity and/or an availability word; a quantity alone implies in or out of stock. */
function stockOf(quantity: unknown, availability: unknown): { qty: number; availability: Availability } {
  let word: Availability | null = null;
  let qtyFromWord: unknown;
  if (availability !== undefined) {
    // Older feeds put a quantity in the availability column.
    if (typeof availability === 'number' || /^\s*\d+\s*$/.test(String(availability))) qtyFromWord = availability;
    else {
      const s = String(availability)
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_');
      word = AVAILABILITY[s] ?? null;
      if (!word) throw new RowError(`inventory ${JSON.stringify(availability)} is neither a quantity nor in stock/out of stock`);
    }
  }
  const q = quantity ?? qtyFromWord;
  if (q !== undefined && q !== null && q !== '') {
    const n = typeof q === 'number' ? q : /^\s*-?\d+\s*$/.test(String(q)) ? Number(q) : NaN;
    if (!Number.isSafeInteger(n) || n > 2_147_483_647) throw new RowError('inventory must be a whole number ≥ 0');
    const qty = Math.max(0, n);
    if (n < 0 && word !== 'backorder') throw new RowError('inventory must be a whole number ≥ 0');
    return { qty, availability: word ?? (qty > 0 ? 'in_stock' : 'out_of_stock') };
  }
  if (!word) return { qty: DEFAULT_INVENTORY, availability: 'in_stock' };
  return { qty: word === 'out_of_stock' || word === 'discontinued' ? 0 : DEFAULT_INVENTORY, availability: word };
}

/** Category resolution for one import: known slugs reused, new ones numbered and inserted after the COPY. */
class Categories {
  private readonly created: Array<{ category_id: number; parent_id: number | null; level: number; name: string; slug: string }> = [];
  private constructor(
    private readonly bySlug: Map<string, { id: number; name: string }>,
    private nextId: number,
  ) {}

  static async load(client: pg.PoolClient): Promise<Categories> {
    const { rows } = await client.query<{ category_id: number; slug: string; name: string }>(
      'select category_id, slug, name from categories',
    );
    const max = Math.max(SEED_CATEGORY_ID_LIMIT, ...rows.map((c) => c.category_id));
    return new Categories(new Map(rows.map((c) => [c.slug, { id: c.category_id, name: c.name }])), max + 1);
  }

  /** Finds a category by slug (so "Footwear > Running Shoes" lands in the seed taxonomy) or creates it. */
  resolve(name: string, parent: { id: number; name: string } | null): { id: number; name: string } {
    const slug = parent ? categorySlug(parent.name, name) : categorySlug(name);
    const known = this.bySlug.get(slug);
    if (known) return known;
    const created = { id: this.nextId++, name };
    this.created.push({ category_id: created.id, parent_id: parent?.id ?? null, level: parent ? 2 : 1, name, slug });
    this.bySlug.set(slug, created);
    return created;
  }

  async insertNew(client: pg.PoolClient): Promise<void> {
    if (!this.created.length) return;
    await client.query(
      `insert into categories (category_id, parent_id, level, name, slug)
       select category_id, parent_id, level, name, slug from jsonb_to_recordset($1::jsonb) as x(category_id integer, parent_id integer, level smallint, name text, slug text)`,
      [JSON.stringify(this.created)],
    );
  }
}
