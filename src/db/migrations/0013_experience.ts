import type { Kysely } from 'kysely';

/** A confirm decision event links to the newest match token of its proposal (docs/EXPERIENCE.md). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('match_tokens_proposal_issued_idx').on('match_tokens').columns(['proposal_id', 'issued_at desc']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('match_tokens_proposal_issued_idx').execute();
}
