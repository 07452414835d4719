import { sql, type Kysely } from 'kysely';

/**
 * Exactly-once under crashes (docs/OPERATIONS.md, failure modes):
 * - `idempotency_keys.resource_seed`: fixed when a key is first claimed and kept when a retry takes
 *   over the claim of a dead process, so the ids a keyed request creates (intent, runtime, workflow)
 *   are the same in every run of it and a takeover finishes the first run instead of starting another.
 * - `idempotency_keys.response_sealed`: the stored response is an AES-GCM envelope (KEY_ENCRYPTION_KEY)
 *   because it carries a secret (registration token, webhook secret).
 * - a partial index over the runtimes still open, which the runtime reconciler scans every minute.
 * - match sessions by intent: a retried rank step finds the session its first attempt created.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table idempotency_keys add column resource_seed text`.execute(db);
  await sql`alter table idempotency_keys add column response_sealed boolean not null default false`.execute(db);
  await sql`create index commerce_runtimes_open_idx on commerce_runtimes (started_at) where finished_at is null`.execute(db);
  await sql`create index match_sessions_intent_idx on match_sessions (intent_id)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
