import { sql, type Kysely } from 'kysely';

/** The reserved merchant that catalog proposals (provenance `catalog`) are filed under. */
export const CATALOG_MERCHANT_ID = 'gateway-catalog';

/**
 * Recommendation retrieval (the tiers of docs/CONTRACT.md#recommendation): full-text search over a weighted document of title,
 * category names and brand, and trigram indexes on titles for the substring and fuzzy tiers.
 * Plus the reserved merchant that GET /v1/recommend files its catalog proposals under, and the mark
 * of intents the gateway answers without Intent.Surge.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await sql`
    alter table products add column search_tsv tsvector generated always as (
      setweight(to_tsvector('english', title), 'A') ||
      setweight(to_tsvector('english', coalesce(category_l2, '') || ' ' || coalesce(category_l1, '')), 'B') ||
      setweight(to_tsvector('english', coalesce(brand, '')), 'C')
    ) stored`.execute(db);
  // fastupdate off: a bulk load (seed, feed import) would otherwise leave its rows in the GIN pending
  // list, which every search scans linearly until a vacuum merges it.
  await sql`create index products_search_tsv_idx on products using gin (search_tsv) with (fastupdate = off)`.execute(db);
  await sql`create index products_title_trgm_idx on products using gin (title gin_trgm_ops) with (fastupdate = off)`.execute(db);
  await db.schema.createIndex('videos_published_idx').on('videos').column('published_at').execute();

  // Intents the gateway answers itself (a recommendation, a commerce runtime that queries the
  // merchants directly) are not fanned out by Intent.Surge; the sweep skips them.
  await db.schema.alterTable('intents').addColumn('answered_by', 'text').execute();

  // No registration token hashes to 'none' and it subscribes to no tags: nobody can act as it,
  // and Intent.Surge never dispatches to it.
  await db
    .insertInto('merchants')
    .values({
      merchant_id: CATALOG_MERCHANT_ID,
      agent_endpoint: 'https://gateway.invalid/catalog',
      capabilities: sql`'{catalog_offers}'`,
      metadata: JSON.stringify({
        system: true,
        description: 'Offers taken from the gateway catalog at catalog price by GET /v1/recommend.',
      }),
      // What the catalog really commits to: the catalog price until the session ends, attribution by rec_id and match token.
      workflow_context: JSON.stringify({
        origin_workflow: 'gateway_recommend',
        accepted_intent_shapes: ['natural_language'],
        proposal_response_sla_seconds: 1,
        checkout_modes: ['match_token_checkout', 'payment_authorization'],
      }),
      trust_evidence_policy: JSON.stringify({
        community_proof_required: false,
        accepted_sources: ['creator_video_outcomes'],
        contradiction_handling: 'flag',
      }),
      agent_ready_profile: JSON.stringify({
        destination_strategy: 'merchant_site',
        proposal_contract: 'committed',
        attribution_mode: 'match_token',
      }),
      token_hash: 'none',
      webhook_secret_sealed: 'none',
    })
    .onConflict((oc) => oc.column('merchant_id').doNothing())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
