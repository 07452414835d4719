import { sql, type Kysely } from 'kysely';

/**
 * Ownership (docs/TENANCY.md): every record an API caller creates names the caller's developer. Intents,
 * match sessions, runtimes, mandates and decision events already carried `developer_id`; match tokens,
 * payment authorizations and agentic checkouts get it here, copied from the record they hang off (a
 * token from its session, an authorization from its token, a checkout from its intent), so an
 * ownership check is one comparison on the row it reads instead of a join back to the intent.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table match_tokens add column developer_id text`.execute(db);
  await sql`alter table payment_authorizations add column developer_id text`.execute(db);
  await sql`alter table agentic_checkouts add column developer_id text`.execute(db);
  await sql`update match_tokens t set developer_id = s.developer_id from match_sessions s
            where s.match_session_id = t.match_session_id and s.developer_id is not null`.execute(db);
  await sql`update payment_authorizations a set developer_id = t.developer_id from match_tokens t
            where t.match_token_id = a.match_token_id and t.developer_id is not null`.execute(db);
  await sql`update agentic_checkouts k set developer_id = i.developer_id from intents i
            where i.intent_id = k.intent_id and i.developer_id is not null`.execute(db);
  // A read that presents X-Merchant-Token finds its merchant by the token's hash.
  await sql`create index merchants_token_hash_idx on merchants (token_hash)`.execute(db);
  // A developer's own attribution report reads its tokens by owner.
  await sql`create index match_tokens_developer_idx on match_tokens (developer_id, issued_at) where developer_id is not null`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
