/**
 * The catalog-embedding flow (docs/RECOMMEND.md, "The semantic tier"): a walk over the catalog by
 * product id that embeds every product whose vector is missing or stale, one at a time (a fixed
 * workflow id), started by the system-chores loop when the catalog changed and at once by an import
 * (src/catalog-embedding/client.ts). What clients (the loop's activity, the API, tests) import. No
 * Node or activity imports here.
 */

export const CATALOG_EMBEDDING_WORKFLOW = 'catalogEmbedding';
export const CATALOG_EMBEDDING_PROGRESS_QUERY = 'progress';

/** Where a walk stands; a continued run takes it as its input. */
export interface CatalogEmbeddingProgress {
  /** The catalog version the walk brings the vectors to (recorded when it reaches the end). */
  catalogVersion: string;
  /** Products in the catalog when the walk started. */
  total: number;
  /** The last product id looked at. */
  after: number;
  scanned: number;
  embedded: number;
  /** Workflow time the walk started (ms since the epoch), for its rate. */
  startedAtMs: number;
}

export interface CatalogEmbeddingOutcome {
  status: 'up_to_date' | 'embedded';
  scanned: number;
  embedded: number;
}
