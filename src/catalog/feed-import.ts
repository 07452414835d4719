import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { PRODUCT_COLUMNS, bulkUpsert, lockCatalog } from './bulk';
import { FeedFileError, readFeed } from './feed-format';
import { minorUnitDigits } from '../money';
import { SEED_CATEGORY_ID_LIMIT, categorySlug, searchTags, slugify } from './taxonomy';

/**
 * Loads a merchant product feed (CSV or JSONL) into the catalog. Bad rows are reported by line and
 * skipped; everything else is written in ONE transaction, so a file that fails as a whole (unreadable,
 * wrong header, unterminated quote, database error) leaves the catalog exactly as it was.
 * Rows are keyed by the feed's id: a known id updates its product, a new id gets the next product id.
 */

export { FeedFileError };

export interface FeedReport {
  imported: number;
  updated: number;
  skipped: Array<{ line: number; reason: string }>;
}

/** Header aliases, lower-case (Google Merchant Center names are accepted too). */
const FIELDS = {
  id: ['id', 'external_id', 'sku', 'item_id'],
  title: ['title', 'name'],
  description: ['description'],
  brand: ['brand'],
  price: ['price'],
  sale_price: ['sale_price'],
  currency: ['currency'],
  category: ['category', 'category_path', 'product_type'],
  image: ['image', 'image_link', 'image_url', 'main_image'],
  gallery: ['additional_image_link', 'additional_images', 'gallery'],
  link: ['link', 'url', 'product_url'],
  region: ['region', 'regions', 'region_allow', 'country', 'countries'],
  inventory: ['inventory', 'inventory_qty', 'quantity', 'availability'],
} as const;

const REQUIRED = { id: FIELDS.id, title: FIELDS.title, price: FIELDS.price };

const BATCH_ROWS = 500;
/** Stock a feed does not state: treated as available. */
const DEFAULT_INVENTORY = 100;
const MAX_MINOR_UNITS = 1_000_000_000;

export interface FeedProduct {
  line: number;
  external_id: string;
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
  link: string | null;
}

class RowError extends Error {}

export async function importFeed(db: Db, filePath: string): Promise<FeedReport> {
  const report: FeedReport = { imported: 0, updated: 0, skipped: [] };
  await db.transaction().execute(async (trx) => {
    await lockCatalog(trx);
    const writer = await FeedWriter.open(trx);
    const firstLineOf = new Map<string, number>();
    let batch: FeedProduct[] = [];
    for await (const record of readFeed(filePath, REQUIRED)) {
      if ('error' in record) {
        report.skipped.push({ line: record.line, reason: record.error });
        continue;
      }
      let product: FeedProduct;
      try {
        product = parseFeedRow(record.values, record.line);
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        report.skipped.push({ line: record.line, reason: err.message });
        continue;
      }
      const seen = firstLineOf.get(product.external_id);
      if (seen !== undefined) {
        report.skipped.push({ line: record.line, reason: `duplicate id ${JSON.stringify(product.external_id)} (first on line ${seen})` });
        continue;
      }
      firstLineOf.set(product.external_id, record.line);
      batch.push(product);
      if (batch.length >= BATCH_ROWS) {
        await writer.write(batch, report);
        batch = [];
      }
    }
    await writer.write(batch, report);
  });
  return report;
}

/** Validates one record; throws RowError with a reason naming the field. */
export function parseFeedRow(values: Record<string, unknown>, line: number): FeedProduct {
  const get = (field: keyof typeof FIELDS): unknown => {
    for (const alias of FIELDS[field]) if (values[alias] !== undefined && values[alias] !== null) return values[alias];
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

  const externalId = text('id', 128, true)!;
  const title = text('title', 500, true)!;
  const description = text('description', 10_000) ?? '';
  const brand = text('brand', 200);

  const currencyColumn = text('currency', 16)?.toUpperCase() ?? null;
  if (currencyColumn !== null && !/^[A-Z]{3}$/.test(currencyColumn)) throw new RowError(`currency ${JSON.stringify(currencyColumn)} is not an ISO 4217 code`);
  const price = parseMoney('price', get('price'), currencyColumn, true)!;
  const sale = parseMoney('sale_price', get('sale_price'), price.currency, false);
  if (sale && sale.currency !== price.currency) throw new RowError('sale_price and price have different currencies');
  let priceCents = price.minor;
  let original: number | null = null;
  let label: string | null = null;
  if (sale && sale.minor < price.minor) {
    priceCents = sale.minor;
    original = price.minor;
    label = `-${Math.round((1 - sale.minor / price.minor) * 100)}%`;
  }

  const categoryRaw = get('category');
  const categoryPath = (Array.isArray(categoryRaw) ? categoryRaw.map(String) : typeof categoryRaw === 'string' ? categoryRaw.split('>') : [])
    .map((s) => s.trim())
    .filter(Boolean);
  if (categoryPath.some((c) => c.length > 120)) throw new RowError('category: a level is longer than 120 characters');
  if (categoryPath.some((c) => !slugify(c))) throw new RowError('category: a level has no letters or digits');

  const image = url('image', text('image', 2048));
  const extra = list(get('gallery'), /[|,]/).map((u) => url('additional_image_link', u)!);
  const gallery = [...new Set([...(image ? [image] : []), ...extra])];
  const link = url('link', text('link', 2048));

  const regions = list(get('region'), /[\s,;|]+/).map((r) => r.toUpperCase());
  const badRegion = regions.find((r) => !/^[A-Z]{2}$/.test(r));
  if (badRegion) throw new RowError(`region ${JSON.stringify(badRegion)} is not an ISO 3166-1 alpha-2 code`);

  return {
    line,
    external_id: externalId,
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
    inventory_qty: inventory(get('inventory')),
    link,
  };
}

function parseMoney(field: string, raw: unknown, currency: string | null, required: boolean): { minor: number; currency: string } | null {
  if (raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim())) {
    if (required) throw new RowError(`${field} is missing`);
    return null;
  }
  let amount: string;
  let cur = currency;
  if (typeof raw === 'number') amount = String(raw);
  else if (typeof raw === 'string') {
    // "19.99", "19.99 USD", "USD 19.99", "$19.99"
    const m = /^\s*(?:([A-Za-z]{3})\s+)?\$?\s*(\d+(?:\.\d+)?)\s*(?:([A-Za-z]{3}))?\s*$/.exec(raw);
    if (!m) throw new RowError(`${field} ${JSON.stringify(raw)} is not a price`);
    amount = m[2]!;
    const named = (m[1] ?? m[3])?.toUpperCase();
    if (named && cur && named !== cur) throw new RowError(`${field} is in ${named} but currency says ${cur}`);
    cur = named ?? cur;
  } else throw new RowError(`${field} is not a price`);
  cur ??= 'USD';
  const digits = minorUnitDigits(cur);
  const [whole, frac = ''] = amount.split('.');
  if (frac.length > digits) throw new RowError(`${field} ${amount} has more than ${digits} decimals for ${cur}`);
  const minor = Number(whole) * 10 ** digits + Number(frac.padEnd(digits, '0') || 0);
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new RowError(`${field} must be greater than 0`);
  if (minor > MAX_MINOR_UNITS) throw new RowError(`${field} is implausibly large`);
  return { minor, currency: cur };
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

function inventory(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_INVENTORY;
  if (typeof raw === 'number' || /^\s*\d+\s*$/.test(String(raw))) {
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0 || n > 2_147_483_647) throw new RowError('inventory must be a whole number ≥ 0');
    return n;
  }
  const s = String(raw).trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (s === 'in_stock' || s === 'preorder' || s === 'backorder') return DEFAULT_INVENTORY;
  if (s === 'out_of_stock') return 0;
  throw new RowError(`inventory ${JSON.stringify(raw)} is neither a quantity nor in stock/out of stock`);
}

/** Category resolution and id allocation for one import, inside its transaction. */
class FeedWriter {
  private constructor(
    private readonly trx: Db,
    private readonly categories: Map<string, { id: number; name: string }>,
    private nextProductId: number,
    private nextCategoryId: number,
  ) {}

  static async open(trx: Db): Promise<FeedWriter> {
    const cats = await trx.selectFrom('categories').select(['category_id', 'slug', 'name']).execute();
    const max = await trx.selectFrom('products').select((eb) => eb.fn.max('product_id').as('max')).executeTakeFirst();
    const maxCategory = Math.max(SEED_CATEGORY_ID_LIMIT, ...cats.map((c) => c.category_id));
    return new FeedWriter(trx, new Map(cats.map((c) => [c.slug, { id: c.category_id, name: c.name }])), (max?.max ?? 0) + 1, maxCategory + 1);
  }

  async write(batch: FeedProduct[], report: FeedReport): Promise<void> {
    if (!batch.length) return;
    const existing = await this.trx
      .selectFrom('products')
      .select(['product_id', 'external_id'])
      .where('source', '=', 'feed')
      .where('external_id', 'in', batch.map((p) => p.external_id))
      .execute();
    const idOf = new Map(existing.map((e) => [e.external_id!, e.product_id]));
    const rows = [];
    for (const p of batch) rows.push(await this.row(p, idOf.get(p.external_id)));
    const inserts = rows.filter((r) => !idOf.has(r.external_id));
    const updates = rows.filter((r) => idOf.has(r.external_id));
    await bulkUpsert(this.trx, 'products', PRODUCT_COLUMNS, inserts, null);
    if (updates.length) {
      const kept = new Set(['product_id', 'source', 'external_id', 'created_at', 'gmv_cents', 'orders', 'views', 'risk_level']);
      const cols = PRODUCT_COLUMNS.filter(([n]) => !kept.has(n) || n === 'product_id');
      const defs = cols.map(([n, t]) => `${n} ${t}`).join(', ');
      const sets = cols
        .filter(([n]) => n !== 'product_id')
        .map(([n]) => `${n} = x.${n}`)
        .join(', ');
      await sql`update products p set ${sql.raw(sets)}
        from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as x(${sql.raw(defs)})
        where p.product_id = x.product_id`.execute(this.trx);
    }
    report.imported += inserts.length;
    report.updated += updates.length;
  }

  private async row(p: FeedProduct, existingId: number | undefined) {
    const [l1, l2] = p.category_path;
    const c1 = l1 ? await this.category(l1, null) : null;
    const c2 = l1 && l2 ? await this.category(l2, c1!) : null;
    return {
      product_id: existingId ?? this.nextProductId++,
      title: p.title,
      description: p.description,
      brand: p.brand,
      price_cents: p.price_cents,
      original_price_cents: p.original_price_cents,
      currency: p.currency,
      discount_label: p.discount_label,
      main_image: p.main_image,
      gallery: p.gallery,
      category_l1: c1?.name ?? null,
      category_l2: c2?.name ?? null,
      category_id: (c2 ?? c1)?.id ?? null,
      region_allow: p.region_allow,
      risk_level: 'low',
      tags: searchTags(p.title, p.brand, c1?.name, c2?.name),
      inventory_qty: p.inventory_qty,
      link: p.link,
      gmv_cents: 0,
      orders: 0,
      views: 0,
      source: 'feed',
      external_id: p.external_id,
      created_at: new Date().toISOString(),
    };
  }

  /** Finds a category by slug (so "Footwear > Running Shoes" lands in the seed taxonomy) or creates it. */
  private async category(name: string, parent: { id: number; name: string } | null): Promise<{ id: number; name: string }> {
    const slug = parent ? categorySlug(parent.name, name) : categorySlug(name);
    const known = this.categories.get(slug);
    if (known) return known;
    const created = { id: this.nextCategoryId++, name };
    await this.trx
      .insertInto('categories')
      .values({ category_id: created.id, parent_id: parent?.id ?? null, level: parent ? 2 : 1, name, slug })
      .execute();
    this.categories.set(slug, created);
    return created;
  }
}
