import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { Availability, ProductRow, ProductVariant } from '../db/schema-catalog';
import { fromMinorUnits } from '../money';

/**
 * A merchant's products by both of their ids (docs/CATALOG.md, "The merchant's ids and the
 * gateway's"). A feed keys each product by the merchant's own id (`external_id`: the row id, or the
 * item_group_id / Shopify Handle / ACP product id that groups variant rows) and lists the variants'
 * own ids and SKUs; the gateway numbers the product (`product_id`). Merchants name products by
 * either: the listing here shows both, and a merchant's own id is resolved within that merchant's
 * products only, never another's.
 */

/** How a caller names a product: exactly one of the members (the request schemas enforce that). */
export interface ProductRefInput {
  /** The gateway's catalog id: any product of the catalog. */
  product_id?: number;
  /** The merchant's own id of the product (its feed `id`, or the id that groups its variant rows). */
  external_id?: string;
  /** The feed id or the SKU of one of the merchant's variants, or the feed id of a product that lists none. */
  variant_id?: string;
}

/** The ref as a caller can read it in a message: `product 12`, `external_id "SKU-1"`, `variant_id "V-1"`. */
export function describeProductRef(ref: ProductRefInput): string {
  if (ref.product_id !== undefined) return `product ${ref.product_id}`;
  if (ref.external_id !== undefined) return `external_id ${JSON.stringify(ref.external_id)}`;
  return `variant_id ${JSON.stringify(ref.variant_id ?? '')}`;
}

/** The body member that named the product (where a product_not_found points). */
export const productRefMember = (ref: ProductRefInput): 'product_id' | 'external_id' | 'variant_id' =>
  ref.product_id !== undefined ? 'product_id' : ref.external_id !== undefined ? 'external_id' : 'variant_id';

/**
 * The products that refs name, in one statement however many there are (a runtime round checks all
 * its merchants' offers at once): `out[i]` is the product `wants[i].ref` names, or undefined. A
 * gateway id names any product of the catalog, as it always has; a merchant's own id (external_id,
 * variant_id) only a product of `wants[i].merchantId`. A variant_id is looked up first as the id of
 * a product without variants (an ungrouped feed row is its own product: the index on the merchant's
 * ids finds it), then among the variants' ids and SKUs, where a product still offered wins over a
 * discontinued one and a newer over an older (a variant that moved between products).
 */
export async function resolveProductRefs(
  db: Db,
  wants: Array<{ merchantId: string; ref: ProductRefInput }>,
): Promise<Array<ProductRow | undefined>> {
  if (!wants.length) return [];
  const col = <T>(pick: (w: { merchantId: string; ref: ProductRefInput }, i: number) => T | undefined) =>
    wants.map((w, i) => pick(w, i) ?? null);
  const { rows } = await sql<ProductRow & { want: number }>`
    select r.want, p.*
    from (
      select w.want, coalesce(g.product_id, e.product_id, v.product_id) as product_id
      from unnest(${col((_, i) => i)}::int[], ${col((w) => w.merchantId)}::text[], ${col((w) => w.ref.product_id)}::int[],
                  ${col((w) => w.ref.external_id ?? w.ref.variant_id)}::text[], ${col((w) => w.ref.variant_id !== undefined)}::boolean[])
        as w(want, merchant_id, product_id, own_id, is_variant)
      left join lateral (select q.product_id from products q where q.product_id = w.product_id) g on true
      left join lateral (
        select q.product_id from products q
        where w.own_id is not null and q.merchant_id = w.merchant_id and q.source = 'feed' and q.external_id = w.own_id
          and (not w.is_variant or q.variants = '[]'::jsonb)
        limit 1
      ) e on true
      left join lateral (
        select q.product_id from products q
        where w.is_variant and e.product_id is null and q.merchant_id = w.merchant_id and q.source = 'feed'
          and (q.variants @> jsonb_build_array(jsonb_build_object('id', w.own_id))
               or q.variants @> jsonb_build_array(jsonb_build_object('sku', w.own_id)))
        order by q.availability = 'discontinued', q.product_id desc
        limit 1
      ) v on true
    ) r
    join products p on p.product_id = r.product_id`.execute(db);
  const out: Array<ProductRow | undefined> = wants.map(() => undefined);
  for (const { want, ...row } of rows) out[want] = row as ProductRow;
  return out;
}

/** One product of a merchant's listing: the gateway's id beside the merchant's own ones. */
export interface MerchantProductView {
  product_id: number;
  external_id: string | null;
  title: string;
  price: { amount: number; currency: string; compare_at: number | null };
  link: string | null;
  availability: Availability;
  variants: Array<{
    variant_id: string;
    sku: string | null;
    title: string | null;
    price: number;
    availability: string;
    link: string | null;
  }>;
}

export const MERCHANT_PRODUCTS_DEFAULT_LIMIT = 100;
export const MERCHANT_PRODUCTS_MAX_LIMIT = 1000;

/**
 * A position in a merchant's listing, as the caller passes it back: the last external_id shown,
 * base64url-encoded so that any id (commas, slashes, any script) travels as a plain query value.
 * Opaque to callers; any well-formed value names some position (bytes that are not UTF-8 decode to
 * U+FFFD, a NUL, which no column holds, is dropped), so a forged one lists from there rather than fail.
 */
export const encodeProductCursor = (externalId: string) => Buffer.from(externalId, 'utf8').toString('base64url');
export const decodeProductCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8').replaceAll('\u0000', '');

/**
 * A page of the merchant's feed products in the order of their external_id, from after `cursor`
 * (the first page without one). The order is the one the per-merchant unique index on
 * (merchant_id, external_id) keeps, so each page is an index range however large the catalog is.
 * `next_cursor` is null on the last page.
 */
export async function listMerchantProducts(
  db: Db,
  merchantId: string,
  opts: { limit?: number; cursor?: string } = {},
): Promise<{ products: MerchantProductView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? MERCHANT_PRODUCTS_DEFAULT_LIMIT, 1), MERCHANT_PRODUCTS_MAX_LIMIT);
  let q = db
    .selectFrom('products')
    .select(['product_id', 'external_id', 'title', 'price_cents', 'original_price_cents', 'currency', 'link', 'availability', 'variants'])
    .where('merchant_id', '=', merchantId)
    .where('source', '=', 'feed')
    .orderBy('external_id')
    .limit(limit + 1);
  if (opts.cursor !== undefined) q = q.where('external_id', '>', decodeProductCursor(opts.cursor));
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    products: page.map(merchantProductView),
    next_cursor: rows.length > limit && last?.external_id != null ? encodeProductCursor(last.external_id) : null,
  };
}

type ListedRow = Pick<
  ProductRow,
  'product_id' | 'external_id' | 'title' | 'price_cents' | 'original_price_cents' | 'currency' | 'link' | 'availability' | 'variants'
>;

export function merchantProductView(row: ListedRow): MerchantProductView {
  const variants: ProductVariant[] = Array.isArray(row.variants) ? row.variants : [];
  return {
    product_id: row.product_id,
    external_id: row.external_id,
    title: row.title,
    price: {
      amount: fromMinorUnits(row.price_cents, row.currency),
      currency: row.currency,
      compare_at: row.original_price_cents != null ? fromMinorUnits(row.original_price_cents, row.currency) : null,
    },
    link: row.link,
    availability: row.availability,
    variants: variants.map((v) => ({
      variant_id: v.id,
      sku: v.sku,
      title: v.title,
      price: fromMinorUnits(v.price_cents, row.currency),
      availability: v.availability,
      link: v.link,
    })),
  };
}
