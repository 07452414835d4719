import { sql, type Kysely } from 'kysely';

/**
 * Checkouts whose caller was told 503 no_worker before the plan ran (src/checkout/client.ts). The
 * start of such a run may reach Temporal after the API gave up on it, and a worker that polls later
 * would plan it and hold the match token nobody knows the checkout of. A plan's insert of a checkout
 * id recorded here fails (the trigger below; src/checkout/checkouts.ts answers checkout_abandoned); a retry under the same Idempotency-Key (the same id)
 * takes the record back, since that caller wants that very checkout.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table checkout_abandonments (
    checkout_id text primary key,
    reason text not null,
    abandoned_at timestamptz not null default now()
  )`.execute(db);
  // Checked by the insert itself, under a lock on the checkout id that abandonCheckout takes too:
  // either the plan's insert sees the abandonment, or the abandonment sees (and fails) the plan.
  // In the statement, so a plan costs no statement more (test/checkout.test.ts counts them).
  await sql`create function refuse_abandoned_checkout() returns trigger language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended('checkout:' || new.checkout_id, 0));
      if exists (select 1 from checkout_abandonments where checkout_id = new.checkout_id) then
        raise exception 'checkout % was abandoned', new.checkout_id using errcode = 'P0A01';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger agentic_checkouts_refuse_abandoned before insert on agentic_checkouts
    for each row execute function refuse_abandoned_checkout()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger agentic_checkouts_refuse_abandoned on agentic_checkouts`.execute(db);
  await sql`drop function refuse_abandoned_checkout()`.execute(db);
  await sql`drop table checkout_abandonments`.execute(db);
}
