import { sql, type Kysely } from 'kysely';

/**
 * A match session's cards live in rec_cards only (under rec ids derived from the session and the
 * product, matchRecId): the copy each session also kept in match_sessions.top_cards doubled the
 * largest part of every recommendation's write. Every session since 0007 issued its cards into
 * rec_cards with it, so nothing is lost.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table match_sessions drop column top_cards`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
