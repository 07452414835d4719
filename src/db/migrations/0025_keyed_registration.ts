import { sql, type Kysely } from 'kysely';

/**
 * Keyed registration under crashes (docs/OPERATIONS.md, failure modes): the keyed request that created
 * a merchant or agent (an id derived from its Idempotency-Key claim). A retry of that same request
 * after the API died between the commit and the answer finds its own row by it and answers as the
 * first run would have (created, with credentials the caller can use), instead of 401 for a token it
 * never saw.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table merchants add column created_by_request text`.execute(db);
  await sql`alter table commerce_agents add column created_by_request text`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
