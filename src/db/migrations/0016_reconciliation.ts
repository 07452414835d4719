import { sql, type Kysely } from 'kysely';

/**
 * Platform-affiliate reconciliation (docs/RECONCILIATION.md): the gateway-side records a run expects
 * an order for are read by window, and an import is recognised by its batch id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Tokens a run expects an order for, by the last change (authorization or consumption happens before it).
  await sql`create index match_tokens_paid_updated_idx on match_tokens (updated_at)
            where acceptance_state in ('payment_authorized', 'consumed')`.execute(db);
  await sql`create index agentic_checkouts_confirmed_idx on agentic_checkouts (confirmed_at) where status = 'confirmed'`.execute(db);
  // Re-importing the same report file is recognised by its batch id (a content hash).
  await db.schema.createIndex('affiliate_orders_batch_idx').on('affiliate_orders').column('import_batch').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
