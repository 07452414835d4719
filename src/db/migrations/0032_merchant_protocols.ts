import { sql, type Kysely } from 'kysely';

/**
 * Merchants that sell through a commerce protocol (docs/MERCHANTS.md):
 * - `merchants.protocol_version` is the merchant's protocol: `gateway` (the gateway's own webhooks,
 *   the default), `ucp` (a UCP business at `agent_endpoint`) or `acp` (an ACP seller at
 *   `agent_endpoint`). Values stored before it meant this (free text such as "0.2") were all gateway
 *   agents. `protocol_profile` is what discovery found (UCP: negotiated version, services,
 *   capabilities, payment handlers, signing keys), `protocol_profile_fetched_at` when;
 *   `seller_credential_sealed` the credential an ACP seller issued to agents, sealed like the
 *   webhook secret.
 * - `agentic_checkouts.merchant_session`: the merchant's checkout session (protocol, id, status, its
 *   authoritative totals, fulfillment chosen); `merchant_order`: the order it placed and the events
 *   it sent since (status, tracking); `buyer`: the buyer's contact details the plan was given;
 *   `payment_credential_sealed`: the payment instrument the first confirm named, sealed (it stays out
 *   of the workflow's history).
 * - `merchant_order_events`: every order event a merchant sent, once (its event id per merchant).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update merchants set protocol_version = 'gateway' where protocol_version is null or protocol_version not in ('gateway', 'ucp', 'acp')`.execute(
    db,
  );
  await sql`alter table merchants
              alter column protocol_version set default 'gateway',
              alter column protocol_version set not null,
              add constraint merchants_protocol_version_check check (protocol_version in ('gateway', 'ucp', 'acp')),
              add column protocol_profile jsonb,
              add column protocol_profile_fetched_at timestamptz,
              add column seller_credential_sealed text`.execute(db);
  await sql`alter table agentic_checkouts
              add column merchant_session jsonb,
              add column merchant_order jsonb,
              add column buyer jsonb,
              add column payment_credential_sealed text`.execute(db);
  await sql`create index agentic_checkouts_merchant_session_idx on agentic_checkouts ((merchant_session->>'session_id')) where merchant_session is not null`.execute(
    db,
  );
  await sql`create table merchant_order_events (
    merchant_id text not null,
    event_id text not null,
    checkout_id text references agentic_checkouts(checkout_id) on delete cascade,
    protocol text not null,
    status text not null,
    body jsonb not null,
    received_at timestamptz not null default now(),
    primary key (merchant_id, event_id)
  )`.execute(db);
  await sql`create index merchant_order_events_checkout_idx on merchant_order_events (checkout_id, received_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table merchant_order_events`.execute(db);
  await sql`alter table agentic_checkouts drop column merchant_session, drop column merchant_order, drop column buyer, drop column payment_credential_sealed`.execute(
    db,
  );
  await sql`alter table merchants drop constraint merchants_protocol_version_check, alter column protocol_version drop not null,
              alter column protocol_version drop default, drop column protocol_profile, drop column protocol_profile_fetched_at,
              drop column seller_credential_sealed`.execute(db);
}
