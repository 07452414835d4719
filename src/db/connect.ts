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

/** Network errors and Postgres' "cannot serve now" classes (08 connection, 53 resources, 57P admin shutdown / cannot connect). */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

/** True when an error means the database cannot be reached, not that the query was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return true;
  // pg-pool's connect timeout and a connection dropped mid-query carry no code.
  const message = typeof e.message === 'string' ? e.message : '';
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(message)) return true;
  // Node reports a refused dual-stack connect as an AggregateError of the per-address errors.
  return Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable);
}
