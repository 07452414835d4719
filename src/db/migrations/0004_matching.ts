import { sql, type Kysely } from 'kysely';

/** Intents, proposals (+ their state transitions), match sessions, match tokens, payment authorizations. */
export async function up(db: Kysely<any>): Promise<void> {
  const jsonb = (fallback: string) => (c: any) => c.notNull().defaultTo(sql.raw(`'${fallback}'::jsonb`));
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);

  await db.schema
    .createTable('intents')
    .addColumn('intent_id', 'text', (c) => c.primaryKey())
    .addColumn('raw_query', 'text', (c) => c.notNull())
    .addColumn('normalized_query', 'text')
    .addColumn('intent_tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('target_audience', 'text')
    .addColumn('budget_min_cents', 'integer')
    .addColumn('budget_max_cents', 'integer')
    .addColumn('budget_currency', 'text')
    .addColumn('region', 'text')
    .addColumn('constraints', 'jsonb', jsonb('[]'))
    .addColumn('source_channel', 'text')
    .addColumn('resolution_source', 'text')
    .addColumn('resolution_summary', 'text')
    .addColumn('metadata', 'jsonb', jsonb('{}'))
    .addColumn('time_window', 'jsonb')
    .addColumn('asset_refs', 'jsonb', jsonb('[]'))
    .addColumn('attribution_chain', 'jsonb', jsonb('[]'))
    .addColumn('workflow', 'jsonb', jsonb('{}'))
    .addColumn('experience_context', 'jsonb', jsonb('{}'))
    .addColumn('developer_id', 'text')
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('intents_tags_idx').on('intents').using('gin').column('intent_tags').execute();

  await db.schema
    .createTable('proposals')
    .addColumn('proposal_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_agent_id', 'text', (c) => c.notNull().references('merchants.merchant_id'))
    .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.intent_id'))
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.product_id'))
    .addColumn('offer_title', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('inventory_status', 'text', (c) => c.notNull())
    .addColumn('shipping_commitment', 'jsonb', jsonb('{}'))
    .addColumn('commission_plan', 'jsonb', jsonb('{}'))
    .addColumn('service_terms', 'jsonb', jsonb('{}'))
    .addColumn('evidence', 'jsonb', jsonb('[]'))
    .addColumn('valid_until', 'timestamptz')
    .addColumn('proposal_score_inputs', 'jsonb', jsonb('{}'))
    .addColumn('product_snapshot', 'jsonb')
    .addColumn('metadata', 'jsonb', jsonb('{}'))
    .addColumn('provenance', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('proposal_state', 'text', (c) => c.notNull())
    .addColumn('trust_score', 'jsonb', jsonb('{}'))
    .addColumn('asset_refs', 'jsonb', jsonb('[]'))
    .addColumn('attribution_chain', 'jsonb', jsonb('[]'))
    .addColumn('workflow', 'jsonb', jsonb('{}'))
    .addColumn('experience_preview', 'jsonb', jsonb('{}'))
    .addColumn('experience_card', 'jsonb', jsonb('{}'))
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('proposals_intent_idx').on('proposals').columns(['intent_id', 'created_at']).execute();
  // The expiry sweep only ever looks at live proposals with a deadline.
  await sql`create index proposals_expiry_idx on proposals (valid_until) where proposal_state not in ('settled', 'expired') and valid_until is not null`.execute(
    db,
  );

  await db.schema
    .createTable('proposal_transitions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('proposal_id', 'text', (c) => c.notNull().references('proposals.proposal_id'))
    .addColumn('from_state', 'text', (c) => c.notNull())
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('proposal_transitions_proposal_idx').on('proposal_transitions').column('proposal_id').execute();

  await db.schema
    .createTable('match_sessions')
    .addColumn('match_session_id', 'text', (c) => c.primaryKey())
    .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.intent_id'))
    .addColumn('best_proposal_id', 'text')
    .addColumn('ranked_proposals', 'jsonb', jsonb('[]'))
    // The first RENDER_LIMIT_MAX of ranked_proposals: rendering never detoasts the full ranking.
    .addColumn('ranked_top', 'jsonb', jsonb('[]'))
    .addColumn('summary', 'jsonb', jsonb('{}'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('developer_id', 'text')
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .execute();

  await db.schema
    .createTable('match_tokens')
    .addColumn('match_token_id', 'text', (c) => c.primaryKey())
    .addColumn('match_session_id', 'text', (c) => c.notNull().references('match_sessions.match_session_id'))
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('proposal_id', 'text', (c) => c.notNull().references('proposals.proposal_id'))
    .addColumn('acceptance_state', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('intent_snapshot', 'jsonb', jsonb('{}'))
    .addColumn('proposal_snapshot', 'jsonb', jsonb('{}'))
    .addColumn('ranking_snapshot', 'jsonb', jsonb('{}'))
    .addColumn('trace_ids', 'jsonb', jsonb('{}'))
    .addColumn('signed_token', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', now)
    .execute();
  // One live token per proposal in a session: accepting twice (or concurrently) yields the same token.
  await sql`create unique index match_tokens_live_idx on match_tokens (match_session_id, proposal_id) where acceptance_state not in ('expired', 'revoked')`.execute(
    db,
  );

  await db.schema
    .createTable('payment_authorizations')
    .addColumn('authorization_id', 'text', (c) => c.primaryKey())
    .addColumn('match_token_id', 'text', (c) => c.notNull().unique().references('match_tokens.match_token_id'))
    .addColumn('proposal_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('authorized_at', 'timestamptz', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
