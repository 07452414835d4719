import type { Db } from '../db/connect';
import type { ProductRow } from '../db/schema-catalog';
import { AppError } from '../errors';
import { fromMinorUnits } from '../money';

export type { ProductRow };

/** The spec's Product object: prices as numbers, in USD only (other currencies show null). */
export interface ProductView {
  id: string;
  title: string;
  brand: string | null;
  price_usd: number | null;
  original_price_usd: number | null;
  discount_label: string | null;
  main_image: string | null;
  gallery: string[];
  category_l1: string | null;
  category_l2: string | null;
}

/** 404 for a product id a request names (`fields` points at the body member). */
export const productNotFound = (id: number) => new AppError(404, 'product_not_found', `No product ${id} in the catalog.`, { fields: ['product_id'] });

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
    title: row.title,
    brand: row.brand,
    price_usd: usd ? centsToNumber(row.price_cents) : null,
    original_price_usd: usd && row.original_price_cents != null ? centsToNumber(row.original_price_cents) : null,
    discount_label: row.discount_label,
    main_image: row.main_image,
    gallery: Array.isArray(row.gallery) ? row.gallery : [],
    category_l1: row.category_l1,
    category_l2: row.category_l2,
  };
}

/** USD minor units (prices shown as price_usd, GMV) to the number the API shows. */
export function centsToNumber(cents: number | string): number {
  return fromMinorUnits(cents, 'USD');
}
