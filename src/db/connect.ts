import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';

// Keep bigint (bigserial ids, counts) as strings rather than lossy numbers; int4 stays number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export type Db = Kysely<Database>;

export function createDb(connectionString: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    // Fail fast when Postgres is gone so /healthz answers 503 instead of hanging.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (Postgres restarted) must not crash the process.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
