import { sql, type Kysely } from 'kysely';

/** Signed intent mandates (docs/MANDATES.md), kept for audit: append-only, never updated or deleted. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('intent_mandates')
    .addColumn('mandate_id', 'text', (c) => c.primaryKey())
    .addColumn('developer_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    // double precision: read back as the same JS number that was canonicalized and signed.
    .addColumn('amount_limit', 'double precision', (c) => c.notNull().check(sql`amount_limit > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text')
    .addColumn('merchant_id', 'text')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('canonical_payload', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('jws', 'text', (c) => c.notNull())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('intent_mandates_developer_idx').on('intent_mandates').columns(['developer_id', 'created_at desc']).execute();

  // Audit trail: the database itself refuses to change or remove a signed mandate.
  await sql`
    create function intent_mandates_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'intent_mandates is append-only (% refused)', tg_op;
    end
    $$`.execute(db);
  await sql`
    create trigger intent_mandates_append_only
    before update or delete on intent_mandates
    for each row execute function intent_mandates_append_only()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
