import { sql, type Kysely } from 'kysely';

/**
 * Sentence embeddings of the catalog's products (docs/RECOMMEND.md, "The semantic tier"): one row
 * per product, for the model that made it (`model_id`) and the text it was made from (`text_hash`,
 * so a product whose words changed is embedded again). `vec` is the unit vector as little-endian
 * float32. `seq` grows with every write: an API process keeps its in-memory index current by reading
 * the rows past the last `seq` it holds. No foreign key to the partitioned products table: a large
 * import attaches partitions in bulk, and a product's removal deletes its row (src/catalog/embeddings.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence product_embeddings_seq`.execute(db);
  await sql`create table product_embeddings (
    product_id bigint primary key,
    model_id text not null,
    text_hash bytea not null,
    vec bytea not null,
    seq bigint not null default nextval('product_embeddings_seq'),
    embedded_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index product_embeddings_seq_idx on product_embeddings (seq)`.execute(db);
  // The catalog version (migration 0019) the last finished walk of a model's embedding flow reached:
  // a scheduled run finds nothing due while it is still the catalog's.
  await sql`create table catalog_embedding_state (
    model_id text primary key,
    catalog_version text not null,
    finished_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table catalog_embedding_state`.execute(db);
  await sql`drop table product_embeddings`.execute(db);
  await sql`drop sequence product_embeddings_seq`.execute(db);
}
