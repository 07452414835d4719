import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { poolOf, type Db } from '../db/connect';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';
import { newId } from '../ids';
import { CountingSource, FeedFileError, fileSource, openFeed, type FeedFormat } from './feed-format';
import { BulkIndexWork } from './bulk-index';
import { canonicalRecords } from './feed-mappings';
import { chunkedCopy, CHUNKED_FORMATS, DEFAULT_PARSE_THREADS } from './feed-parallel';
import { CategoryNames, REQUIRED, RowEncoder, STAGE_COLUMNS, type NewCategory } from './feed-rows';
import { SEED_CATEGORY_ID_LIMIT } from './taxonomy';

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
  /** Worker threads parsing a large delimited or JSON Lines feed (default by cores: DEFAULT_PARSE_THREADS; 0: this thread). */
  parseThreads?: number;
  /** Called about every PROGRESS_ROWS rows with the rows and bytes read so far; `final` once all are read. */
  onProgress?: (p: { rows: number; bytes: number; final?: boolean }) => void;
}

const MAX_REPORTED_REJECTIONS = 10_000;
const PROGRESS_ROWS = 10_000;

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
    timings_ms: {},
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
    // The set statements sort and hash every staged row (dedupe, group, anti-join): with the 4 MB
    // default a large feed sorts on disk in many passes. Local to this transaction.
    await client.query(`set local work_mem = '64MB'`);
    await runImport(client, counting, merchantId, { ...opts, onProgress: progress }, report, indexWork);
    let t = Date.now();
    await client.query('commit');
    report.timings_ms.commit = Date.now() - t;
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

async function runImport(
  client: pg.PoolClient,
  source: CountingSource,
  merchantId: string,
  opts: ImportOptions,
  report: FeedReport,
  indexWork: BulkIndexWork,
): Promise<void> {
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
    seq bigint, line integer, product_key text, variant_key text, title text, description text, brand text, price_cents integer,
    original_price_cents integer, currency text, discount_label text, main_image text, gallery jsonb, category_l1 text, category_l2 text,
    category_slug text, region_allow text[], tags text[], inventory_qty integer, availability text, link text, feed_attributes jsonb,
    variant jsonb, has_options boolean) on commit drop`);

  const reject = (line: number, reason: string) => {
    report.rejected++;
    if (report.skipped.length < MAX_REPORTED_REJECTIONS) report.skipped.push({ line, reason });
  };
  const mapping = { defaultCurrency: (opts.defaultCurrency ?? 'USD').toUpperCase(), storeUrl: opts.storeUrl ?? null };
  let lastProgress = 0;
  const counted = (rows: number) => {
    report.rows_read += rows;
    if (opts.onProgress && report.rows_read - lastProgress >= PROGRESS_ROWS) {
      lastProgress = report.rows_read;
      opts.onProgress({ rows: report.rows_read, bytes: source.bytes });
    }
  };
  // Delimited text and JSON Lines split into chunks at record boundaries, encoded on worker threads
  // when the feed is large; a Shopify export (a product spans rows) and XML stream through this thread.
  async function* copyLines(): AsyncGenerator<string> {
    if (CHUNKED_FORMATS.has(feed.format)) {
      yield* chunkedCopy(feed, {
        mapping,
        knownCategories: categories.names(),
        threads: opts.parseThreads ?? DEFAULT_PARSE_THREADS,
        onChunk: (c) => {
          counted(c.rows);
          for (const r of c.rejects) reject(r.line, r.reason);
          categories.add(c.newCategories);
        },
      });
      return;
    }
    const names = new CategoryNames(categories.names());
    const encoder = new RowEncoder(names);
    let buffer = '';
    for await (const record of canonicalRecords(feed.format, feed.records, mapping)) {
      counted(1);
      const row = encoder.encode(record);
      if (typeof row !== 'string') {
        reject(row.line, row.reason);
        continue;
      }
      buffer += row;
      if (buffer.length >= 256 * 1024) {
        yield buffer;
        buffer = '';
      }
    }
    categories.add(names.takeNew());
    if (buffer) yield buffer;
  }
  const t = Date.now();
  const copy = client.query(copyFrom(`copy feed_stage (${STAGE_COLUMNS.join(', ')}) from stdin`));
  await pipeline(Readable.from(copyLines()), copy);
  opts.onProgress?.({ rows: report.rows_read, bytes: source.bytes, final: true });
  report.timings_ms.parse_copy = Date.now() - t;
  await categories.insertNew(client);
  await merge(client, merchantId, opts.fullSnapshot ?? false, report, reject, indexWork);
}

/** The staged rows into products, as set operations (docs/CATALOG.md, "How an import is applied"). */
async function merge(
  client: pg.PoolClient,
  merchantId: string,
  full: boolean,
  report: FeedReport,
  reject: (line: number, reason: string) => void,
  indexWork: BulkIndexWork,
): Promise<void> {
  let t = Date.now();
  const lap = (name: string) => {
    report.timings_ms[name] = Date.now() - t;
    t = Date.now();
  };
  // The same variant id twice: the first row wins, the others are rejected with their lines.
  const dups = await client.query<{ line: number; variant_key: string; first_line: number }>(`
    with d as (select seq, line, variant_key, first_value(line) over w as first_line, row_number() over w as n
               from feed_stage window w as (partition by variant_key order by seq))
    delete from feed_stage s using d where s.seq = d.seq and d.n > 1
    returning d.line, d.variant_key, d.first_line`);
  for (const d of dups.rows.sort((a, b) => a.line - b.line))
    reject(d.line, `duplicate id ${JSON.stringify(d.variant_key)} (first on line ${d.first_line})`);
  if (report.skipped.length > 1) report.skipped.sort((a, b) => a.line - b.line);

  lap('dedupe');
  await client.query('analyze feed_stage');
  // One row per product: the fields of its first row, its variants in file order, stock summed.
  await client.query(`create temp table feed_products on commit drop as
    select f.*, c.category_id, g.variants, g.stock, g.avail
    from (select distinct on (product_key) * from feed_stage order by product_key, seq) f
    left join categories c on c.slug = f.category_slug
    join (select product_key,
                 case when count(*) > 1 or bool_or(has_options) then jsonb_agg(variant order by seq) else '[]'::jsonb end as variants,
                 least(sum(inventory_qty), 2147483647)::integer as stock,
                 case when bool_or(availability = 'in_stock') then 'in_stock' when bool_or(availability = 'preorder') then 'preorder'
                      when bool_or(availability = 'backorder') then 'backorder' when bool_or(availability = 'out_of_stock') then 'out_of_stock'
                      else 'discontinued' end as avail
          from feed_stage group by product_key) g using (product_key)`);
  await client.query(`create index on feed_products (product_key)`);
  await client.query('analyze feed_products');
  lap('group');
  // Before anything here reads or writes products (the switch needs the index for an instant).
  const staged = await client.query<{ n: number }>(`select count(*)::int as n from feed_products`);
  await indexWork.deferIfLarge(staged.rows[0]!.n);
  lap('index_defer');

  const fields = `title = x.title, description = x.description, brand = x.brand, price_cents = x.price_cents,
    original_price_cents = x.original_price_cents, currency = x.currency, discount_label = x.discount_label, main_image = x.main_image,
    gallery = x.gallery, category_l1 = x.category_l1, category_l2 = x.category_l2, category_id = x.category_id,
    region_allow = x.region_allow, tags = x.tags,
    inventory_qty = x.stock, availability = x.avail, link = x.link, variants = x.variants, feed_attributes = x.feed_attributes`;
  const matched = await client.query<{ n: number }>(
    `select count(*)::int as n from feed_products x join products p on p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key`,
    [merchantId],
  );
  // Only what differs is written: an unchanged refresh costs reads, not index maintenance.
  const changed = await client.query(
    `update products p set ${fields}
     from feed_products x
     where p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key
       and (p.title, p.description, p.brand, p.price_cents, p.original_price_cents, p.currency, p.discount_label, p.main_image, p.gallery,
            p.category_id, p.region_allow, p.tags, p.inventory_qty, p.availability, p.link, p.variants, p.feed_attributes)
           is distinct from
           (x.title, x.description, x.brand, x.price_cents, x.original_price_cents, x.currency, x.discount_label, x.main_image, x.gallery,
            x.category_id, x.region_allow, x.tags,
            x.stock, x.avail, x.link, x.variants, x.feed_attributes)`,
    [merchantId],
  );
  report.updated = matched.rows[0]!.n;
  report.changed = changed.rowCount ?? 0;
  report.unchanged = report.updated - report.changed;
  lap('update');

  const inserted = await client.query(
    `insert into products (product_id, merchant_id, source, external_id, title, description, brand, price_cents, original_price_cents, currency,
       discount_label, main_image, gallery, category_l1, category_l2, category_id, region_allow, tags, inventory_qty, availability, link,
       variants, feed_attributes, risk_level, gmv_cents, orders, views, created_at)
     select (select coalesce(max(product_id), 0) from products) + row_number() over (order by x.seq), $1, 'feed', x.product_key, x.title,
       x.description, x.brand, x.price_cents, x.original_price_cents, x.currency, x.discount_label, x.main_image, x.gallery, x.category_l1,
       x.category_l2, x.category_id, x.region_allow, x.tags,
       x.stock, x.avail, x.link, x.variants, x.feed_attributes, 'low', 0, 0, 0, now()
     from feed_products x
     where not exists (select 1 from products p where p.merchant_id = $1 and p.source = 'feed' and p.external_id = x.product_key)`,
    [merchantId],
  );
  report.imported = inserted.rowCount ?? 0;
  lap('insert');

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
}

/**
 * The catalog's categories for one import: the known ones by slug, and the new ones the feed names
 * (from any thread), numbered in file order after the COPY and inserted before the rows are grouped.
 */
class Categories {
  private readonly fresh = new Map<string, NewCategory>();
  private constructor(
    private readonly bySlug: Map<string, { id: number; name: string }>,
    private readonly nextId: number,
  ) {}

  static async load(client: pg.PoolClient): Promise<Categories> {
    const { rows } = await client.query<{ category_id: number; slug: string; name: string }>(
      'select category_id, slug, name from categories',
    );
    const max = Math.max(SEED_CATEGORY_ID_LIMIT, ...rows.map((c) => c.category_id));
    return new Categories(new Map(rows.map((c) => [c.slug, { id: c.category_id, name: c.name }])), max + 1);
  }

  /** Slug to name of the known categories, what a row's category names are resolved against. */
  names(): Map<string, string> {
    return new Map([...this.bySlug].map(([slug, c]) => [slug, c.name]));
  }

  /** New categories met by a thread; a slug met twice keeps its first row's name. */
  add(found: NewCategory[]): void {
    for (const c of found) {
      const had = this.fresh.get(c.slug);
      if (!had || c.seq < had.seq) this.fresh.set(c.slug, c);
    }
  }

  async insertNew(client: pg.PoolClient): Promise<void> {
    if (!this.fresh.size) return;
    const ids = new Map<string, number>();
    let next = this.nextId;
    // Parents first, each level in file order: ids as a single-threaded read would give them.
    const ordered = [...this.fresh.values()].sort((a, b) => a.level - b.level || a.seq - b.seq);
    const rows = ordered.map((c) => {
      const id = next++;
      ids.set(c.slug, id);
      const parent = c.parent_slug === null ? null : (this.bySlug.get(c.parent_slug)?.id ?? ids.get(c.parent_slug) ?? null);
      return { category_id: id, parent_id: parent, level: c.level, name: c.name, slug: c.slug };
    });
    await client.query(
      `insert into categories (category_id, parent_id, level, name, slug)
       select category_id, parent_id, level, name, slug from jsonb_to_recordset($1::jsonb) as x(category_id integer, parent_id integer, level smallint, name text, slug text)`,
      [JSON.stringify(rows)],
    );
  }
}
