import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/connect';
import type { AffiliateOrderStatus, AffiliateOrdersTable } from '../db/schema-supply';
import { FeedFileError, readFeed } from '../catalog/feed-format';
import { minorUnitDigits, parseMajorUnits } from '../money';
import { ORDER_SOURCE_NAME } from '../schemas/reconciliation';

/**
 * The platform-affiliate order report (docs/RECONCILIATION.md): JSON Lines or CSV with a header row,
 * one order a record. Bad records are reported by line and skipped; every good record of a file is
 * written in ONE transaction under one import batch, whose id is a hash of the source and the file's
 * bytes, so importing the same file again adds nothing.
 */

export const DEFAULT_ORDER_SOURCE = 'platform_affiliate';
export const SourceName = ORDER_SOURCE_NAME;
/** A report is bounded so that one import stays one reasonable transaction. */
export const MAX_ORDERS_PER_FILE = 1_000_000;
const WRITE_BATCH = 5000;

/** One platform order as a source yields it: the import table's row without its bookkeeping columns. */
export type AffiliateOrderRecord = Omit<
  Selectable<AffiliateOrdersTable>,
  'id' | 'source' | 'import_batch' | 'line' | 'raw' | 'imported_at'
>;

export interface AffiliateImportReport {
  source: string;
  import_batch: string;
  /** True when this exact file was imported for this source before: nothing was written. */
  already_imported: boolean;
  imported: number;
  skipped: Array<{ line: number; reason: string }>;
}

const STATUSES: Record<string, AffiliateOrderStatus> = {
  completed: 'completed',
  refunded: 'refunded',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const DECIMAL = /^\d+(?:\.\d{1,3})?$/;

class RecordError extends Error {}

const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

function text(values: Record<string, unknown>, key: string, max = 200): string | null {
  const v = values[key];
  if (!present(v)) return null;
  if (typeof v !== 'string' && typeof v !== 'number') throw new RecordError(`${key} must be a string`);
  const s = String(v).trim();
  if (s.length > max) throw new RecordError(`${key} is longer than ${max} characters`);
  return s;
}

/** Major units (`12.5`, `"12.50"`) to the currency's minor units (the same conversion the gateway's match tokens use). */
function majorToCents(values: Record<string, unknown>, key: string, currency: string): number | null {
  const v = values[key];
  if (!present(v)) return null;
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  const minor = DECIMAL.test(s) ? parseMajorUnits(s, currency) : null;
  if (minor === null)
    throw new RecordError(
      `${key} must be a non-negative decimal with at most ${minorUnitDigits(currency)} decimals, got ${JSON.stringify(v)}`,
    );
  return minor;
}

function wholeCents(values: Record<string, unknown>, key: string): number | null {
  const v = values[key];
  if (!present(v)) return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > 2_147_483_647)
    throw new RecordError(`${key} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

/** One amount from either column; both given must agree. */
function money(values: Record<string, unknown>, major: string, minor: string, currency: string): number | null {
  const a = majorToCents(values, major, currency);
  const b = wholeCents(values, minor);
  if (a !== null && b !== null && a !== b) throw new RecordError(`${major} ${values[major]} and ${minor} ${values[minor]} disagree`);
  return a ?? b;
}

export function parseAffiliateOrder(values: Record<string, unknown>): AffiliateOrderRecord {
  const order_id = text(values, 'order_id');
  if (!order_id) throw new RecordError('order_id is required');
  const currency = text(values, 'currency', 3)?.toUpperCase();
  if (!currency || !/^[A-Z]{3}$/.test(currency)) throw new RecordError('currency must be a 3-letter ISO 4217 code');
  const amount_cents = money(values, 'amount', 'amount_cents', currency);
  if (amount_cents === null) throw new RecordError('amount (major units) or amount_cents is required');
  const statusText = (text(values, 'status') ?? 'completed').toLowerCase();
  const status = STATUSES[statusText];
  if (!status) throw new RecordError(`status must be completed, refunded or cancelled, got ${JSON.stringify(statusText)}`);
  const when = text(values, 'ordered_at', 40);
  const zoned = when && ISO_TIME.exec(when);
  if (!when || !zoned) throw new RecordError('ordered_at must be an ISO 8601 date-time');
  // A time without an offset is UTC: reports are compared with UTC windows.
  const ordered_at = new Date(zoned[1] || when.length === 10 ? when : `${when.replace(' ', 'T')}Z`);
  if (Number.isNaN(ordered_at.getTime())) throw new RecordError(`ordered_at ${JSON.stringify(when)} is not a valid date-time`);
  const productId = wholeCents(values, 'product_id');
  return {
    order_id,
    rec_id: text(values, 'rec_id'),
    match_token_id: text(values, 'match_token_id'),
    checkout_id: text(values, 'checkout_id'),
    product_id: productId === 0 ? null : productId,
    merchant_id: text(values, 'merchant_id'),
    amount_cents,
    currency,
    commission_cents: money(values, 'commission', 'commission_cents', currency),
    status,
    ordered_at,
  };
}

async function fileDigest(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  } catch (err) {
    throw new FeedFileError(`cannot read ${filePath}: ${(err as Error).message}`);
  }
  return hash.digest('hex');
}

interface PendingRow extends AffiliateOrderRecord {
  line: number;
  raw: Record<string, unknown>;
}

/** Column arrays through unnest: one statement per WRITE_BATCH rows. */
async function writeRows(trx: Db, rows: PendingRow[], source: string, batch: string): Promise<void> {
  const col = <T>(f: (r: PendingRow) => T) => rows.map(f);
  await sql`
    insert into affiliate_orders (source, import_batch, order_id, rec_id, match_token_id, checkout_id, product_id, merchant_id,
                                  amount_cents, currency, commission_cents, status, ordered_at, line, raw)
    select ${source}, ${batch}, * from unnest(
      ${col((r) => r.order_id)}::text[], ${col((r) => r.rec_id)}::text[], ${col((r) => r.match_token_id)}::text[],
      ${col((r) => r.checkout_id)}::text[], ${col((r) => r.product_id)}::int[], ${col((r) => r.merchant_id)}::text[],
      ${col((r) => r.amount_cents)}::int[], ${col((r) => r.currency)}::text[], ${col((r) => r.commission_cents)}::int[],
      ${col((r) => r.status)}::text[], ${col((r) => r.ordered_at.toISOString())}::timestamptz[], ${col((r) => r.line)}::int[],
      ${col((r) => JSON.stringify(r.raw))}::jsonb[])`.execute(trx);
}

export async function importAffiliateOrders(db: Db, filePath: string, source = DEFAULT_ORDER_SOURCE): Promise<AffiliateImportReport> {
  if (!SourceName.test(source)) throw new Error(`source ${JSON.stringify(source)}: use up to 64 lower-case letters, digits and . _ -`);
  const batch = `aob_${createHash('sha256')
    .update(`${source}\n${await fileDigest(filePath)}`)
    .digest('hex')
    .slice(0, 24)}`;
  const report: AffiliateImportReport = { source, import_batch: batch, already_imported: false, imported: 0, skipped: [] };
  await db.transaction().execute(async (trx) => {
    // Two imports of one file at once: the second waits here, then sees the first's rows.
    await sql`select pg_advisory_xact_lock(hashtext(${batch}))`.execute(trx);
    if (await trx.selectFrom('affiliate_orders').select('id').where('import_batch', '=', batch).limit(1).executeTakeFirst()) {
      report.already_imported = true;
      return;
    }
    let pending: PendingRow[] = [];
    let records = 0;
    for await (const raw of readFeed(filePath)) {
      if (++records > MAX_ORDERS_PER_FILE)
        throw new FeedFileError(`more than ${MAX_ORDERS_PER_FILE} records (line ${raw.line}): split the report`);
      if ('error' in raw) {
        report.skipped.push({ line: raw.line, reason: raw.error });
        continue;
      }
      try {
        pending.push({ ...parseAffiliateOrder(raw.values), line: raw.line, raw: raw.values });
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        report.skipped.push({ line: raw.line, reason: err.message });
        continue;
      }
      if (pending.length >= WRITE_BATCH) {
        await writeRows(trx, pending, source, batch);
        report.imported += pending.length;
        pending = [];
      }
    }
    if (pending.length) await writeRows(trx, pending, source, batch);
    report.imported += pending.length;
  });
  return report;
}
