import { sql, type Kysely } from 'kysely';

/**
 * Checkout modes and compensation (docs/CHECKOUT.md):
 * - `agentic_checkouts.checkout_mode`: `agent_handoff` (the seller has an agent endpoint: payment is
 *   authorized and the order handed to it) or `merchant_redirect` (no agent endpoint: no payment,
 *   the buyer continues on the product page through an attributable `/r/<rec_id>` link), chosen when
 *   the plan is made; `continue_url` is that link once handed off; new status `handed_off`.
 * - `payment_authorizations.status`: an authorization whose handoff failed for good is voided (the
 *   saga's compensation), which frees its match token for another checkout. The token may then be
 *   authorized again, so "one authorization per token" holds for live authorizations only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table agentic_checkouts
              add column checkout_mode text not null default 'agent_handoff' check (checkout_mode in ('agent_handoff', 'merchant_redirect')),
              add column continue_url text`.execute(db);
  await sql`alter table agentic_checkouts drop constraint if exists agentic_checkouts_status_check`.execute(db);
  await sql`alter table agentic_checkouts add constraint agentic_checkouts_status_check
              check (status in ('awaiting_confirmation', 'confirming', 'confirmed', 'handed_off', 'expired', 'failed'))`.execute(db);

  await sql`alter table payment_authorizations
              add column status text not null default 'authorized' check (status in ('authorized', 'voided')),
              add column voided_at timestamptz,
              add column void_reason text`.execute(db);
  await sql`alter table payment_authorizations drop constraint if exists payment_authorizations_match_token_id_key`.execute(db);
  await sql`create unique index payment_authorizations_live_token_key on payment_authorizations (match_token_id) where status = 'authorized'`.execute(
    db,
  );
  await sql`create index payment_authorizations_token_idx on payment_authorizations (match_token_id)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
