import { z } from 'zod';
import type { SessionMerchant } from '../merchant-session';
import { ucpCall, UcpCallError, type UcpClientDeps } from './client';
import { readBusinessSummary } from './discovery';
import { messagesOfError } from './wire';

/**
 * UCP catalog search (catalog/search.md, REST `POST /catalog/search`, 2026-04-08) for a business that
 * declares `dev.ucp.shopping.catalog.search`. Each product comes back as one item: its featured
 * variant (the first one in stock, else the first), whose id is the `item.id` a checkout takes.
 */

export interface UcpCatalogQuery {
  query: string;
  limit: number;
  /** Minor units of `currency`. */
  max_price?: number;
  currency?: string;
}

export interface UcpCatalogItem {
  /** The variant id (what a checkout line item's `item.id` takes). */
  item_id: string;
  product_id: string;
  title: string;
  price_minor: number;
  currency: string;
  url: string | null;
  image?: string;
  in_stock: boolean;
}

export class UcpCatalogUnsupported extends Error {
  constructor(merchantId: string) {
    super(`merchant ${merchantId} does not declare UCP catalog search`);
    this.name = 'UcpCatalogUnsupported';
  }
}

const price = z.looseObject({ amount: z.number().int(), currency: z.string() });
const media = z.array(z.looseObject({ type: z.string(), url: z.string() })).optional();
const SearchResponse = z.looseObject({
  products: z.array(
    z.looseObject({
      id: z.string(),
      title: z.string(),
      url: z.string().optional(),
      media,
      variants: z.array(
        z.looseObject({
          id: z.string(),
          title: z.string().optional(),
          url: z.string().optional(),
          price,
          media,
          availability: z.looseObject({ available: z.boolean().optional(), status: z.string().optional() }).optional(),
        }),
      ),
    }),
  ),
});

/** Whether the variant can be bought now (available, and not a status that says otherwise). */
const inStock = (a: { available?: boolean; status?: string } | undefined) =>
  a?.available !== false && !['out_of_stock', 'discontinued'].includes(a?.status ?? '');

export async function searchUcpCatalog(deps: UcpClientDeps, merchant: SessionMerchant, q: UcpCatalogQuery): Promise<UcpCatalogItem[]> {
  const business = readBusinessSummary(merchant.profile);
  if (!business || business.version !== '2026-04-08' || !business.catalog_search) throw new UcpCatalogUnsupported(merchant.merchant_id);
  const limit = Math.max(1, Math.min(100, Math.floor(q.limit)));
  const body: Record<string, unknown> = { query: q.query, pagination: { limit } };
  if (q.currency) body.context = { currency: q.currency };
  if (q.max_price !== undefined) body.filters = { price: { max: q.max_price } };
  const ans = await ucpCall(deps, business, { method: 'POST', path: '/catalog/search', body });
  if (ans.status >= 400) {
    const why = messagesOfError(ans.body)
      .map((m) => m.content ?? m.code)
      .filter(Boolean)
      .join('; ');
    throw new UcpCallError(`catalog search answered HTTP ${ans.status}${why ? `: ${why}` : ''}`, false, ans.status);
  }
  const parsed = SearchResponse.safeParse(ans.body);
  if (!parsed.success) throw new UcpCallError('catalog search: the answer is not a UCP search response', false, ans.status);
  const items: UcpCatalogItem[] = [];
  for (const p of parsed.data.products) {
    const v = p.variants.find((x) => inStock(x.availability)) ?? p.variants[0];
    if (!v) continue;
    // The business should have applied the filter; a price above it is still not returned.
    if (q.max_price !== undefined && (!q.currency || v.price.currency === q.currency) && v.price.amount > q.max_price) continue;
    const image = (v.media ?? p.media ?? []).find((m) => m.type === 'image')?.url;
    const multi = p.variants.length > 1 && v.title && v.title !== p.title;
    items.push({
      item_id: v.id,
      product_id: p.id,
      title: multi ? `${p.title} (${v.title})` : p.title,
      price_minor: v.price.amount,
      currency: v.price.currency,
      url: v.url ?? p.url ?? null,
      ...(image ? { image } : {}),
      in_stock: inStock(v.availability),
    });
    if (items.length >= limit) break;
  }
  return items;
}
