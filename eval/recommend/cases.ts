/**
 * The evaluation's shopper sentences and how each is graded (docs/RECOMMEND.md, "Evaluation").
 *
 * Real stores (real-cases.ts): the products a shopper would accept, named `${merchant}/${external_id}`
 * as the feed import keys them (a Shopify Handle, a Merchant Center item_group_id or id, an ACP
 * product id), each graded 2 (exactly what was asked) or 1 (acceptable), chosen by reading the
 * catalogs, never by running a ranker. A sentence with no grades is one nothing in the stores fits:
 * the right answer is no match (suggestions labelled as such, or nothing).
 *
 * Seeded catalog (seeded-cases.ts): graded by category, price and ship-to region, as
 * test/recommend-quality.cases.ts grades it; no `accept` means nothing fits.
 */

export type RealKind =
  | 'plain' // the product named the way the store names it
  | 'synonym' // a word for it the catalog does not use ("couch", "nightstand")
  | 'need' // a need or use, no product named ("something to keep my coffee hot on a hike")
  | 'attribute' // size, colour, material, capacity, fit ("4 person tent", "size M", "wool")
  | 'audience' // who it is for (gender, age, gift for)
  | 'budget' // a price bound
  | 'typo' // misspelt
  | 'brand' // a brand or store name that is not the content ("nike running shoes", "luma hoodie")
  | 'none'; // nothing in the stores fits

export interface RealCase {
  query: string;
  kind: RealKind;
  /** `${merchant}/${external_id}` → 2 exactly what was asked, 1 acceptable. Absent: nothing fits. */
  grades?: Record<string, 1 | 2>;
}

export type SeededKind = 'synonym' | 'need' | 'attribute' | 'audience' | 'budget' | 'typo' | 'region' | 'brand' | 'mixed' | 'none';

export interface SeededCase {
  query: string;
  kind: SeededKind;
  /** Sent as the region parameter. */
  region?: string;
  /** What the shopper accepts (as test/recommend-quality.cases.ts); absent: nothing fits. */
  accept?: {
    /** "L1" (any L2 under it) or "L1 > L2", names exactly as in TAXONOMY. */
    categories: string[];
    minPrice?: number;
    maxPrice?: number;
    region?: string;
  };
}

export const acceptableCount = (c: RealCase) => Object.keys(c.grades ?? {}).length;

export { REAL_CASES } from './real-cases';
export { SEEDED_CASES } from './seeded-cases';
