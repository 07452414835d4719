import type { Db } from '../db/connect';
import type { Developer, DeveloperSession } from '../db/schema';
import { newId } from '../ids';
import { newSecret, sha256Hex } from '../crypto/tokens';

export const DEVELOPER_TOKEN_PREFIX = 'cig_dt_';

export async function createSession(db: Db, developerId: string, ttlSeconds: number) {
  const token = newSecret(DEVELOPER_TOKEN_PREFIX);
  const now = new Date();
  const session = await db
    .insertInto('developer_sessions')
    .values({
      session_id: newId('ses'),
      developer_id: developerId,
      token_hash: sha256Hex(token),
      status: 'active',
      expires_at: new Date(now.getTime() + ttlSeconds * 1000),
      created_at: now,
      last_used_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token, session };
}

/**
 * Resolves a developer token to its live session. Sessions slide: each use pushes the expiry out by
 * the session lifetime, so an active console user is never logged out mid-task.
 */
export async function authenticateSession(
  db: Db,
  token: string,
  ttlSeconds: number,
): Promise<{ session: DeveloperSession; developer: Developer } | null> {
  if (!token.startsWith(DEVELOPER_TOKEN_PREFIX)) return null;
  const now = new Date();
  const session = await db
    .updateTable('developer_sessions')
    .set({ last_used_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) })
    .where('token_hash', '=', sha256Hex(token))
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (!session) return null;
  const developer = await db
    .selectFrom('developers')
    .selectAll()
    .where('developer_id', '=', session.developer_id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return developer ? { session, developer } : null;
}
