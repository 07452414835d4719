import { sql, type Kysely } from 'kysely';

/**
 * Proof feed (docs/PROOF.md). Community evidence records are imported from JSONL files (never crawled)
 * and served by GET /v1/proof-feed?source=community; see docs/PROOF.md. Also an index for the
 * commerce variant, which ranks outcome-backed videos.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('community_evidence')
    .addColumn('evidence_id', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('reddit', 'forum')`))
    // Subreddit (without `r/`) or forum board, as the source spells it; filters compare lower-cased.
    .addColumn('community', 'text', (c) => c.notNull())
    .addColumn('thread_url', 'text', (c) => c.notNull())
    // The source's own id of the post or comment: with `source`, the dedupe key of every import.
    .addColumn('post_id', 'text', (c) => c.notNull())
    // Pseudonymous: SHA-256 of the source and the author handle; the handle itself is never stored.
    .addColumn('author_hash', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    // Quoting stays short: the excerpt is cut at import, and the bound is enforced here as well.
    .addColumn('excerpt', 'text', (c) => c.notNull().check(sql`char_length(excerpt) <= 500`))
    .addColumn('product_id', 'integer', (c) => c.references('products.product_id'))
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('claims', 'jsonb', (c) => c.notNull().check(sql`jsonb_typeof(claims) = 'array'`))
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('comment_count', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`comment_count >= 0`),
    )
    .addColumn('posted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('imported_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('import_batch', 'text', (c) => c.notNull())
    .addUniqueConstraint('community_evidence_source_post_key', ['source', 'post_id'])
    .execute();

  // The intent filter: what the thread is about weighs most, then its title, then what was said.
  await sql`
    alter table community_evidence add column search_tsv tsvector generated always as (
      setweight(to_tsvector('english', product_name), 'A') ||
      setweight(to_tsvector('english', title), 'B') ||
      setweight(to_tsvector('english', excerpt), 'C') ||
      setweight(to_tsvector('english', claims), 'D')
    ) stored`.execute(db);
  await sql`create index community_evidence_search_tsv_idx on community_evidence using gin (search_tsv)`.execute(db);
  await sql`create index community_evidence_community_idx on community_evidence (lower(community))`.execute(db);
  await db.schema.createIndex('community_evidence_product_idx').on('community_evidence').column('product_id').execute();
  // The automation plan reports the latest import and how many records it holds.
  await db.schema.createIndex('community_evidence_imported_idx').on('community_evidence').column('imported_at').execute();
  await db.schema.createIndex('community_evidence_batch_idx').on('community_evidence').column('import_batch').execute();

  // The commerce feed's default page is the top of this order, read straight off the index.
  await sql`create index videos_proof_rank_idx on videos (conversion_score desc, gmv_cents desc, task_id) where orders > 0 and gmv_cents > 0`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
