import { sql, type Kysely } from 'kysely';

/**
 * A version number for the catalog, bumped in the same transaction as any change to what catalog
 * caches hold (products, categories, videos, creators, the catalog merchant). API processes keep
 * catalog facts and re-read them only when this number moved, instead of on a timer: a reload of
 * the catalog snapshot is two aggregates over the whole catalog, and reloading every card's facts
 * every CARD_CACHE_TTL_S cost every request in flight a stall (docs/BENCHMARKS.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table catalog_version (only_row boolean primary key default true check (only_row), version bigint not null)`.execute(db);
  await sql`insert into catalog_version (version) values (1)`.execute(db);
  await sql`create function bump_catalog_version() returns trigger language plpgsql as $$
    begin
      update catalog_version set version = version + 1;
      return null;
    end $$`.execute(db);
  for (const table of ['products', 'categories', 'videos', 'creators']) {
    await sql
      .raw(
        `create trigger ${table}_bump_catalog_version after insert or update or delete or truncate on ${table}
            for each statement execute function bump_catalog_version()`,
      )
      .execute(db);
  }
  // The catalog merchant's readiness is part of the snapshot; other merchants' heartbeats are not.
  await sql`create trigger catalog_merchant_bump_catalog_version after update on merchants
            for each row when (new.merchant_id = 'gateway-catalog') execute function bump_catalog_version()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
