import { sql, type Kysely } from 'kysely';

/**
 * Checkouts whose caller was told 503 no_worker before the plan ran (src/checkout/client.ts). The
 * start of such a run may reach Temporal after the API gave up on it, and a worker that polls later
 * would plan it and hold the match token nobody knows the checkout of. A plan refuses a checkout id
 * recorded here (src/checkout/checkouts.ts); a retry under the same Idempotency-Key (the same id)
 * takes the record back, since that caller wants that very checkout.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table checkout_abandonments (
    checkout_id text primary key,
    reason text not null,
    abandoned_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table checkout_abandonments`.execute(db);
}
