import { createHash } from 'node:crypto';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';

// Keep bigint (bigserial ids, counts) as strings rather than lossy numbers; int4 stays number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export type Db = Kysely<Database>;

function createPool(connectionString: string, max: number, options?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    options,
    // Fail fast when Postgres is gone so /healthz answers 503 instead of hanging.
    connectionTimeoutMillis: 3000,
    // A burst after a quiet spell should find connections open: up to 4 stay open however long they
    // idle; the rest close after 30 s (a new connection costs a fork and authentication).
    idleTimeoutMillis: 30_000,
    min: Math.min(4, max),
  });
  // An idle client losing its connection (Postgres restarted) must not crash the process.
  pool.on('error', () => {});
  // Nor one checked out between two statements (a transaction, a Kysely connection about to run its
  // query): Postgres shutting down ("terminating connection due to administrator command") emitted
  // an unhandled 'error' on it and killed the worker. Its next statement fails and the pool drops
  // it on release (it is no longer queryable); the caller's retry gets a fresh connection.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The pool behind each Db, for statements prepared by name (queryPrepared). */
const mainPools = new WeakMap<Db, pg.Pool>();
/** The query pool behind a Db made by createDb (for its connection metrics). */
export function dbPool(db: Db): pg.Pool | undefined {
  return mainPools.get(db);
}

/** The pool of generic-plan sessions of each Db, opened on first use and closed with the Db. */
const genericPlanPools = new WeakMap<Db, () => pg.Pool>();
const GENERIC_PLAN_POOL_SIZE = 4;

export function createDb(connectionString: string, opts: { max?: number } = {}): Db {
  const pool = createPool(connectionString, opts.max ?? 10);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  mainPools.set(db, pool);
  let generic: pg.Pool | undefined;
  genericPlanPools.set(
    db,
    () => (generic ??= createPool(connectionString, GENERIC_PLAN_POOL_SIZE, '-c plan_cache_mode=force_generic_plan')),
  );
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    const pool = generic;
    generic = undefined;
    await pool?.end();
    await destroy();
  };
  return db;
}

/**
 * Runs a query as a named prepared statement with a generic plan, on sessions of its own that set
 * plan_cache_mode = force_generic_plan, so each session plans the statement once. For queries
 * whose best plan does not depend on their parameter values this saves the planning of every
 * later execution, which for the trigram and regex searches of retrieval costs more than running
 * them (the planner estimates their selectivity from the column statistics; docs/BENCHMARKS.md).
 * A query given a transaction, or a Db not made by createDb, runs as usual.
 */
export async function queryWithGenericPlan<R>(db: Db, query: CompiledQuery<R>): Promise<R[]> {
  const pool = genericPlanPools.get(db)?.();
  if (!pool) return (await db.executeQuery(query)).rows;
  const name = `generic_${createHash('sha1').update(query.sql).digest('base64url')}`;
  const result = await pool.query({ name, text: query.sql, values: [...query.parameters] });
  return result.rows as R[];
}

/**
 * Runs a hot read as a statement prepared by name on the Db's own pool: each connection parses and
 * plans it once, and the caller builds no query per request. For the few statements every request
 * of a busy route runs (the API-key lookup, the rendered match session), parsing and planning cost
 * Postgres more than executing them. A Db that is a transaction (or not made by createDb) runs
 * the text as usual.
 */
export async function queryPrepared<R>(db: Db, name: string, text: string, values: unknown[]): Promise<R[]> {
  const pool = mainPools.get(db);
  if (!pool) return (await db.executeQuery(CompiledQuery.raw(text, values))).rows as R[];
  return (await pool.query({ name, text, values })).rows as R[];
}

/** Network errors and Postgres' "cannot serve now" classes (08 connection, 53 resources, 57P admin shutdown / cannot connect). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** pg-pool's error when every connection of the pool stayed checked out for the whole wait. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * Why the database could not serve a statement, as callers are told: `busy` when every connection of
 * this process's pool stayed in use for the pool's whole wait (load; the database itself answers), or
 * `unreachable` (refused, dropped, shutting down, too many connections, a new connection timing out).
 * Both are 503 with Retry-After; telling them apart is what an operator sizing the pool needs.
 */
export function databaseUnavailable(err: unknown): { reason: 'busy' | 'unreachable'; message: string; retryAfterS: number } | null {
  if (!isDatabaseUnavailable(err)) return null;
  if ((err as { message?: unknown }).message === POOL_WAIT_TIMEOUT)
    return {
      reason: 'busy',
      message: 'Service busy: every database connection of this server is in use. Retry shortly.',
      retryAfterS: 1,
    };
  return {
    reason: 'unreachable',
    message: 'Service temporarily unavailable: the database cannot be reached. Retry shortly.',
    retryAfterS: 5,
  };
}

/** True when an error means the database cannot be reached, not that the query was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return true;
  // pg-pool's connect timeout and a connection dropped mid-query carry no code.
  const message = typeof e.message === 'string' ? e.message : '';
  if (message === POOL_WAIT_TIMEOUT || /Connection terminated/i.test(message)) return true;
  // Node reports a refused dual-stack connect as an AggregateError of the per-address errors.
  return Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable);
}

/** The pg pool behind a Db made by createDb, for what Kysely cannot say (COPY ... FROM STDIN). */
export function poolOf(db: Db): pg.Pool | undefined {
  return mainPools.get(db);
}
