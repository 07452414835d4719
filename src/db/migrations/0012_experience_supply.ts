import { sql, type Kysely } from 'kysely';

/**
 * Experience commerce and supply operations (issue 8): decision events, reputation history, the
 * platform-affiliate order import table, and reconciliation runs with their discrepancies.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);
  const jsonb = (fallback: string) => (c: any) => c.notNull().defaultTo(sql.raw(`'${fallback}'::jsonb`));

  await db.schema
    .createTable('decision_events')
    .addColumn('feedback_id', 'text', (c) => c.primaryKey())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.references('intents.intent_id'))
    .addColumn('proposal_id', 'text', (c) => c.references('proposals.proposal_id'))
    .addColumn('match_token_id', 'text', (c) => c.references('match_tokens.match_token_id'))
    // Derived from the proposal (or the token's proposal) so SLA and reputation need no joins.
    .addColumn('merchant_id', 'text')
    .addColumn('product_id', 'integer')
    // The shopper-side agent whose taste the event tells about (experience feed).
    .addColumn('agent_id', 'text')
    .addColumn('payload', 'jsonb', jsonb('{}'))
    .addColumn('developer_id', 'text')
    .addColumn('created_at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('decision_events_merchant_idx').on('decision_events').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('decision_events_agent_idx').on('decision_events').columns(['agent_id', 'created_at']).execute();
  await db.schema.createIndex('decision_events_proposal_idx').on('decision_events').column('proposal_id').execute();

  await db.schema
    .createTable('merchant_reputation_snapshots')
    .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.merchant_id'))
    .addColumn('score', 'integer', (c) => c.notNull())
    .addColumn('basis', 'jsonb', (c) => c.notNull())
    .addColumn('window_days', 'integer', (c) => c.notNull())
    .addColumn('computed_at', 'timestamptz', now)
    .execute();
  await db.schema
    .createIndex('merchant_reputation_snapshots_merchant_idx')
    .on('merchant_reputation_snapshots')
    .columns(['merchant_id', 'computed_at'])
    .execute();

  // Rows of a platform-affiliate order report (docs/RECONCILIATION.md). The platform's order id is not
  // unique here on purpose: a report that lists an order twice is a discrepancy to report, not to drop.
  await db.schema
    .createTable('affiliate_orders')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('platform_affiliate'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('rec_id', 'text')
    .addColumn('match_token_id', 'text')
    .addColumn('checkout_id', 'text')
    .addColumn('product_id', 'integer')
    .addColumn('merchant_id', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('commission_cents', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('completed'))
    .addColumn('ordered_at', 'timestamptz', (c) => c.notNull())
    .addColumn('import_batch', 'text', (c) => c.notNull())
    .addColumn('line', 'integer')
    .addColumn('raw', 'jsonb', jsonb('{}'))
    .addColumn('imported_at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('affiliate_orders_ordered_idx').on('affiliate_orders').columns(['source', 'ordered_at']).execute();
  await db.schema.createIndex('affiliate_orders_order_idx').on('affiliate_orders').column('order_id').execute();
  await db.schema.createIndex('affiliate_orders_rec_idx').on('affiliate_orders').column('rec_id').execute();
  await db.schema.createIndex('affiliate_orders_token_idx').on('affiliate_orders').column('match_token_id').execute();
  await db.schema.createIndex('affiliate_orders_checkout_idx').on('affiliate_orders').column('checkout_id').execute();

  await db.schema
    .createTable('reconciliation_runs')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('window_end', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('summary', 'jsonb', jsonb('{}'))
    .addColumn('error', 'text')
    .addColumn('started_at', 'timestamptz', now)
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('reconciliation_runs_started_idx').on('reconciliation_runs').column('started_at').execute();

  await db.schema
    .createTable('reconciliation_discrepancies')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('reconciliation_runs.run_id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('ref_type', 'text')
    .addColumn('ref_id', 'text')
    .addColumn('expected_amount_cents', 'integer')
    .addColumn('actual_amount_cents', 'integer')
    .addColumn('currency', 'text')
    .addColumn('detail', 'jsonb', jsonb('{}'))
    .execute();
  await db.schema
    .createIndex('reconciliation_discrepancies_run_idx')
    .on('reconciliation_discrepancies')
    .columns(['run_id', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'reconciliation_discrepancies',
    'reconciliation_runs',
    'affiliate_orders',
    'merchant_reputation_snapshots',
    'decision_events',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
