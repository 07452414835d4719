import type { Db } from '../db/connect';
import type { Availability, ProductRow } from '../db/schema-catalog';
import { AppError } from '../errors';
import { fromMinorUnits } from '../money';
import { CATALOG_MERCHANT_ID } from '../db/migrations/0008_recommend';

export type { ProductRow };

/** The API's Product object (docs/CATALOG.md): prices as numbers, in USD only (other currencies show null). */
export interface ProductView {
  id: string;
  /** The merchant's own id of the product (its feed id); null for a product that did not come from a feed. */
  external_id: string | null;
  title: string;
  brand: string | null;
  price_usd: number | null;
  original_price_usd: number | null;
  discount_label: string | null;
  main_image: string | null;
  gallery: string[];
  category_l1: string | null;
  category_l2: string | null;
  /** The price in the product's own currency (any ISO 4217 code). */
  price: { amount: number; currency: string; compare_at: number | null };
  availability: Availability;
  /** Who sells it: the merchant whose catalog the product is in. */
  seller: { merchant_id: string; name: string | null };
  variants: VariantView[];
}

export interface VariantView {
  id: string;
  sku: string | null;
  title: string | null;
  options: Array<{ name: string; value: string }>;
  price: number;
  compare_at_price: number | null;
  availability: string;
  inventory_qty: number;
  image: string | null;
}

/** 404 for a product id a request names (`fields` points at the body member). */
export const productNotFound = (id: number | string, merchantId?: string) =>
  new AppError(
    404,
    'product_not_found',
    `No product ${typeof id === 'number' ? id : JSON.stringify(id)} in the catalog${merchantId ? ` of merchant ${JSON.stringify(merchantId)}` : ''}.`,
    { fields: ['product_id'] },
  );

/**
 * Whether the catalog has the product a caller names by either of its ids: the gateway's catalog id
 * (digits) or the merchant's own id from its feed (`external_id`), sold by `merchantId` when given.
 */
export async function catalogHasProduct(db: Db, ref: string, merchantId?: string): Promise<boolean> {
  let q = db.selectFrom('products').select('product_id').limit(1);
  q =
    /^[1-9]\d{0,9}$/.test(ref) && Number(ref) <= 2_147_483_647
      ? q.where((eb) => eb.or([eb('product_id', '=', Number(ref)), eb('external_id', '=', ref)]))
      : q.where('external_id', '=', ref);
  if (merchantId !== undefined) q = q.where('merchant_id', '=', merchantId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function getProduct(db: Db, id: number): Promise<ProductRow | undefined> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return undefined;
  return db.selectFrom('products').selectAll().where('product_id', '=', id).executeTakeFirst();
}

export async function getProducts(db: Db, ids: number[]): Promise<Map<number, ProductRow>> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('products').selectAll().where('product_id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.product_id, r]));
}

export function productView(row: ProductRow): ProductView {
  const usd = row.currency === 'USD';
  return {
    id: String(row.product_id),
    external_id: row.external_id,
    title: row.title,
    brand: row.brand,
    price_usd: usd ? centsToNumber(row.price_cents) : null,
    original_price_usd: usd && row.original_price_cents != null ? centsToNumber(row.original_price_cents) : null,
    discount_label: row.discount_label,
    main_image: row.main_image,
    gallery: Array.isArray(row.gallery) ? row.gallery : [],
    category_l1: row.category_l1,
    category_l2: row.category_l2,
    price: {
      amount: fromMinorUnits(row.price_cents, row.currency),
      currency: row.currency,
      compare_at: row.original_price_cents != null ? fromMinorUnits(row.original_price_cents, row.currency) : null,
    },
    availability: row.availability ?? (row.inventory_qty > 0 ? 'in_stock' : 'out_of_stock'),
    seller: { merchant_id: row.merchant_id ?? CATALOG_MERCHANT_ID, name: sellerName(row) },
    variants: (Array.isArray(row.variants) ? row.variants : []).map((v) => ({
      id: v.id,
      sku: v.sku,
      title: v.title,
      options: v.options,
      price: fromMinorUnits(v.price_cents, row.currency),
      compare_at_price: v.compare_at_price_cents != null ? fromMinorUnits(v.compare_at_price_cents, row.currency) : null,
      availability: v.availability,
      inventory_qty: v.inventory_qty,
      image: v.image,
    })),
  };
}

function sellerName(row: ProductRow): string | null {
  const name = (row.feed_attributes as Record<string, unknown> | null)?.seller_name;
  return typeof name === 'string' && name ? name : null;
}

/** Who sells a product: its merchant and that merchant's agent endpoint (null: no agent to hand a checkout to). */
export interface ProductSeller {
  merchant_id: string;
  agent_endpoint: string | null;
  product_link: string | null;
}

/**
 * Is this a real agent's endpoint? `.invalid` is reserved (RFC 2606) and never resolves: an endpoint
 * there (the catalog merchant's `https://gateway.invalid/catalog`) is a placeholder, not an agent.
 * The one place that decides it (product sellers here, checkout sellers in src/checkout/seller.ts).
 */
export function isAgentEndpoint(endpoint: string | null | undefined): endpoint is string {
  if (!endpoint) return false;
  try {
    const host = new URL(endpoint).hostname.toLowerCase().replace(/\.$/, '');
    return host !== 'invalid' && !host.endsWith('.invalid');
  } catch {
    return false;
  }
}

/**
 * The seller of a product, for checkout and attribution: the merchant whose catalog holds it. The
 * gateway's own catalog merchant has no agent of its own (its endpoint is a reserved .invalid
 * name), and a deactivated merchant's endpoint is not offered either: both answer null, so the
 * caller sends the shopper to the product link instead. undefined: no such product.
 */
export async function productSeller(db: Db, productId: number): Promise<ProductSeller | undefined> {
  if (!Number.isSafeInteger(productId) || productId < 1 || productId > 2_147_483_647) return undefined;
  const row = await db
    .selectFrom('products as p')
    .innerJoin('merchants as m', 'm.merchant_id', 'p.merchant_id')
    .select(['p.merchant_id', 'p.link', 'm.agent_endpoint', 'm.status'])
    .where('p.product_id', '=', productId)
    .executeTakeFirst();
  if (!row) return undefined;
  const offered = row.merchant_id !== CATALOG_MERCHANT_ID && row.status === 'active' && isAgentEndpoint(row.agent_endpoint);
  const endpoint = offered ? row.agent_endpoint : null;
  return { merchant_id: row.merchant_id, agent_endpoint: endpoint, product_link: row.link };
}

/** USD minor units (prices shown as price_usd, GMV) to the number the API shows. */
export function centsToNumber(cents: number | string): number {
  return fromMinorUnits(cents, 'USD');
}
