import { sql } from 'kysely';
import type { Db } from '../db/connect';

/**
 * Deletes rate-limit buckets whose window ended over an hour ago (the library's own periodic clean-up
 * is off: it would run in every limiter of every replica). A bucket still in the library's hands is
 * rewritten on its next use, so nothing live is lost.
 */
export async function purgeExpiredRateLimits(db: Db): Promise<number> {
  const res = await sql`delete from rate_limits where expire < ${Date.now() - 3600_000}`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}
