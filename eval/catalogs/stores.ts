import path from 'node:path';

/**
 * The real stores of the evaluation (sources and licences: eval/catalogs/README.md), each imported
 * for a merchant of its own by the gateway's feed import, in the format its platform exports.
 */
export interface EvalStore {
  /** The registered merchant whose catalog this is; graded products are named `${merchantId}/${external_id}`. */
  merchantId: string;
  /** The feed file, relative to eval/catalogs/. */
  file: string;
  /** A Shopify export's storefront origin (its products' links). */
  storeUrl?: string;
}

export const CATALOGS_DIR = import.meta.dirname;

export const STORES: EvalStore[] = [
  // Shopify's partner sample product CSVs, imported exactly as published.
  { merchantId: 'partners-apparel', file: 'shopify-partners/apparel.csv', storeUrl: 'https://partners-apparel.example' },
  { merchantId: 'partners-home', file: 'shopify-partners/home-and-garden.csv', storeUrl: 'https://partners-home.example' },
  { merchantId: 'partners-jewelry', file: 'shopify-partners/jewelery.csv', storeUrl: 'https://partners-jewelry.example' },
  // Magento's Luma sample store as a Merchant Center TSV (eval/catalogs/derive.ts).
  { merchantId: 'luma', file: 'magento-luma/feed.tsv' },
  // Vendure's demo catalog as an ACP product feed.
  { merchantId: 'vendure-demo', file: 'vendure-demo/feed.jsonl' },
  // The UCP samples' flower shop (the gateway's CSV) and grocery business agent (Merchant Center RSS).
  { merchantId: 'ucp-flower-shop', file: 'ucp-flower-shop/feed.csv' },
  { merchantId: 'ucp-grocery', file: 'ucp-grocery/feed.xml' },
];

export const storeFile = (s: EvalStore) => path.join(CATALOGS_DIR, s.file);
