import { sql, type Kysely } from 'kysely';

/**
 * Scheduled feed refreshes (docs/CATALOG.md, "Feeds that refresh themselves"). A registered feed is
 * removed by its merchant without losing its run history (runs reference it), so removal is a
 * status. A run records the bytes it read and where its time went, and which workflow ran it, so an
 * operator can go from a run to its history in the Temporal UI. A registered feed keeps what its
 * import needs besides the file: the currency of prices that name none and the storefront origin
 * (a Shopify export).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table merchant_feeds drop constraint merchant_feeds_status_check`.execute(db);
  await sql`alter table merchant_feeds
    add constraint merchant_feeds_status_check check (status in ('active', 'paused', 'deleted'))`.execute(db);
  await sql`alter table merchant_feeds add column default_currency text, add column store_url text`.execute(db);
  await sql`alter table feed_runs
    add column bytes_read bigint not null default 0,
    add column timings_ms jsonb not null default '{}'::jsonb,
    add column workflow_id text`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
