import { sql, type Kysely } from 'kysely';

/**
 * Savings on every recommendation's write.
 *
 * A match session's cards live in rec_cards only (under rec ids derived from the session and the
 * product, matchRecId): the copy each session also kept in match_sessions.top_cards doubled the
 * largest part of every recommendation's write. Every session since 0007 issued its cards into
 * rec_cards with it, so nothing is lost.
 *
 * A session's ranked_top is stored only when its ranking is longer than a render shows (null:
 * ranked_proposals is the top, as for every recommendation's three), instead of a second copy.
 *
 * The surge sweep's index holds only intents a surge may still be started for: intents the gateway
 * answers itself (answered_by set, every recommendation's) never get one, yet filled the index, and
 * the sweep walked an hour of them every 30 s (36 ms over 60,000 recommendations).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table match_sessions drop column top_cards`.execute(db);
  await sql`alter table match_sessions alter column ranked_top drop not null`.execute(db);
  await sql`drop index intents_surge_unstarted_idx`.execute(db);
  await sql`create index intents_surge_unstarted_idx on intents (created_at) where surge_started_at is null and answered_by is null`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
