import type { Kysely } from 'kysely';

/**
 * Merchant SLA and reputation (issue 8) read a merchant's proposals by time and each proposal's match
 * tokens; neither lookup had an index (proposals were only indexed by intent, tokens by session).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('proposals_merchant_idx').on('proposals').columns(['merchant_agent_id', 'created_at']).execute();
  await db.schema.createIndex('match_tokens_proposal_idx').on('match_tokens').column('proposal_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('match_tokens_proposal_idx').execute();
  await db.schema.dropIndex('proposals_merchant_idx').execute();
}
