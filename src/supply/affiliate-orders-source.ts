import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { DEFAULT_ORDER_SOURCE, SourceName, type AffiliateOrderRecord } from './affiliate-orders';

/**
 * Where a reconciliation run reads platform-affiliate orders from. A source copies the orders dated
 * inside the run's window into the run's staging table (`recon_orders`, a temporary table of the
 * run's transaction), so the matching that follows is the same set-based SQL whatever the source.
 * The default is the import table (`npm run import-affiliate-orders`); a platform API client is
 * another implementation, registered by name below — the workflow and the matching do not change.
 */
export interface AffiliateOrderSource {
  readonly name: string;
  /** Copies the orders with `start <= ordered_at < end` into `recon_orders`; returns how many. */
  stage(trx: Db, window: { start: Date; end: Date }): Promise<number>;
}

/** The staging table a source fills; row_no orders the listing (a later row of an order supersedes an earlier one). */
export const STAGING_TABLE_DDL = sql`
  create temporary table recon_orders (
    row_no bigint not null, order_id text not null, rec_id text, match_token_id text, checkout_id text,
    product_id integer, merchant_id text, amount_cents bigint not null, currency text not null,
    commission_cents bigint, status text not null, ordered_at timestamptz not null, line integer, import_batch text
  ) on commit drop`;

/** For sources that fetch orders themselves (an API client): writes fetched records in listing order. */
export async function stageRecords(trx: Db, records: AffiliateOrderRecord[], firstRowNo = 1): Promise<number> {
  const col = <T>(f: (r: AffiliateOrderRecord) => T) => records.map(f);
  await sql`
    insert into recon_orders (row_no, order_id, rec_id, match_token_id, checkout_id, product_id, merchant_id, amount_cents, currency, commission_cents, status, ordered_at)
    select ${firstRowNo - 1} + ordinality, o, r, t, c, p, m, a, upper(cur), com, s, at from unnest(
      ${col((r) => r.order_id)}::text[], ${col((r) => r.rec_id)}::text[], ${col((r) => r.match_token_id)}::text[],
      ${col((r) => r.checkout_id)}::text[], ${col((r) => r.product_id)}::int[], ${col((r) => r.merchant_id)}::text[],
      ${col((r) => r.amount_cents)}::bigint[], ${col((r) => r.currency)}::text[], ${col((r) => r.commission_cents)}::bigint[],
      ${col((r) => r.status)}::text[], ${col((r) => r.ordered_at.toISOString())}::timestamptz[]
    ) with ordinality as u(o, r, t, c, p, m, a, cur, com, s, at, ordinality)`.execute(trx);
  return records.length;
}

/** Orders imported from report files under this source name (affiliate_orders.source). */
export function importedOrderSource(name: string): AffiliateOrderSource {
  return {
    name,
    async stage(trx, window) {
      const res = await sql`
        insert into recon_orders
        select id, order_id, rec_id, match_token_id, checkout_id, product_id, merchant_id, amount_cents, currency,
               commission_cents, status, ordered_at, line, import_batch
        from affiliate_orders
        where source = ${name} and ordered_at >= ${window.start} and ordered_at < ${window.end}`.execute(trx);
      return Number(res.numAffectedRows ?? 0);
    },
  };
}

const registered = new Map<string, AffiliateOrderSource>();

/** Adds a source that is not the import table (e.g. a platform API client) under its name. */
export function registerOrderSource(source: AffiliateOrderSource): void {
  if (!SourceName.test(source.name)) throw new Error(`order source name ${JSON.stringify(source.name)} is not valid`);
  registered.set(source.name, source);
}

/** A registered source by name; any other name reads the import table rows filed under it. */
export function orderSourceByName(name: string): AffiliateOrderSource {
  return registered.get(name) ?? importedOrderSource(name);
}

/** A name a run may use: the default, a registered source, or one that has imported rows. */
export async function isKnownOrderSource(db: Db, name: string): Promise<boolean> {
  if (name === DEFAULT_ORDER_SOURCE || registered.has(name)) return true;
  return !!(await db.selectFrom('affiliate_orders').select('id').where('source', '=', name).limit(1).executeTakeFirst());
}
