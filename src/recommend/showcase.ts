import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { AppError } from '../errors';

/** A creator's products in order of how well their videos convert (ties: more GMV first). */
export async function showcaseProducts(db: Db, username: string, limit: number): Promise<{ username: string; productIds: number[] }> {
  const creator = await db.selectFrom('creators').select(['creator_id', 'username']).where('username', '=', username).executeTakeFirst();
  if (!creator) throw new AppError(404, 'creator_not_found', `No creator '${username}'.`);
  const rows = await db
    .selectFrom('videos')
    .select(['product_id', sql<number>`max(conversion_score)`.as('conversion'), sql<string>`sum(gmv_cents)`.as('gmv')])
    .where('creator_id', '=', creator.creator_id)
    .groupBy('product_id')
    .orderBy('conversion', 'desc')
    .orderBy('gmv', 'desc')
    .orderBy('product_id')
    .limit(limit)
    .execute();
  return { username: creator.username, productIds: rows.map((r) => r.product_id) };
}
