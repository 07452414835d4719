import pg from 'pg';

/**
 * What a phase of load cost Postgres: transactions committed and rows written in the benchmark's own
 * database (pg_stat_database, so other databases on the server do not count), and WAL bytes written
 * (pg_current_wal_lsn(), which is server-wide: trust it on a Postgres nothing else writes to).
 * The statistics collector publishes with a short delay, so a reading waits for it.
 */
export interface PgCounters {
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
  walLsn: string;
}

export async function readPgCounters(databaseUrl: string): Promise<PgCounters> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Counters are sampled as of the transaction's start: ask for a fresh snapshot.
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ commits: string; inserted: string; updated: string; deleted: string; wal: string }>(
      `select xact_commit as commits, tup_inserted as inserted, tup_updated as updated, tup_deleted as deleted,
              pg_current_wal_lsn()::text as wal
         from pg_stat_database where datname = current_database()`,
    );
    const r = rows[0]!;
    return {
      commits: Number(r.commits),
      inserted: Number(r.inserted),
      updated: Number(r.updated),
      deleted: Number(r.deleted),
      walLsn: r.wal,
    };
  } finally {
    await client.end();
  }
}

/** The difference of two readings, WAL in bytes (computed by Postgres from the two LSNs). */
export async function pgCostBetween(databaseUrl: string, a: PgCounters, b: PgCounters) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint as bytes', [
      b.walLsn,
      a.walLsn,
    ]);
    return {
      commits: b.commits - a.commits,
      rowsWritten: b.inserted - a.inserted + (b.updated - a.updated) + (b.deleted - a.deleted),
      walBytes: Number(rows[0]!.bytes),
    };
  } finally {
    await client.end();
  }
}

export type PgCost = Awaited<ReturnType<typeof pgCostBetween>>;
