import type { Availability, ProductVariant } from '../db/schema-catalog';
import { minorUnitDigits, parseMajorUnits } from '../money';
import type { RawRecord } from './feed-format';
import { categorySlug, searchTags, slugify } from './taxonomy';

/**
 * One feed record to one staging row (docs/CATALOG.md, "How an import is applied"): validation of
 * the flat record, category names and search tags, and the row in COPY text format. Pure and
 * synchronous, with no database: the importer runs it on its own thread for small feeds and in
 * worker threads over chunks of a large one (src/catalog/feed-parallel.ts), with the same result.
 */

/** Header aliases, lower-case (Google Merchant Center and ACP names are accepted too). */
export const FIELDS = {
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

export const REQUIRED: Record<string, readonly string[]> = { id: FIELDS.id, title: FIELDS.title, price: FIELDS.price };
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

export class RowError extends Error {}

/**
 * Slugs of category names, remembered: a feed names a few hundred categories over millions of rows,
 * and slugify (Unicode normalisation and five replacements) was a twentieth of a row's parse.
 */
const SLUGS = new Map<string, string>();
const MAX_REMEMBERED_SLUGS = 50_000;
function slugOf(text: string, parent?: string): string {
  const key = parent === undefined ? text : `${parent}\u0000${text}`;
  let slug = SLUGS.get(key);
  if (slug === undefined) {
    if (SLUGS.size >= MAX_REMEMBERED_SLUGS) SLUGS.clear();
    slug = parent === undefined ? slugify(text) : categorySlug(parent, text);
    SLUGS.set(key, slug);
  }
  return slug;
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
  if (categoryPath.some((c) => !slugOf(c))) throw new RowError('category: a level has no letters or digits');

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

/** COPY text format: tab-separated, \N for null, backslash escapes; arrays and objects as JSON. */
function copyRow(values: unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i) line += '\t';
    if (v === null || v === undefined) line += '\\N';
    else if (typeof v === 'number') line += String(v);
    else if (typeof v === 'boolean') line += v ? 't' : 'f';
    else if (v instanceof TextArray) line += escapeCopy(v.literal());
    else line += escapeCopy(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return `${line}\n`;
}

/** A `text[]` column: written as a Postgres array literal, so the merge uses it as it is (no jsonb to array per row). */
class TextArray {
  constructor(private readonly items: string[]) {}
  literal(): string {
    let out = '{';
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (i) out += ',';
      out += `"${/["\\]/.test(item) ? item.replace(/["\\]/g, (c) => `\\${c}`) : item}"`;
    }
    return `${out}}`;
  }
}

function escapeCopy(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/** Columns of the staging table, in the order `RowEncoder.encode` writes them. */
export const STAGE_COLUMNS = [
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
  'category_slug',
  'region_allow',
  'tags',
  'inventory_qty',
  'availability',
  'link',
  'feed_attributes',
  'variant',
  'has_options',
] as const;

/** A category a feed names that the catalog does not have yet; `seq` is the first row naming it. */
export interface NewCategory {
  slug: string;
  name: string;
  level: 1 | 2;
  parent_slug: string | null;
  seq: number;
}

/**
 * Category names of feed rows: a known slug takes the catalog's name (so "footwear > running
 * shoes" lands in the seed taxonomy), an unknown one is new under the name the feed gives. Ids are
 * not given here: the importer numbers the new categories once all rows are staged (first row
 * first), and the staged rows find theirs by slug. Every thread gets the same known set, so a slug
 * is the same whichever thread reads the row.
 */
export class CategoryNames {
  private fresh: NewCategory[] = [];
  constructor(private readonly known: Map<string, string>) {}

  resolve(path: string[], seq: number): { l1: string | null; l2: string | null; slug: string | null } {
    const [n1, n2] = path;
    if (!n1) return { l1: null, l2: null, slug: null };
    const s1 = slugOf(n1);
    const l1 = this.named(s1, n1, 1, null, seq);
    if (!n2) return { l1, l2: null, slug: s1 };
    const s2 = slugOf(n2, l1);
    return { l1, l2: this.named(s2, n2, 2, s1, seq), slug: s2 };
  }

  private named(slug: string, name: string, level: 1 | 2, parent: string | null, seq: number): string {
    const known = this.known.get(slug);
    if (known !== undefined) return known;
    this.known.set(slug, name);
    this.fresh.push({ slug, name, level, parent_slug: parent, seq });
    return name;
  }

  /** The new categories met since the last call. */
  takeNew(): NewCategory[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }
}

/** Rows of one line (an ACP product line has one per variant) get consecutive seqs under the line's. */
const SEQ_PER_LINE = 2 ** 20;

/**
 * Record to staging row. The row's `seq` orders rows as the file does (first row wins a duplicate
 * id, a product takes its first row's fields): it is derived from the line, so rows encoded on
 * different threads still sort in file order.
 */
export class RowEncoder {
  private lastLine = -1;
  private sub = 0;
  constructor(readonly categories: CategoryNames) {}

  /** The COPY line of a valid record, or the reason it is rejected. */
  encode(record: RawRecord): string | { line: number; reason: string } {
    if ('error' in record) return { line: record.line, reason: record.error };
    let item: FeedItem;
    try {
      item = parseFeedRow(record.values, record.line);
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      return { line: record.line, reason: err.message };
    }
    this.sub = record.line === this.lastLine ? this.sub + 1 : 0;
    this.lastLine = record.line;
    if (this.sub >= SEQ_PER_LINE) return { line: record.line, reason: `more than ${SEQ_PER_LINE - 1} variants on one line` };
    const seq = record.line * SEQ_PER_LINE + this.sub;
    const c = this.categories.resolve(item.category_path, seq);
    const tags = [...new Set([...searchTags(item.title, item.brand, c.l1, c.l2), ...searchTags(...item.keywords)])];
    return copyRow([
      seq,
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
      c.l1,
      c.l2,
      c.slug,
      new TextArray(item.region_allow),
      new TextArray(tags),
      item.inventory_qty,
      item.availability,
      item.link,
      item.attributes,
      item.variant,
      item.has_options,
    ]);
  }
}
