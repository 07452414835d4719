import { sql, type Kysely } from 'kysely';

/**
 * The large jsonb values that every recommendation and match session writes (card documents,
 * rankings, product snapshots) are compressed with lz4 instead of the default pglz: under
 * GET /v1/recommend load, pglz compression was about a tenth of Postgres' time
 * (docs/BENCHMARKS.md). Only new values are affected; a server built without lz4 keeps pglz.
 */
const DOCUMENT_COLUMNS: Record<string, string[]> = {
  rec_cards: ['document'],
  match_sessions: ['ranked_proposals', 'ranked_top', 'top_cards'],
  proposals: ['evidence', 'product_snapshot', 'experience_preview', 'experience_card'],
};

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, columns] of Object.entries(DOCUMENT_COLUMNS)) {
    const alter = columns.map((c) => `alter column ${c} set compression lz4`).join(', ');
    await sql.raw(`do $$ begin alter table ${table} ${alter}; exception when feature_not_supported then null; end $$`).execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
