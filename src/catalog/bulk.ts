import { sql, type QueryExecutorProvider } from 'kysely';

/**
 * Multi-row writes through one JSON parameter (jsonb_to_recordset): a single bind value per
 * chunk instead of rows×columns, which keeps clear of Postgres' 65,535-parameter limit and of
 * per-parameter overhead. JSON arrays become text[] and ISO strings become timestamptz on the way.
 */

export type ColumnSpec = readonly (readonly [name: string, pgType: string])[];

const CHUNK_ROWS = 5_000;

export async function bulkUpsert(
  db: QueryExecutorProvider,
  table: string,
  columns: ColumnSpec,
  rows: readonly object[],
  conflict: { target: string; where?: string } | null,
): Promise<void> {
  const names = columns.map(([n]) => n).join(', ');
  const defs = columns.map(([n, t]) => `${n} ${t}`).join(', ');
  const key = conflict?.target.split(',').map((k) => k.trim());
  const updates = columns
    .filter(([n]) => !key?.includes(n))
    .map(([n]) => `${n} = excluded.${n}`)
    .join(', ');
  const onConflict = conflict
    ? `on conflict (${conflict.target})${conflict.where ? ` where ${conflict.where}` : ''} do update set ${updates}`
    : '';
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const chunk = JSON.stringify(rows.slice(i, i + CHUNK_ROWS));
    await sql`insert into ${sql.table(table)} (${sql.raw(names)})
      select ${sql.raw(names)} from jsonb_to_recordset(${chunk}::jsonb) as x(${sql.raw(defs)})
      ${sql.raw(onConflict)}`.execute(db);
  }
}

/** Serialises catalog writers (seed, feed import) so id allocation and replacement never interleave. */
export async function lockCatalog(trx: QueryExecutorProvider): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('catalog-writer'))`.execute(trx);
}

export const PRODUCT_COLUMNS: ColumnSpec = [
  ['product_id', 'integer'],
  ['title', 'text'],
  ['description', 'text'],
  ['brand', 'text'],
  ['price_cents', 'integer'],
  ['original_price_cents', 'integer'],
  ['currency', 'text'],
  ['discount_label', 'text'],
  ['main_image', 'text'],
  ['gallery', 'jsonb'],
  ['category_l1', 'text'],
  ['category_l2', 'text'],
  ['category_id', 'integer'],
  ['region_allow', 'text[]'],
  ['risk_level', 'text'],
  ['tags', 'text[]'],
  ['inventory_qty', 'integer'],
  ['availability', 'text'],
  ['link', 'text'],
  ['gmv_cents', 'bigint'],
  ['orders', 'integer'],
  ['views', 'bigint'],
  ['source', 'text'],
  ['external_id', 'text'],
  ['created_at', 'timestamptz'],
];
