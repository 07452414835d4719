import type { CardFactsCache } from '../catalog/cards';
import type { Db } from '../db/connect';
import { lookupAnswer, MAX_PAGE, productAnswer, productIdsOf, searchAnswer, type PriceFilter } from '../protocols/ucp/business/catalog';
import { issueCards } from './issued-cards';
import { recommend, type RecommendDeps } from './recommend';

/**
 * The gateway's UCP catalog (docs/PROTOCOLS.md) over every merchant it carries: search is the
 * recommendation of GET /v1/recommend (same ranking; the intent, proposals and match session are
 * recorded under the caller, so a later checkout and the attribution report find them), lookup issues
 * the product cards of the ids asked as GET /v1/products/{id}/card does. The UCP shapes are the edge's
 * (src/protocols/ucp/business/catalog.ts).
 */

export interface UcpSearchInput {
  query: string;
  limit: number;
  region?: string;
  price?: PriceFilter;
  /** A cursor; this business hands none out (one page), so any cursor is past the end. */
  cursor?: string;
}

export async function searchUcpBusinessCatalog(deps: RecommendDeps, input: UcpSearchInput, caller: { developerId?: string }) {
  if (input.cursor !== undefined) return searchAnswer([], undefined, input.query);
  const limit = Math.min(MAX_PAGE, input.limit);
  const rec = await recommend(
    deps,
    { intent: input.query, limit, channel: 'ucp', ...(input.region ? { region: input.region } : {}) },
    caller,
  );
  return searchAnswer(rec.items, input.price, input.query);
}

export interface UcpLookupDeps {
  db: Db;
  publicBaseUrl: string;
  cardFacts?: CardFactsCache;
}

/** Cards for the catalog products, issued so their links attribute. */
async function cardsFor(deps: UcpLookupDeps, productIds: number[]) {
  const cards = await issueCards(deps.db, productIds, {
    publicBaseUrl: deps.publicBaseUrl,
    channel: 'ucp',
    source: 'product_card',
    cache: deps.cardFacts,
  });
  return new Map(cards.map((c) => [c.product.id, c]));
}

export async function lookupUcpBusinessCatalog(deps: UcpLookupDeps, ids: string[], price: PriceFilter | undefined) {
  return lookupAnswer(ids, await cardsFor(deps, productIdsOf(ids)), price);
}

export async function getUcpBusinessProduct(deps: UcpLookupDeps, id: string, price: PriceFilter | undefined) {
  const cards = await cardsFor(deps, productIdsOf([id]));
  return productAnswer(id, cards.values().next().value, price);
}
