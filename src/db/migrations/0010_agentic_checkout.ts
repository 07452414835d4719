import { sql, type Kysely } from 'kysely';

/**
 * Agentic checkout (docs/CHECKOUT.md): one row per checkout, written only by the activities of
 * the `agenticCheckout` workflow (`checkout-<checkout_id>`), read by GET /v1/agentic-checkout/{id}.
 * Rows are kept for audit: states change, nothing is deleted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agentic_checkouts')
    .addColumn('checkout_id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('awaiting_confirmation', 'confirming', 'confirmed', 'expired', 'failed')`),
    )
    .addColumn('buyer_agent_id', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.intent_id'))
    .addColumn('proposal_id', 'text', (c) => c.notNull().references('proposals.proposal_id'))
    .addColumn('match_token_id', 'text', (c) => c.notNull().references('match_tokens.match_token_id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    // Plan total (line items + shipping) in minor units, and its currency.
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('plan', 'jsonb', (c) => c.notNull())
    .addColumn('shipping_address', 'jsonb')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('consent', 'jsonb')
    .addColumn('payment_authorization_id', 'text')
    .addColumn('receipt', 'jsonb')
    .addColumn('audit_trail', 'jsonb', (c) =>
      c
        .notNull()
        .defaultTo(sql`'[]'::jsonb`)
        .check(sql`jsonb_typeof(audit_trail) = 'array'`),
    )
    .addColumn('failure', 'jsonb')
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('expired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One live checkout per match token: a second plan on a token in use is refused (409).
  await sql`create unique index agentic_checkouts_live_token_key on agentic_checkouts (match_token_id)
            where status in ('awaiting_confirmation', 'confirming', 'confirmed')`.execute(db);
  await db.schema.createIndex('agentic_checkouts_intent_idx').on('agentic_checkouts').columns(['intent_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agentic_checkouts').execute();
}
