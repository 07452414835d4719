import { sql, type Kysely } from 'kysely';

/** Merchant agents (legacy registry), their health probes, and commerce agents (general registry). */
export async function up(db: Kysely<any>): Promise<void> {
  const jsonb = (fallback: string) => (c: any) => c.notNull().defaultTo(sql.raw(`'${fallback}'::jsonb`));

  await db.schema
    .createTable('merchants')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey())
    .addColumn('agent_endpoint', 'text', (c) => c.notNull())
    // text[] so Intent.Surge can match tags with an indexed overlap (&&) query.
    .addColumn('subscription_tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('capabilities', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('regions', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('category_tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('inventory_scope', 'jsonb', jsonb('[]'))
    .addColumn('protocol_version', 'text')
    .addColumn('a2a_capabilities', 'jsonb', jsonb('{}'))
    .addColumn('metadata', 'jsonb', jsonb('{}'))
    .addColumn('workflow_context', 'jsonb', jsonb('{}'))
    .addColumn('trust_evidence_policy', 'jsonb', jsonb('{}'))
    .addColumn('agent_ready_profile', 'jsonb', jsonb('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('registered_by_key_id', 'text')
    .addColumn('registered_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz')
    .addColumn('deactivated_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('merchants_subscription_tags_idx').on('merchants').using('gin').column('subscription_tags').execute();

  await db.schema
    .createTable('merchant_health_probes')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.merchant_id'))
    .addColumn('healthy', 'boolean', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('http_status', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('merchant_health_probes_merchant_idx')
    .on('merchant_health_probes')
    .columns(['merchant_id', 'checked_at desc'])
    .execute();

  await db.schema
    .createTable('commerce_agents')
    .addColumn('agent_id', 'text', (c) => c.primaryKey())
    .addColumn('agent_type', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('agent_card_url', 'text')
    .addColumn('protocols', 'jsonb', jsonb('[]'))
    .addColumn('auth_methods', 'jsonb', jsonb('[]'))
    .addColumn('capabilities', 'jsonb', jsonb('[]'))
    .addColumn('capability_profile', 'jsonb', jsonb('{}'))
    .addColumn('regions', 'jsonb', jsonb('[]'))
    .addColumn('categories', 'jsonb', jsonb('[]'))
    .addColumn('metadata', 'jsonb', jsonb('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('registered_by_key_id', 'text')
    .addColumn('registered_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz')
    .addColumn('deactivated_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('commerce_agents_type_status_idx').on('commerce_agents').columns(['agent_type', 'status']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
