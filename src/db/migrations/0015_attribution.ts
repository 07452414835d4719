import { sql, type Kysely } from 'kysely';

/**
 * Attribution report (docs/REPORTS.md). Clicks carry their card's product_id, filled at click time,
 * and are counted per UTC day, channel and product as they happen (rec_click_daily), so a 30-day
 * report reads whole days from the rollup and only the two partial edge days from rec_clicks, through
 * a covering index, instead of aggregating a million rows (measured in bench/attribution.ts). The other window indexes serve the report's range
 * scans over cards, tokens and authorizations (confirmed checkouts by confirmed_at: 0016_reconciliation's index).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rec_clicks').addColumn('product_id', 'integer').execute();
  await sql`update rec_clicks k set product_id = c.product_id from rec_cards c where c.rec_id = k.rec_id and k.product_id is null`.execute(
    db,
  );
  // Channel '' stands for a card without a channel, so the key needs no nullable column.
  await sql`create table rec_click_daily (
              day date not null, channel text not null, product_id integer not null, clicks integer not null,
              primary key (day, channel, product_id))`.execute(db);
  await sql`insert into rec_click_daily (day, channel, product_id, clicks)
            select (clicked_at at time zone 'UTC')::date, coalesce(channel, ''), product_id, count(*)
            from rec_clicks where product_id is not null group by 1, 2, 3`.execute(db);
  await sql`create index rec_clicks_window_idx on rec_clicks (clicked_at) include (channel, product_id)`.execute(db);
  await sql`create index rec_cards_window_idx on rec_cards (created_at) include (channel, product_id)`.execute(db);
  await sql`create index match_tokens_issued_idx on match_tokens (issued_at)`.execute(db);
  await sql`create index payment_authorizations_authorized_idx on payment_authorizations (authorized_at)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
