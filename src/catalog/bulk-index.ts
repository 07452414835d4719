import type pg from 'pg';

/**
 * Index work of a large import, done in bulk instead of row by row (docs/BENCHMARKS.md, feed import).
 * The products GIN indexes that recommendations read (full text, title trigrams) are kept with
 * `fastupdate = off` so that no search scans a long pending list (docs/RECOMMEND.md); inserting
 * hundreds of thousands of products into them row by row was most of a large import's time. For an
 * import of at least BULK_IMPORT_PRODUCTS products, fastupdate is switched on for the import, so new
 * entries collect in the pending list (bounded by gin_pending_list_limit, BULK_PENDING_LIST in the
 * import's transaction, and merged in sorted batches whenever it fills), and after the import the
 * rest of the list is merged (`gin_clean_pending_list`) and fastupdate switched off again.
 *
 * Each switch is its own short transaction on another connection, taken before the import touches
 * `products` (ALTER INDEX … SET needs an exclusive lock on the index for an instant) and with a
 * 2 s lock_timeout, so it never waits behind a long read while queueing every other read behind
 * itself: when the lock is not free the import simply runs row by row, as before.
 */

export const BULK_IMPORT_PRODUCTS = 20_000;
/**
 * gin_pending_list_limit of a large import's transaction (4 MB by default). Merging a pending list
 * into its index was most of the insert phase when it filled every few thousand rows; with 128 MB
 * the insert of 180,000 products took a third of the time. The price: while the import runs, a
 * search scans a pending list of up to this size, not 4 MB.
 */
export const BULK_PENDING_LIST = '128MB';
const READ_TUNED_GIN = ['products_search_tsv_idx', 'products_title_trgm_idx'] as const;

/**
 * The partitions' own indexes of READ_TUNED_GIN: products is partitioned (migration 0031) and a
 * partitioned index has no storage parameters of its own, so fastupdate is switched on each leaf.
 */
async function leafIndexes(c: pg.PoolClient): Promise<string[]> {
  const { rows } = await c.query<{ idx: string }>(
    `select t.relid::regclass::text as idx from unnest($1::text[]) as parent(name), pg_partition_tree(parent.name::regclass) t
     where t.isleaf order by 1`,
    [READ_TUNED_GIN],
  );
  return rows.map((r) => r.idx);
}

async function setFastUpdate(pool: pg.Pool, on: boolean): Promise<boolean> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    await c.query(`set local lock_timeout = '2s'`);
    for (const idx of await leafIndexes(c)) await c.query(`alter index ${idx} set (fastupdate = ${on ? 'on' : 'off'})`);
    await c.query('commit');
    return true;
  } catch {
    await c.query('rollback').catch(() => undefined);
    return false;
  } finally {
    c.release();
  }
}

export class BulkIndexWork {
  /** Whether the import runs with fastupdate on (then its pending lists need merging after it). */
  deferred = false;
  constructor(private readonly pool: pg.Pool) {}

  /** Before the import writes products: defer GIN maintenance when it will insert many. */
  async deferIfLarge(newProducts: number): Promise<void> {
    if (newProducts < BULK_IMPORT_PRODUCTS) return;
    this.deferred = await setFastUpdate(this.pool, true);
  }

  /**
   * After commit or rollback: merge what is pending and restore fastupdate off. A lock not free
   * now is retried a few times; failing that, the next large import (or a vacuum, which merges
   * pending lists too) finishes the job, and reads stay correct meanwhile, only slower.
   */
  async finish(): Promise<void> {
    if (!this.deferred) return;
    const c = await this.pool.connect();
    try {
      for (const idx of await leafIndexes(c)) await c.query(`select gin_clean_pending_list($1::regclass)`, [idx]);
    } finally {
      c.release();
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await setFastUpdate(this.pool, false)) {
        this.deferred = false;
        return;
      }
    }
  }
}
