import { sql, type Kysely } from 'kysely';

/** Developer console: accounts, sessions, API keys, request logs, idempotency records. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('developers')
    .addColumn('developer_id', 'text', (c) => c.primaryKey())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('contact_email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
    .addColumn('company', 'text')
    .addColumn('website', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('invite_verified_at', 'timestamptz')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('developer_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('developer_id', 'text', (c) => c.notNull().references('developers.developer_id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('developer_id', 'text', (c) => c.notNull().references('developers.developer_id'))
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_ciphertext', 'text')
    .addColumn('label', 'text')
    .addColumn('scopes', 'jsonb', (c) => c.notNull().defaultTo(sql`'["*"]'::jsonb`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_developer_idx').on('api_keys').column('developer_id').execute();

  await db.schema
    .createTable('request_logs')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('developer_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('request_logs_developer_created_idx')
    .on('request_logs')
    .columns(['developer_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'jsonb')
    .addColumn('locked_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
