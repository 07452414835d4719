import { toMinorUnits } from '../../../money';
import type { ProductCardDocumentT } from '../../../schemas/catalog';
import { CATALOG_LOOKUP, CATALOG_SEARCH, catalogUcp } from './profile';

/**
 * UCP catalog answers (catalog/search.md, catalog/lookup.md, REST binding catalog/rest.md) made from the
 * gateway's Product Card Documents: this module only maps (no database, no ranking); the search and
 * lookup that find the cards are in src/recommend/ucp-catalog.ts.
 *
 * Ids (what a later checkout reads back, docs/PROTOCOLS.md):
 * - a product's id is its catalog product id (`"1234"`), the id GET /v1/products/{id}/card takes; the
 *   catalog row names its merchant, so the id alone finds both;
 * - a variant's id is `<catalog product id>` for the listing itself (a product its feed lists without
 *   variants, or another seller's listing of the same product), or `<catalog product id>:<feed variant
 *   id>` for one of its feed's variants (split at the first colon: the feed's id may hold more).
 */

/** The recommendation engine answers at most this many products per call. */
export const MAX_PAGE = 10;
/** Most ids one lookup takes; more is the spec's 400 `request_too_large`. */
export const MAX_LOOKUP_IDS = 50;

export interface VariantRef {
  productId: number;
  /** The feed variant id; null: the listing itself. */
  variantId: string | null;
}

/** Reads a product or variant id of this surface; null when it cannot be one. */
export function parseCatalogId(id: string): VariantRef | null {
  const colon = id.indexOf(':');
  const head = colon < 0 ? id : id.slice(0, colon);
  if (!/^[1-9]\d{0,9}$/.test(head)) return null;
  const productId = Number(head);
  if (productId > 2_147_483_647) return null;
  const variantId = colon < 0 ? null : id.slice(colon + 1);
  if (variantId === '') return null;
  return { productId, variantId };
}

export const variantIdOf = (productId: string, feedVariantId: string | null) =>
  feedVariantId === null ? productId : `${productId}:${feedVariantId}`;

type UcpPrice = { amount: number; currency: string };
type UcpVariant = Record<string, unknown> & { id: string; price: UcpPrice; availability: { available: boolean; status: string } };
export type UcpProduct = Record<string, unknown> & { id: string; variants: UcpVariant[] };

const AVAILABLE = new Set(['in_stock', 'preorder', 'backorder']);
const availability = (status: string) => ({ available: AVAILABLE.has(status), status });

/** Money of a card (major units of its currency) as UCP's minor units; negative or NaN reads as 0. */
function minor(amount: number, currency: string): UcpPrice {
  const m = toMinorUnits(amount, currency);
  return { amount: Number.isFinite(m) && m > 0 ? m : 0, currency };
}

const isWebUrl = (u: string | null | undefined): u is string => {
  if (!u) return false;
  try {
    return ['http:', 'https:'].includes(new URL(u).protocol);
  } catch {
    return false;
  }
};

/** One card as a UCP product: its own listing (or its feed's variants), then each other seller's offer. */
export function productOfCard(card: ProductCardDocumentT): UcpProduct {
  const p = card.product;
  const currency = p.price?.currency ?? 'USD';
  const base = p.price?.amount ?? p.price_usd ?? 0;
  const ownOffer = card.offers?.find((o) => o.product_id === p.id);
  const sellerOf = (name: string | null | undefined, merchantId: string) => ({ name: name ?? merchantId });
  const own: UcpVariant[] = (p.variants?.length ? p.variants : [null]).map((v) => {
    const status = v ? v.availability : (p.availability ?? 'in_stock');
    const image = v?.image ?? p.main_image;
    return {
      id: variantIdOf(p.id, v?.id ?? null),
      title: v?.title ?? p.title,
      description: { plain: v?.title ?? card.hero_pitch.one_liner ?? p.title },
      ...(v?.sku ? { sku: v.sku } : {}),
      price: minor(v ? v.price : base, currency),
      ...(v?.compare_at_price ? { list_price: minor(v.compare_at_price, currency) } : {}),
      availability: availability(status),
      ...(v?.options.length ? { options: v.options.map((o) => ({ name: o.name, label: o.value })) } : {}),
      ...(isWebUrl(image) ? { media: [{ type: 'image', url: image }] } : {}),
      ...(isWebUrl(ownOffer?.url ?? card.cta.primary.url) ? { url: ownOffer?.url ?? card.cta.primary.url } : {}),
      seller: sellerOf(p.seller?.name ?? ownOffer?.seller, p.seller?.merchant_id ?? ownOffer?.merchant_id ?? 'catalog'),
      metadata: { merchant_id: p.seller?.merchant_id ?? ownOffer?.merchant_id ?? null, catalog_product_id: p.id },
    };
  });
  const others: UcpVariant[] = (card.offers ?? [])
    .filter((o) => o.product_id !== p.id)
    .map((o) => ({
      id: variantIdOf(o.product_id, null),
      title: o.title,
      description: { plain: `${o.title}, sold by ${o.seller ?? o.merchant_id}` },
      price: minor(o.price.amount, o.price.currency),
      ...(o.price.compare_at ? { list_price: minor(o.price.compare_at, o.price.currency) } : {}),
      availability: availability(o.availability),
      ...(isWebUrl(o.url) ? { url: o.url } : {}),
      seller: sellerOf(o.seller, o.merchant_id),
      metadata: { merchant_id: o.merchant_id, catalog_product_id: o.product_id },
    }));
  const variants = [...own, ...others];
  const inCurrency = variants.filter((v) => v.price.currency === currency).map((v) => v.price.amount);
  const images = [p.main_image, ...p.gallery].filter(isWebUrl);
  const categories = [p.category_l1, p.category_l2 ? `${p.category_l1} > ${p.category_l2}` : null]
    .filter((c): c is string => !!c)
    .map((value) => ({ value, taxonomy: 'merchant' }));
  return {
    id: p.id,
    title: p.title,
    description: { plain: card.hero_pitch.one_liner || p.title },
    ...(isWebUrl(card.cta.primary.url) ? { url: card.cta.primary.url } : {}),
    ...(categories.length ? { categories } : {}),
    price_range: { min: { amount: Math.min(...inCurrency), currency }, max: { amount: Math.max(...inCurrency), currency } },
    ...(images.length ? { media: [...new Set(images)].map((url) => ({ type: 'image', url })) } : {}),
    variants,
    // Where the product came from in the gateway: the card's rec_id attributes an order to it.
    metadata: { rec_id: card.rec_id, merchant_id: p.seller?.merchant_id ?? null, ...(p.brand ? { brand: p.brand } : {}) },
  };
}

export interface PriceFilter {
  min?: number;
  max?: number;
}

/** Keeps the variants inside the price filter (minor units, in each variant's own currency); null: none is left. */
function withinPrice(product: UcpProduct, f: PriceFilter | undefined): UcpProduct | null {
  if (!f || (f.min === undefined && f.max === undefined)) return product;
  const variants = product.variants.filter(
    (v) => (f.min === undefined || v.price.amount >= f.min) && (f.max === undefined || v.price.amount <= f.max),
  );
  if (!variants.length) return null;
  const amounts = variants.map((v) => v.price.amount);
  const currency = variants[0]!.price.currency;
  return {
    ...product,
    variants,
    price_range: { min: { amount: Math.min(...amounts), currency }, max: { amount: Math.max(...amounts), currency } },
  };
}

/** The search answer for the cards a recommendation ranked (one page: a cursor is past its end). */
export function searchAnswer(cards: ProductCardDocumentT[], price: PriceFilter | undefined, query: string) {
  const products = cards.map(productOfCard).flatMap((p) => withinPrice(p, price) ?? []);
  return {
    ucp: catalogUcp(CATALOG_SEARCH),
    products,
    pagination: { has_next_page: false },
    ...(products.length ? {} : { messages: [{ type: 'info', code: 'no_results', content: `Nothing in the catalog matches "${query}".` }] }),
  };
}

/** The variant a product id features: the first available one, else the first. */
const featured = (p: UcpProduct) => p.variants.find((v) => v.availability.available) ?? p.variants[0]!;

/** The catalog products the ids name (the ones that can name any), for the caller to load. */
export const productIdsOf = (ids: string[]) => ids.flatMap((id) => parseCatalogId(id)?.productId ?? []);

/** Batch lookup: each id resolves to its product, with the variants it names (`exact`) or features (`featured`). */
export function lookupAnswer(ids: string[], cards: Map<string, ProductCardDocumentT>, price: PriceFilter | undefined) {
  const byProduct = new Map<string, { product: UcpProduct; inputs: Map<string, Array<{ id: string; match: 'exact' | 'featured' }>> }>();
  const notFound: string[] = [];
  for (const id of new Set(ids)) {
    const ref = parseCatalogId(id);
    const card = ref && cards.get(String(ref.productId));
    const product = card ? productOfCard(card) : null;
    const variant = product && (ref!.variantId === null ? featured(product) : product.variants.find((v) => v.id === id));
    if (!product || !variant) {
      notFound.push(id);
      continue;
    }
    const entry = byProduct.get(product.id) ?? { product, inputs: new Map() };
    byProduct.set(product.id, entry);
    entry.inputs.set(variant.id, [...(entry.inputs.get(variant.id) ?? []), { id, match: ref!.variantId === null ? 'featured' : 'exact' }]);
  }
  const products = [...byProduct.values()].flatMap(({ product, inputs }) => {
    const variants = product.variants.filter((v) => inputs.has(v.id)).map((v) => ({ ...v, inputs: inputs.get(v.id)! }));
    return withinPrice({ ...product, variants }, price) ?? [];
  });
  return {
    ucp: catalogUcp(CATALOG_LOOKUP),
    products,
    ...(notFound.length ? { messages: notFound.map((id) => ({ type: 'info', code: 'not_found', content: id })) } : {}),
  };
}

/** Get product: the product of one id with its variants (the one a variant id names first), or the spec's not_found outcome. */
export function productAnswer(id: string, card: ProductCardDocumentT | undefined, price: PriceFilter | undefined) {
  const ref = parseCatalogId(id);
  const product = card && ref ? productOfCard(card) : null;
  const named = product && (ref!.variantId === null || product.variants.some((v) => v.id === id));
  const ordered =
    named && ref!.variantId !== null
      ? { ...product, variants: [...product.variants.filter((v) => v.id === id), ...product.variants.filter((v) => v.id !== id)] }
      : product;
  const answer = named && ordered ? withinPrice(ordered, price) : null;
  if (answer) return { ucp: catalogUcp(CATALOG_LOOKUP), product: answer };
  return {
    ucp: { ...catalogUcp(CATALOG_LOOKUP), status: 'error' },
    messages: [{ type: 'error', code: 'not_found', content: `Product not found: ${id}`, severity: 'unrecoverable' }],
  };
}
