import { sql, type Kysely } from 'kysely';

/**
 * The API's rate-limit buckets, shared by every replica of a deployment (rate-limiter-flexible's
 * Postgres store, api/middleware/rate-limit.ts). The layout is the library's own (it would create
 * this table at start; the migration does instead, so the API needs no DDL rights and no replica
 * races another to create it). `expire` is epoch milliseconds; expired rows are deleted by the
 * hourly housekeeping schedule (docs/OPERATIONS.md). Unlogged: buckets are worth nothing after a
 * crash (a lost window only resets counts), and skipping the WAL keeps the per-request upsert cheap.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unlogged table rate_limits (
    key varchar(255) primary key,
    points integer not null default 0,
    expire bigint
  )`.execute(db);
  await sql`create index rate_limits_expire_idx on rate_limits (expire)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table rate_limits`.execute(db);
}
