import { sql, type Kysely } from 'kysely';

/** Intent.Surge dispatch (docs/DISPATCH.md): one delivery per (intent, merchant) and every attempt at it. */
export async function up(db: Kysely<any>): Promise<void> {
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);

  // When the surge workflow for an intent was started; null = still to start (the API sweeps these).
  await db.schema.alterTable('intents').addColumn('surge_started_at', 'timestamptz').execute();
  await db.schema
    .createIndex('intents_surge_unstarted_idx')
    .on('intents')
    .column('created_at')
    .where(sql.ref('surge_started_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.intent_id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.merchant_id'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'inflight', 'delivered', 'dlq')`))
    .addColumn('endpoint', 'text', (c) => c.notNull())
    // The exact JSON body every attempt sends: stable across retries, so merchants can de-duplicate.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replays', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('dlq_at', 'timestamptz')
    .addColumn('dlq_reason', 'text')
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .addUniqueConstraint('deliveries_intent_merchant_key', ['intent_id', 'merchant_id'])
    .execute();
  await db.schema.createIndex('deliveries_state_idx').on('deliveries').columns(['state', 'created_at']).execute();
  await db.schema.createIndex('deliveries_merchant_idx').on('deliveries').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.delivery_id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    // 0 for the first run, n for the n-th replay out of the dead-letter queue.
    .addColumn('replay', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('retry_after_s', 'integer')
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_attempts_pkey', ['delivery_id', 'attempt'])
    .execute();
}
